// Authentication and roles: every endpoint needs a valid bearer token of a role that covers it. Each rule
// is tried on every endpoint, in every token state it is about, with every role the target names: a rule
// kept on one endpoint and broken on another is the fault seen most in the field. The rules are tables
// (token states, another tenant, the roles in their own tenant), each over one way of reaching the endpoints.
import fc from "fast-check";
import {
  type Check,
  type CheckContext,
  type CredentialRole,
  defineFact,
  depthOf,
  type Exchange,
  explore,
  fail,
  inconclusive,
  skip,
} from "../src/check/index.ts";
import { type ApiResponse, describeResponse, type TokenResponse } from "../src/client/index.ts";
import {
  answerDetail,
  clientRecord,
  ensureAnswer,
  tokenRequest,
  withDetail,
} from "./support/answer-detail.ts";
import {
  type AuthorizationValue,
  boundaryAuthorizations,
  madeUpAuthorization,
} from "./support/authorization-values.ts";
import {
  absentLookupTasks,
  type DataOperation,
  dataOperations,
  discoverLookupTypes,
  everyEndpoint,
  noClientUpserts,
} from "./support/data-operations.ts";
import { type CheckDefinition, defineCheck } from "./support/define.ts";
import {
  type ExpiredToken,
  expiredQuotaToken,
  expiredTokenIssuers,
  expiredTokenNeeds,
  expiredTokenRecord,
  withExpiredTokens,
} from "./support/expired-token.ts";
import { checkProperty } from "./support/property.ts";
import { quotaTokensExpire } from "./support/quota-session.ts";
import {
  judgeAuthRefusal,
  judgeData,
  judgeExpiredRefusal,
  judgeRoleRefusal,
  judgeTenantRefusal,
  scanPageShape,
} from "./support/response-judges.ts";
import { clientOf, credentialOf, otherTenantOf } from "./support/target-client.ts";
import { issueToken } from "./support/token-lifetime.ts";

/** Made-up bearer values drawn at the default depth beside the boundary values every endpoint gets. */
const MADE_UP_DRAWS = 10;

/** A lookup type name of the tenant, for the per-type operations (any name serves a refusal probe). */
async function someLookupType(ctx: CheckContext, role: CredentialRole): Promise<string> {
  const types = await discoverLookupTypes(clientOf(ctx), await ctx.token(role), ctx.target.tenant);
  return types[0] ?? "Country";
}

/** The token states of the exploration model ("token state"). */
type TokenState = "none" | "malformed" | "expired" | "other tenant" | "role without privilege" | "valid";

/** Notes what a probe reached: the endpoint (as dataOperations names it), the token state, the role. */
function reached(ctx: CheckContext, endpoint: string, state: TokenState, role?: CredentialRole): void {
  explore(ctx, "endpoint", endpoint);
  explore(ctx, "token state", state);
  if (role !== undefined) explore(ctx, "role", role);
}

/** Sends the role's token to every operation and judges each answer; the first failure ends the check. */
async function everyOperation(
  ctx: CheckContext,
  operations: DataOperation[],
  token: string,
  explored: { state: TokenState; role: CredentialRole },
  judge: (operation: DataOperation, response: ApiResponse<unknown>) => string | undefined,
): Promise<void> {
  for (const operation of operations) {
    const response = await operation.send(token);
    reached(ctx, operation.name, explored.state, explored.role);
    ensureAnswer(judge(operation, response), `${explored.role} on ${operation.name}`, response);
  }
}

interface IsolationProbe {
  name: string;
  send(): Promise<ApiResponse<unknown>>;
  judge(response: ApiResponse<unknown>): string | undefined;
}

/**
 * Sends each role's probes into otherTenant. Which tenants a client holds is the target's configuration,
 * which the interface cannot show: a role the target file states lacks otherTenant (otherTenantLackedBy)
 * fails the check when it gets in; one it does not state is held to nothing, since a correct target lets a
 * client that holds otherTenant in. When no stated role was probed and an unstated one got in, the check
 * cannot decide and skips, naming the key that settles it.
 */
async function isolationProbe(
  ctx: CheckContext,
  roles: CredentialRole[],
  probes: (role: CredentialRole) => IsolationProbe[],
): Promise<void> {
  const other = otherTenantOf(ctx);
  const stated = new Set(ctx.target.otherTenantLackedBy ?? []);
  const undecided: string[] = [];
  let judged = 0;
  for (const role of roles) {
    for (const probe of probes(role)) {
      const response = await probe.send();
      reached(ctx, probe.name, "other tenant", role);
      const problem = probe.judge(response);
      if (problem === undefined) continue;
      if (stated.has(role))
        fail(
          `${role} on ${probe.name}: ${problem}`,
          answerDetail(response, { problem, record: clientRecord(ctx, role, `in tenant ${other}`) }),
        );
      undecided.push(`${role} on ${probe.name}: ${problem}`);
      break;
    }
    if (stated.has(role)) judged++;
  }
  if (undecided.length === 0) return;
  const note =
    `the target let clients into ${other} whose access to it the target file does not state ` +
    `(${undecided.join("; ")}); the interface cannot show a client's tenants, so the kit cannot tell a ` +
    "client that holds the tenant (correct) from one let through (a failure)";
  if (judged === 0)
    inconclusive({
      saw: `the target let clients into ${other} whose access to it the target file does not state (${undecided.join("; ")})`,
      readings: ["those clients hold that tenant", "the target lets clients into a tenant they do not hold"],
      decideBy:
        `state in the target file which of the roles ${roles.join(", ")} hold nothing of ${other} ` +
        "(otherTenantLackedBy: [...]), or name an otherTenant those clients do not hold",
    });
  ctx.log.info(note);
}

function presentRoles(ctx: CheckContext, roles: CredentialRole[]): CredentialRole[] {
  return roles.filter((role) => ctx.target.credentials[role] !== undefined);
}

/** The delete tasks among the operations (both forms). */
const isDeleteTask = (op: DataOperation) => op.name.startsWith("POST /tasks");

/**
 * Malformed and never-issued Authorization values against every endpoint. The boundary values go first,
 * as the property's examples: at the default depth each endpoint gets the issued-shape token and one more
 * boundary value (in turn, so that every value reaches some endpoint); at "deep" every value reaches every
 * endpoint. Random values on random endpoints follow (ctx.runs).
 */
function malformedExamples(
  ctx: CheckContext,
  boundary: AuthorizationValue[],
  endpoints: DataOperation[],
): [[string, string]][] {
  if (depthOf(ctx) === "deep")
    return endpoints.flatMap((e) => boundary.map((b): [[string, string]] => [[b.value, e.name]]));
  const [first, ...rest] = boundary;
  return endpoints.flatMap((e, i): [[string, string]][] => {
    const other = rest[i % rest.length];
    return [first, other].flatMap((b) => (b === undefined ? [] : [[[b.value, e.name]]]));
  });
}

// ---------------------------------------------------------------- token states × endpoints

/** One answer of an endpoint in a token state, as a rule judges it: the role whose token it was, or the
 *  Authorization value sent and what it is. */
interface StateProbe {
  operation: DataOperation;
  response: ApiResponse<unknown>;
  role?: CredentialRole;
  sent?: { value: string; what: string };
}

/**
 * A rule about one token state of the document (no token, a malformed or never-issued one, an expired one
 * of every role), tried on every endpoint it names: its declared facts, and the judge of one answer (which
 * fails on a wrong one).
 */
interface TokenStateRule {
  declared: Omit<CheckDefinition, "run">;
  state: "none" | "malformed" | "expired";
  endpoints(ctx: CheckContext, lookupType: string): DataOperation[];
  judge(ctx: CheckContext, probe: StateProbe): void;
}

/** How each token state reaches every endpoint; the first failure ends the check. */
const SEND_IN_STATE: Record<
  TokenStateRule["state"],
  (ctx: CheckContext, rule: TokenStateRule) => Promise<void>
> = {
  async none(ctx, rule) {
    const lookupType = await someLookupType(ctx, "admin");
    for (const operation of rule.endpoints(ctx, lookupType)) {
      const response = await operation.send(null);
      reached(ctx, operation.name, "none");
      rule.judge(ctx, { operation, response });
    }
  },
  async malformed(ctx, rule) {
    // An issued token gives the never-issued ones their shape; any role the target names serves.
    const role = presentRoles(ctx, ["viewer", "editor", "admin"])[0];
    const issued = role === undefined ? undefined : await ctx.token(role);
    const lookupType = role === undefined ? "Country" : await someLookupType(ctx, role);
    const endpoints = rule.endpoints(ctx, lookupType);
    const byName = new Map(endpoints.map((e) => [e.name, e]));
    const boundary = boundaryAuthorizations(issued);
    const labels = new Map(boundary.map((b) => [b.value, b.label]));
    const examples = malformedExamples(ctx, boundary, endpoints);
    const pair = fc.tuple(
      fc.oneof(fc.constantFrom(...boundary.map((b) => b.value)), madeUpAuthorization),
      fc.constantFrom(...endpoints.map((e) => e.name)),
    );
    await checkProperty(
      ctx,
      fc.asyncProperty(pair, async ([value, name]) => {
        const operation = byName.get(name) as DataOperation;
        const response = await operation.send({ authorization: value });
        reached(ctx, name, "malformed");
        const what = labels.get(value) ?? "a value the kit made up, never issued";
        rule.judge(ctx, { operation, response, sent: { value, what } });
      }),
      // Every boundary value goes to every endpoint (the examples); the made-up values besides are drawn:
      // at the default depth a few, at "deep" twice the run's.
      {
        examples,
        numRuns:
          (depthOf(ctx) === "deep" ? ctx.runs * 2 : Math.min(ctx.runs, MADE_UP_DRAWS)) + examples.length,
      },
    );
  },
  async expired(ctx, rule) {
    const lookupType = await someLookupType(ctx, "viewer");
    const operations = rule.endpoints(ctx, lookupType);
    for (const probe of await answersToExpiredTokens(ctx, operations)) {
      reached(ctx, probe.operation.name, "expired", probe.role);
      rule.judge(ctx, probe);
    }
  },
};

/** Every endpoint's answers to the expired tokens, and the exchanges they came from. */
interface ExpiredAnswers {
  endpoints: string;
  probes: StateProbe[];
  exchanges: Exchange[];
}

/** The expired-token checks send the same requests (every endpoint, each role's expired token) and judge
 *  the answers differently (the refusal at MUST, its form at SHOULD): the first sends them, the other
 *  judges the same answers. A token that expired stays expired, so whichever check sends first, the
 *  answers are the same. */
const expiredTokenAnswers = defineFact<Promise<ExpiredAnswers>>(
  "expired-token-answers",
  "every endpoint's answers to expired tokens of each role, as the first expired-token check got them",
);

/**
 * Every operation sent each expired token (withExpiredTokens), all sent before any is judged, so that the
 * other expired-token check can judge the same answers; it cites the exchanges they came from. Answers
 * that could not all be had (the sender ended, a refused token request) are no answers: the next asker
 * sends anew.
 */
async function answersToExpiredTokens(ctx: CheckContext, operations: DataOperation[]): Promise<StateProbe[]> {
  const endpoints = operations.map((o) => o.name).join("\n");
  const known = ctx.facts.get(expiredTokenAnswers);
  const shared = known ? await known.catch(() => undefined) : undefined;
  if (shared !== undefined && shared.endpoints === endpoints) {
    ctx.cite?.(shared.exchanges);
    return shared.probes;
  }
  const sending = sendExpiredTokens(ctx, operations, endpoints);
  ctx.facts.set(expiredTokenAnswers, sending);
  sending.catch(() => {
    if (ctx.facts.get(expiredTokenAnswers) === sending) ctx.facts.set(expiredTokenAnswers, undefined);
  });
  return (await sending).probes;
}

/** Which expired token goes to which operation: at "deep" every token to every operation; at the default
 *  depth every operation gets one, the roles' tokens in turn (each role reaches a share of the operations,
 *  as the malformed values do). */
function expiredPairs(
  ctx: CheckContext,
  tokens: ExpiredToken[],
  operations: DataOperation[],
): [ExpiredToken, DataOperation][] {
  if (tokens.length === 0) return [];
  if (depthOf(ctx) === "deep")
    return tokens.flatMap((t) => operations.map((o): [ExpiredToken, DataOperation] => [t, o]));
  const count = Math.max(tokens.length, operations.length);
  return Array.from({ length: count }, (_, i): [ExpiredToken, DataOperation] => [
    tokens[i % tokens.length] as ExpiredToken,
    operations[i % operations.length] as DataOperation,
  ]);
}

async function sendExpiredTokens(
  ctx: CheckContext,
  operations: DataOperation[],
  endpoints: string,
): Promise<ExpiredAnswers> {
  const probes: StateProbe[] = [];
  let exchanges: Exchange[] = [];
  await withExpiredTokens(ctx, async (tokens) => {
    const send = async () => {
      for (const [{ role, token }, operation] of expiredPairs(ctx, tokens, operations))
        probes.push({ operation, response: await operation.send(token), role });
    };
    // What the other expired-token check cites: the exchanges of the probes, this check's own.
    if (ctx.ownExchangesOf) ({ exchanges } = await ctx.ownExchangesOf(send));
    else await send();
  });
  return { endpoints, probes, exchanges };
}

/** What every check with an expired token declares. In real time it shortens the quota client's
 *  accessTokenValidity and restores it (a write); the expired token is shared, and the quota sessions wait
 *  for it (noteQuotaToken). */
const EXPIRED_TOKEN_CHECK = {
  safety: "write",
  harmlessCalls: [absentLookupTasks],
  issuesTokensFor: expiredTokenIssuers,
  facts: [expiredQuotaToken, quotaTokensExpire, expiredTokenAnswers],
  needs: expiredTokenNeeds,
} satisfies Partial<CheckDefinition>;

const TOKEN_STATE_RULES: TokenStateRule[] = [
  {
    declared: {
      id: "auth/no-token-refused",
      title: "MUST refuse every endpoint's request without an Authorization header",
      requirements: ["AUTH-01", "AUTH-02"],
      safety: "read",
      harmlessCalls: [absentLookupTasks, noClientUpserts],
      needs: { roles: ["admin"] },
    },
    state: "none",
    // "All endpoints require the Authorization header": the service endpoints too, at MUST; the status
    // code is not shown (the kit's choice is service/refuses-without-authorization's SHOULD).
    endpoints: everyEndpoint,
    judge: (_, { operation, response }) => ensureAnswer(judgeAuthRefusal(response), operation.name, response),
  },
  {
    declared: {
      id: "auth/missing-token-401",
      title: "SHOULD answer a missing token with 401 and WWW-Authenticate: Bearer",
      requirements: ["AUTH-05"],
      safety: "read",
      needs: { roles: ["admin"] },
    },
    state: "none",
    endpoints: (ctx, lookupType) => dataOperations(ctx, ctx.target.tenant, lookupType),
    judge: (_, { operation, response }) =>
      ensureAnswer(
        response.status === 401 && /^bearer/i.test(response.headers.get("www-authenticate") ?? "")
          ? undefined
          : `expected 401 with WWW-Authenticate: Bearer ..., got ${describeResponse(response)}`,
        operation.name,
        response,
      ),
  },
  {
    declared: {
      id: "auth/malformed-token-refused",
      title: "MUST refuse a malformed or never-issued bearer token on every endpoint",
      requirements: ["AUTH-03"],
      safety: "read",
      harmlessCalls: [absentLookupTasks, noClientUpserts],
      needs: { roles: [] },
    },
    state: "malformed",
    endpoints: everyEndpoint,
    judge(_, { operation, response, sent }) {
      const { value, what } = sent as { value: string; what: string };
      ensureAnswer(
        judgeAuthRefusal(response),
        `${operation.name} with ${what} (Authorization: ${value})`,
        response,
        { field: "Authorization", record: `Authorization: ${value} (${what})` },
      );
    },
  },
  {
    declared: {
      id: "auth/expired-token-refused",
      title: "MUST refuse an expired token on every endpoint with an error stating it has expired",
      requirements: ["AUTH-04", "TOKEN-STATE-04"],
      ...EXPIRED_TOKEN_CHECK,
    },
    state: "expired",
    endpoints: everyEndpoint,
    judge: (ctx, { operation, response, role }) =>
      ensureAnswer(
        judgeExpiredRefusal(ctx.target.profile, response),
        `use of an expired token on ${operation.name}`,
        response,
        { record: expiredTokenRecord(ctx, role as CredentialRole) },
      ),
  },
  {
    declared: {
      id: "auth/expired-token-401",
      title: "SHOULD answer an expired token with 401 and WWW-Authenticate naming the expiry",
      requirements: ["AUTH-05"],
      ...EXPIRED_TOKEN_CHECK,
    },
    state: "expired",
    endpoints: everyEndpoint,
    judge(ctx, { operation, response, role }) {
      const challenge = response.headers.get("www-authenticate") ?? "";
      if (response.status !== 401 || !/^bearer/i.test(challenge) || !/expir/i.test(challenge))
        fail(
          `${operation.name}: expected 401 with WWW-Authenticate: Bearer error="invalid_token", ` +
            `error_description="...expired" (WWW-Authenticate: ${challenge || "absent"}), got ${describeResponse(response)}`,
          answerDetail(response, {
            expected: "401 with WWW-Authenticate: Bearer naming the expiry",
            actual: `${response.status}, WWW-Authenticate: ${challenge || "absent"}`,
            record: expiredTokenRecord(ctx, role as CredentialRole),
            field: "WWW-Authenticate",
          }),
        );
    },
  },
];

// ---------------------------------------------------------------- another tenant × roles × endpoints

/** A rule about another tenant's data, tried with the roles it names on every operation it names. */
interface OtherTenantRule {
  declared: Omit<CheckDefinition, "run">;
  roles(ctx: CheckContext): CredentialRole[];
  /** Writes too (delete tasks naming absent lookups, an empty client list), or reads only. */
  includeWrites: boolean;
  judge(response: ApiResponse<unknown>): string | undefined;
}

const OTHER_TENANT_RULES: OtherTenantRule[] = [
  {
    declared: {
      id: "auth/other-tenant-refused",
      title: "MUST refuse a caller access to a tenant that is not on its tenant list, on every endpoint",
      requirements: ["AUTH-ROLES-04"],
      safety: "read",
      harmlessCalls: [absentLookupTasks, noClientUpserts],
      needs: { roles: ["viewer"], otherTenant: true },
    },
    roles: (ctx) => presentRoles(ctx, ["viewer", "editor", "admin"]),
    includeWrites: true,
    judge: judgeTenantRefusal,
  },
  {
    declared: {
      id: "auth/other-tenant-403",
      title: "SHOULD refuse access to another tenant with 403",
      requirements: ["AUTH-ROLES-06"],
      safety: "read",
      needs: { roles: ["viewer"], otherTenant: true },
    },
    roles: () => ["viewer"],
    includeWrites: false,
    judge: (response) =>
      response.status === 403 ? undefined : `expected 403, got ${describeResponse(response)}`,
  },
];

const otherTenantCheck = (rule: OtherTenantRule): Check =>
  defineCheck({
    ...rule.declared,
    async run(ctx) {
      const other = otherTenantOf(ctx);
      const lookupType = await someLookupType(ctx, "viewer");
      await isolationProbe(ctx, rule.roles(ctx), (role) =>
        dataOperations(ctx, other, lookupType, rule.includeWrites ? { includeWrites: true } : {}).map(
          (op) => ({
            name: op.name,
            send: () => ctx.token(role).then((token) => op.send(token)),
            judge: rule.judge,
          }),
        ),
      );
    },
  });

// ---------------------------------------------------------------- roles × endpoints of their own tenant

/** A rule about what one role may do in its own tenant (the document's roles), tried with a valid token of
 *  the role on every operation it names. */
interface RoleRule {
  /** The check's header; it needs the rule's role, which roleCheck adds. */
  declared: Omit<CheckDefinition, "run" | "needs">;
  role: CredentialRole;
  state: "valid" | "role without privilege";
  operations(ctx: CheckContext): Promise<DataOperation[]>;
  judge(operation: DataOperation, response: ApiResponse<unknown>): string | undefined;
}

/** The role's operations are granted: each answers with data of its shape. A request whose body a correct
 *  implementation may refuse (bodyMayBeRefused) may get 400 or 422 instead: the role passed, the body not. */
const grantedTo =
  (roleName: string) =>
  (op: DataOperation, response: ApiResponse<unknown>): string | undefined =>
    op.bodyMayBeRefused !== undefined && (response.status === 400 || response.status === 422)
      ? undefined
      : judgeData(response, `${op.name} by ${roleName}`, op.shape);

/** The operations of the target's tenant, on a lookup type the role sees. */
const inOwnTenant =
  (role: CredentialRole, options: Parameters<typeof dataOperations>[3] = {}) =>
  async (ctx: CheckContext) =>
    dataOperations(ctx, ctx.target.tenant, await someLookupType(ctx, role), options);

/** Every operation, the writes among them, delete tasks that a correct implementation accepts. */
const WRITES = { includeWrites: true, tasksAccepted: true };

const ROLE_RULES: RoleRule[] = [
  {
    declared: {
      id: "auth/viewer-can-read",
      title: "MUST let ROLE_RDM read lookups, autopilot statistics and blocked values of its tenant",
      requirements: ["AUTH-ROLES-03"],
      safety: "read",
    },
    role: "viewer",
    state: "valid",
    operations: inOwnTenant("viewer"),
    judge: grantedTo("ROLE_RDM"),
  },
  {
    declared: {
      id: "auth/viewer-cannot-delete",
      title: "MUST refuse every form of delete task from ROLE_RDM (view access only)",
      requirements: ["AUTH-ROLES-03"],
      safety: "read",
      harmlessCalls: [absentLookupTasks],
    },
    role: "viewer",
    state: "role without privilege",
    // The tasks name an absent lookup or lookup type, so a wrongly accepted task still deletes nothing.
    operations: async (ctx) =>
      dataOperations(ctx, ctx.target.tenant, "Country", { includeWrites: true }).filter(isDeleteTask),
    judge: (_, response) => judgeRoleRefusal(response),
  },
  {
    declared: {
      id: "auth/editor-can-delete",
      title: "MUST let ROLE_RDM_EDIT read lookups and create delete tasks of every form in its tenant",
      requirements: ["AUTH-ROLES-02"],
      safety: "write",
      harmlessCalls: [absentLookupTasks],
      changes: "data",
    },
    role: "editor",
    state: "valid",
    operations: async (ctx) =>
      (await inOwnTenant("editor", WRITES)(ctx)).filter((op) => !op.name.startsWith("PUT /oauth")),
    judge: grantedTo("ROLE_RDM_EDIT"),
  },
  {
    declared: {
      id: "auth/admin-full-access",
      title: "MUST let ROLE_ADMIN_TENANT read, delete and update configuration in its tenant",
      requirements: ["AUTH-ROLES-01", "CONFIG-CLIENT-01"],
      safety: "write",
      harmlessCalls: [absentLookupTasks],
    },
    role: "admin",
    state: "valid",
    operations: (ctx) => inOwnTenant("admin", { ...WRITES, customerId: ctx.target.customerId })(ctx),
    judge: grantedTo("ROLE_ADMIN_TENANT"),
  },
];

const roleCheck = (rule: RoleRule): Check =>
  defineCheck({
    ...rule.declared,
    needs: { roles: [rule.role] },
    async run(ctx) {
      await everyOperation(
        ctx,
        await rule.operations(ctx),
        await ctx.token(rule.role),
        { state: rule.state, role: rule.role },
        rule.judge,
      );
    },
  });

export const authChecks: Check[] = [
  ...TOKEN_STATE_RULES.map((rule) =>
    defineCheck({ ...rule.declared, run: (ctx) => SEND_IN_STATE[rule.state](ctx, rule) }),
  ),
  ...OTHER_TENANT_RULES.map(otherTenantCheck),
  ...ROLE_RULES.map(roleCheck),
  defineCheck({
    id: "auth/configuration-needs-admin",
    title: "SHOULD refuse configuration updates from ROLE_RDM and ROLE_RDM_EDIT with 403",
    requirements: ["AUTH-ROLES-05", "AUTH-ROLES-06"],
    safety: "read",
    harmlessCalls: [noClientUpserts],
    needs: { roles: ["viewer"] },
    async run(ctx) {
      const customerId = ctx.target.customerId;
      if (!customerId) skip("the target file names no customerId; add it to run this check");
      for (const role of presentRoles(ctx, ["viewer", "editor"])) {
        // An empty client list: a wrongly allowed update still changes nothing.
        const response = await clientOf(ctx).putClients(await ctx.token(role), customerId, []);
        reached(
          ctx,
          `PUT /oauth/customers/${customerId}/clients (no clients)`,
          "role without privilege",
          role,
        );
        if (response.status !== 403)
          fail(
            `${role}: expected 403, got ${describeResponse(response)}`,
            answerDetail(response, { expected: "403", record: clientRecord(ctx, role) }),
          );
      }
    },
  }),
];

// ---------------------------------------------------------------- the token endpoint (kit's choice: RFC 6749)

/** What is wrong with a token answer, each problem with the field it is about. */
function tokenShapeProblems(response: ApiResponse<TokenResponse>): { field: string; problem: string }[] {
  const body = response.data;
  const problems: { field: string; problem: string }[] = [];
  const add = (field: string, problem: string) => problems.push({ field, problem });
  if (response.status !== 200) add("status", `status ${response.status}, expected 200`);
  if (typeof body?.access_token !== "string" || body.access_token === "")
    add("access_token", "no access_token");
  if (typeof body?.token_type !== "string" || body.token_type.toLowerCase() !== "bearer")
    add("token_type", `token_type ${JSON.stringify(body?.token_type)}, expected bearer`);
  if (typeof body?.expires_in !== "number") add("expires_in", "no numeric expires_in");
  if (!/no-store/i.test(response.headers.get("cache-control") ?? ""))
    add("Cache-Control", "no Cache-Control: no-store");
  return problems;
}

/** Fails unless a token answer has the RFC 6749 shape; the detail names the fields at fault. */
function ensureTokenShape(ctx: CheckContext, response: ApiResponse<TokenResponse>, context: string): void {
  const problems = tokenShapeProblems(response);
  if (problems.length === 0) return;
  const listed = problems.map((p) => p.problem).join("; ");
  ensureAnswer(`${listed}: ${describeResponse(response)}`, context, response, {
    expected: 'status 200, {"access_token", "token_type": "bearer", "expires_in"}, Cache-Control: no-store',
    actual: listed,
    field: problems.map((p) => p.field).join(", "),
    record: clientRecord(ctx, "viewer"),
  });
}

function oauthErrorProblem(response: ApiResponse<unknown>, status: number, code: string): string | undefined {
  const error = (response.body as { error?: unknown } | undefined)?.error;
  if (response.status === status && error === code) return undefined;
  return `expected ${status} {"error": "${code}", ...}, got ${describeResponse(response)}`;
}

/** Fails unless a token request error carries the RFC 6749 status and code, with the answer as data. */
function ensureOauthError(
  ctx: CheckContext,
  response: ApiResponse<unknown>,
  expected: { status: number; code: string },
  context: string,
): void {
  ensureAnswer(oauthErrorProblem(response, expected.status, expected.code), context, response, {
    field: "error",
    record: clientRecord(ctx, "viewer", context),
  });
}

/** A check of the token endpoint itself, with the viewer's client: its tokens count toward the viewer's quota. */
const tokenEndpointCheck = (definition: Omit<CheckDefinition, "safety" | "issuesTokensFor" | "needs">) =>
  defineCheck({ ...definition, safety: "read", issuesTokensFor: ["viewer"], needs: { roles: ["viewer"] } });

authChecks.push(
  tokenEndpointCheck({
    id: "auth/token-for-client-credentials",
    title: "MUST issue a usable access token for the client_credentials grant",
    requirements: ["TOKEN-ENDPOINT-01", "AUTH-01"],
    async run(ctx) {
      const record = clientRecord(ctx, "viewer");
      const issued = await withDetail(issueToken(ctx, "viewer"), {
        expected: "a token for the client_credentials grant",
        request: tokenRequest(ctx),
        record,
      });
      const response = await clientOf(ctx).scanFirst(
        issued.token,
        { kind: "lookups", tenantId: ctx.target.tenant },
        {
          limit: 1,
        },
      );
      reached(ctx, `POST /lookups/${ctx.target.tenant}/_scan`, "valid", "viewer");
      ensureAnswer(
        judgeData(response, "a lookups scan with the issued token", scanPageShape),
        undefined,
        response,
        {
          record: `${record}, its issued token`,
        },
      );
    },
  }),
  tokenEndpointCheck({
    id: "auth/token-endpoint-rfc6749",
    title: "SHOULD answer POST /oauth/token as RFC 6749 does, for Basic and form client authentication",
    requirements: ["TOKEN-ENDPOINT-02", "TOKEN-ENDPOINT-04"],
    async run(ctx) {
      const client = clientOf(ctx);
      const credential = credentialOf(ctx, "viewer");
      for (const clientAuth of ["basic", "form"] as const)
        ensureTokenShape(
          ctx,
          await client.token(credential, { clientAuth }),
          `client authentication by ${clientAuth}`,
        );
    },
  }),
  tokenEndpointCheck({
    id: "auth/token-grant-in-query",
    title: "SHOULD accept grant_type=client_credentials in the query string",
    requirements: ["TOKEN-ENDPOINT-03"],
    async run(ctx) {
      const response = await clientOf(ctx).token(credentialOf(ctx, "viewer"), { grantIn: "query" });
      ensureTokenShape(ctx, response, "grant_type in the query string");
    },
  }),
  tokenEndpointCheck({
    id: "auth/token-errors-rfc6749",
    title: "SHOULD answer token request errors with RFC 6749 error codes",
    requirements: ["TOKEN-ENDPOINT-05"],
    async run(ctx) {
      const client = clientOf(ctx);
      const credential = credentialOf(ctx, "viewer");
      const wrong = await client.token({ ...credential, clientSecret: `${credential.clientSecret}-wrong` });
      ensureOauthError(ctx, wrong, { status: 401, code: "invalid_client" }, "a wrong client secret");
      const challenge = wrong.headers.get("www-authenticate") ?? "";
      if (!/^basic/i.test(challenge))
        fail(
          `expected WWW-Authenticate: Basic ... with invalid_client after Basic authentication, got ${describeResponse(wrong)}`,
          answerDetail(wrong, {
            expected: "WWW-Authenticate: Basic ... with invalid_client",
            actual: `${wrong.status}, WWW-Authenticate: ${challenge || "absent"}`,
            field: "WWW-Authenticate",
            record: clientRecord(ctx, "viewer", "a wrong client secret"),
          }),
        );
      ensureOauthError(
        ctx,
        await client.token(credential, { grantType: null }),
        { status: 400, code: "invalid_request" },
        "no grant_type",
      );
      ensureOauthError(
        ctx,
        await client.token(credential, { grantType: "password" }),
        { status: 400, code: "unsupported_grant_type" },
        "grant_type=password",
      );
    },
  }),
);
