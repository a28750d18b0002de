// Provider-state handlers: make each state of provider-states.ts hold before its interaction runs.
// On the embedded reference they arrange the data, through HTTP where the interface allows it and directly on
// the reference's state where it does not (there is no create-lookup operation). On a live target they can
// only check preconditions, and read (open a scroll); they never write. A state that does not hold is
// recorded as a problem, and fails the verification even when its interaction happens to pass.
import type { VerifierOptions } from "@pact-foundation/pact";
import type { CredentialRole } from "../check/index.ts";
import { type ApiResponse, describeResponse, pageOf, type ScanEndpoint } from "../client/index.ts";
import { lookupTypeUri } from "../contract/index.ts";
import type { Customer, Lookup } from "../reference/index.ts";
import type { ProviderSession } from "./provider-session.ts";
import { OPEN_SCROLL_QUERY, PROBE_CODE, providerStates, STATE, type StateName } from "./provider-states.ts";

type Values = Record<string, string>;

interface StateHandler {
  setup(session: ProviderSession): Promise<Values>;
  teardown?(session: ProviderSession): Promise<void>;
}

export type StateHandlers = NonNullable<VerifierOptions["stateHandlers"]>;

class StateNotHeld extends Error {}

function need(condition: boolean, message: string): void {
  if (!condition) throw new StateNotHeld(message);
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new StateNotHeld(`${what} is not set; add it to the target file`);
  return value;
}

function requireRole(session: ProviderSession, role: CredentialRole): void {
  need(session.credential(role) !== undefined, `credentials.${role} is missing from the target file`);
}

const tenant = (session: ProviderSession): Values => ({ tenantId: session.target.tenant });

/** A state that holds when the target file has credentials of `role`. */
const roleHeld = (role: CredentialRole): StateHandler => ({
  async setup(session) {
    requireRole(session, role);
    return {};
  },
});

/** A state that holds when the tenant has at least `min` records of `what`: one page the viewer reads,
 *  its records counted by `count`. */
function holdsRecords<R extends ApiResponse<unknown>>(
  what: string,
  min: number,
  read: (session: ProviderSession, token: string) => Promise<R>,
  count: (response: R) => number | undefined,
): StateHandler {
  return {
    async setup(session) {
      const response = await read(session, await session.token("viewer"));
      const found = count(response);
      need(
        found !== undefined && found >= min,
        `expected at least ${min} ${what} in tenant ${session.target.tenant}, got ${found ?? "no page"} (${session.redactor.text(describeResponse(response))})`,
      );
      return tenant(session);
    },
  };
}

/** A state that holds when a first page of a scan of the tenant (`endpoint`, `filter`), asked for `min`
 *  records, gives them all. */
function scanFinds(
  what: string,
  min: number,
  endpoint: (tenantId: string) => ScanEndpoint,
  filter?: string,
): StateHandler {
  return holdsRecords(
    what,
    min,
    (session, token) =>
      session.client.scanFirst(token, endpoint(session.target.tenant), {
        limit: min,
        ...(filter === undefined ? {} : { filter }),
      }),
    (response) => pageOf(response)?.values.length,
  );
}

/** Customers as they were before a state changed them, per session. */
const savedCustomers = new WeakMap<ProviderSession, Map<string, Customer | undefined>>();

/** Remembers the customer as the reference holds it, so teardown can put it back through HTTP. */
function saveCustomer(session: ProviderSession, customerId: string): void {
  const saved = savedCustomers.get(session) ?? new Map<string, Customer | undefined>();
  saved.set(customerId, session.reference?.state.customers.get(customerId));
  savedCustomers.set(session, saved);
}

async function restoreCustomer(session: ProviderSession, customerId: string): Promise<void> {
  const saved = savedCustomers.get(session)?.get(customerId);
  savedCustomers.get(session)?.delete(customerId);
  if (!saved || !session.reference) return;
  const response = await session.client.putCustomer(await session.token("admin"), customerId, saved);
  need(response.ok, `could not restore customer ${customerId}: ${describeResponse(response)}`);
}

async function setQuota(session: ProviderSession, customerId: string, max: number): Promise<void> {
  const response = await session.client.postCustomer(await session.token("admin"), customerId, {
    multitokenConfig: session.client.multiTokenConfig(max),
  });
  need(
    response.ok,
    `could not set maxActiveTokensAllowed=${max} on ${customerId}: ${describeResponse(response)}`,
  );
}

/** The type of the lookup the delete-task pact deletes. */
const PROBE_TYPE = lookupTypeUri("Gender");

/** The lookup the delete-task pact deletes, as the provider team would add it (the interface cannot). */
export function probeLookup(tenantId: string, updatedBy = "pact-verification"): Lookup {
  return {
    tenantId,
    updatedBy,
    updateDate: 0,
    version: 1,
    type: PROBE_TYPE,
    code: PROBE_CODE,
    enabled: true,
    sourceMappings: [],
    localizations: [],
    parents: [],
    attributes: [],
  };
}

/** States whose handling is the same on the reference and on a live target (reads and checks only). */
const checks: Partial<Record<StateName, StateHandler>> = {
  [STATE.viewerClient]: roleHeld("viewer"),
  [STATE.countryLookups]: scanFinds(
    "lookups of type Country",
    3,
    (tenantId) => ({ kind: "lookups", tenantId }),
    OPEN_SCROLL_QUERY.filter,
  ),
  [STATE.scrollOpen]: {
    async setup(session) {
      const response = await session.client.scanFirst(
        await session.token("viewer"),
        { kind: "lookups", tenantId: session.target.tenant },
        OPEN_SCROLL_QUERY,
      );
      const scrollId = pageOf(response)?.scrollId;
      need(
        scrollId !== undefined,
        `opening a scroll over the Country lookups (limit ${OPEN_SCROLL_QUERY.limit}) gave no scrollId: ${session.redactor.text(describeResponse(response))}`,
      );
      return { ...tenant(session), scrollId: scrollId ?? "" };
    },
  },
  [STATE.statistics]: scanFinds("autopilot statistics", 11, (tenantId) => ({ kind: "autopilot", tenantId })),
  [STATE.countryStatistics]: scanFinds("autopilot statistics of type Country", 1, (tenantId) => ({
    kind: "autopilot-type",
    tenantId,
    lookupType: "Country",
  })),
  [STATE.blockedValues]: holdsRecords(
    "blocked values of type Country",
    1,
    (session, token) => session.client.blockedValues(token, session.target.tenant, "Country", { limit: 1 }),
    (response) => (Array.isArray(response.body) ? response.body.length : undefined),
  ),
  [STATE.rdbmsCustomer]: {
    async setup(session) {
      requireRole(session, "rdbmsAdmin");
      return { customerId: required(session.target.rdbmsCustomerId, "rdbmsCustomerId") };
    },
  },
  [STATE.snapshotStream]: { setup: async () => ({}) },
  [STATE.deltasStream]: { setup: async () => ({}) },
  [STATE.largeObjects]: { setup: async () => ({}) },
};

/** States the embedded reference arranges (and puts back afterwards). */
const arranged: Partial<Record<StateName, StateHandler>> = {
  [STATE.quotaReached]: {
    async setup(session) {
      const customerId = required(session.target.quotaCustomerId, "quotaCustomerId");
      const quota = required(session.credential("quota"), "credentials.quota");
      saveCustomer(session, customerId);
      await setQuota(session, customerId, 1);
      // The quota client may already hold a token; ask until refused (twice at most with a quota of 1).
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await session.client.token(quota);
        if (!response.ok) return {};
      }
      throw new StateNotHeld(`client ${quota.clientId} still gets tokens with maxActiveTokensAllowed=1`);
    },
    teardown: (session) =>
      restoreCustomer(session, required(session.target.quotaCustomerId, "quotaCustomerId")),
  },
  [STATE.probeLookup]: {
    async setup(session) {
      const table = session.reference?.state.lookups.get(session.target.tenant);
      need(table !== undefined, `the reference has no tenant ${session.target.tenant}`);
      // The interface has no operation that creates a lookup: arranged on the reference's state.
      table?.add(probeLookup(session.target.tenant));
      return tenant(session);
    },
    async teardown(session) {
      const table = session.reference?.state.lookups.get(session.target.tenant);
      const left = table?.get(PROBE_TYPE, PROBE_CODE);
      if (left) table?.delete(left);
    },
  },
  [STATE.customerQuota]: {
    async setup(session) {
      const customerId = required(session.target.customerId, "customerId");
      saveCustomer(session, customerId);
      await setQuota(session, customerId, 5);
      return { customerId };
    },
    teardown: (session) => restoreCustomer(session, required(session.target.customerId, "customerId")),
  },
  [STATE.viewerValidity]: {
    async setup(session) {
      const customerId = required(session.target.customerId, "customerId");
      const viewer = required(session.credential("viewer"), "credentials.viewer");
      const response = await session.client.putClients(await session.token("admin"), customerId, [
        { clientId: viewer.clientId, accessTokenValidity: 3600 },
      ]);
      need(response.ok, `could not set the validity of ${viewer.clientId}: ${describeResponse(response)}`);
      return { customerId, clientId: viewer.clientId };
    },
  },
};

/** On a live target these states can only be checked as far as the target file goes. */
const liveChecks: Partial<Record<StateName, StateHandler>> = {
  [STATE.quotaReached]: roleHeld("quota"),
  [STATE.probeLookup]: scanFinds(
    `lookups Gender/${PROBE_CODE}`,
    1,
    (tenantId) => ({ kind: "lookups", tenantId }),
    `equals(type,'Gender') and equals(code,'${PROBE_CODE}')`,
  ),
  [STATE.customerQuota]: {
    async setup(session) {
      requireRole(session, "admin");
      return { customerId: required(session.target.customerId, "customerId") };
    },
  },
  [STATE.viewerValidity]: {
    async setup(session) {
      requireRole(session, "admin");
      const viewer = required(session.credential("viewer"), "credentials.viewer");
      return { customerId: required(session.target.customerId, "customerId"), clientId: viewer.clientId };
    },
  },
};

/** The token states: the same on the reference and on a live target (a client_credentials request). */
const tokens: Partial<Record<StateName, StateHandler>> = Object.fromEntries(
  providerStates
    .filter((spec) => spec.provides.includes("accessToken"))
    .map((spec) => [
      spec.name,
      {
        async setup(session: ProviderSession) {
          const role = required(spec.role, `the role of state "${spec.name}"`);
          requireRole(session, role);
          return { accessToken: await session.token(role) };
        },
      },
    ]),
);

function handlerOf(session: ProviderSession, name: StateName): StateHandler | undefined {
  return tokens[name] ?? checks[name] ?? (session.reference ? arranged[name] : liveChecks[name]);
}

/** The stateHandlers option of the Pact verifier for this session: one entry per known state. */
export function stateHandlers(session: ProviderSession): StateHandlers {
  const handlers: StateHandlers = {};
  for (const spec of providerStates) {
    const handler = handlerOf(session, spec.name);
    if (!handler) continue;
    const record = (action: string, error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      session.problems.push({
        source: spec.name,
        message: session.redactor.text(
          error instanceof StateNotHeld ? `does not hold: ${reason}` : `${action} failed: ${reason}`,
        ),
      });
    };
    const setup = async () => {
      session.active.add(spec.name);
      try {
        return await handler.setup(session);
      } catch (error) {
        record("setup", error);
        return undefined;
      }
    };
    const teardown = async () => {
      session.active.delete(spec.name);
      try {
        await handler.teardown?.(session);
      } catch (error) {
        record("teardown", error);
      }
      return undefined;
    };
    // The option's type merges HTTP handlers ({setup, teardown}) with message handlers (a function); the
    // verifier calls setup and teardown when they are present, so one object serves as both.
    handlers[spec.name] = Object.assign(setup, { setup, teardown });
  }
  return handlers;
}
