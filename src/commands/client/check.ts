// lckit client check as a library: starts a sandbox (its own data, one provider choice), runs the team's
// command with the sandbox's addresses and credentials in LCKIT_* variables, records every request, stops
// the command's process group on a hang, and judges the recording by the caller rules.
import type { Exchange } from "../../check/index.ts";
import { lookupTypeName } from "../../contract/index.ts";
import {
  isSandboxWorld,
  listenControl,
  loadDataFile,
  type ReferenceData,
  type ReferenceState,
  referenceData,
  referenceOver,
  type SandboxChoiceName,
  sandboxChoice,
  sandboxForWorld,
  shiftableClock,
  tokensHeldElsewhere,
} from "../../reference/index.ts";
import { commandFailure, stopSignalOf } from "../../result/client-verdict.ts";
import type { RunResult } from "../../result/model.ts";
import { DEFAULT_FAIL_ON, type ExitCode, exitCodeOf } from "../../result/verdict.ts";
import { type CallerClient, readTraffic, type Traffic } from "../../rules/caller/traffic.ts";
import { UserInputError } from "../../usage-error.ts";
import { type CommandCheckOptions, type CommandOutcome, runCommand } from "../command-run.ts";
import { DEFAULT_CLIENT_DATA, defaultClientWorld } from "./default-world.ts";
import { type ClientRunMeta, clientRunResult, redactedExchanges, redactorFor } from "./result.ts";

/** The data file the default world of a client check grows from: a shop tenant whose clients have
 *  multi-token support (quota 5); default-world.ts adds records so that every scan pages. */
export { DEFAULT_CLIENT_DATA };
/** Every option default of the client check, in one place: the library, the session and the CLI's flags
 *  (lckit client check) read them here. */
export const CLIENT_CHECK_DEFAULTS = {
  /** The sandbox's world (grown so that every scan pages: default-world.ts). */
  data: DEFAULT_CLIENT_DATA,
  /** The sandbox's provider choice: the reference's own. */
  variant: "default",
  timeoutMs: 120_000,
  /** Runs at once with several provider choices. */
  parallel: 2,
  reportDir: "reports",
} as const;

/** The environment the command gets (documented in docs/consumers.md). */
export const CLIENT_ENV = [
  "LCKIT_BASE_URL",
  "LCKIT_RDM_URL",
  "LCKIT_TOKEN_URL",
  "LCKIT_CONTROL_URL",
  "LCKIT_CLIENT_ID",
  "LCKIT_CLIENT_SECRET",
  "LCKIT_TENANT",
  "LCKIT_LOOKUP_TYPE",
  "LCKIT_VARIANT",
] as const;

export interface ClientCheckOptions extends CommandCheckOptions {
  /** The sandbox's world: a data file or document. Default: examples/sandbox-data.yaml grown so that every
   *  scan pages (default-world.ts). */
  data?: string | ReferenceData;
  /** The client whose credentials the command gets. Default: the data's first client. */
  clientId?: string;
  /** One provider choice for the sandbox, or a world of the sweep (SANDBOX_WORLDS: a state a deployment can
   *  be in when the client starts); none: the reference's own choices. */
  variant?: SandboxChoiceName;
  /** In a sweep: the default's traffic, so that the run under `variant` is also judged by its difference. */
  baseline?: Traffic;
  /** In a sweep: whether the same command exited 0 under the default. A command that fails only under a
   *  choice the document leaves open is a SHOULD finding (client/command), unless the choice is required. */
  defaultPassed?: boolean;
  /** Provider choices the team's deployment pins (--require-choice): a command failing under one is a MUST
   *  failure, as under the default. */
  requiredChoices?: readonly string[];
}

export interface ClientCheckRun {
  result: RunResult;
  outcome: CommandOutcome;
  /** What the kit exits with, by the one exit policy (src/result/verdict.ts): 0 the command passed and no
   *  MUST caller rule broke; 1 a MUST rule broke or the command failed (or, when required, a MUST rule was
   *  not exercised); 2 the command could not be started or made no request (configuration); 3 it hung or
   *  was killed; 4 the kit was stopped (Ctrl-C, SIGTERM). */
  exitCode: ExitCode;
  /** The recording as the caller rules read it (a sweep judges the other choices against the default's). */
  traffic: Traffic;
  /** Every exchange the command sent, redacted, bodies capped (exchanges.ndjson of the report folder). */
  exchanges: Exchange[];
  /** The first answer of the sandbox that refused the client (a 4xx or 5xx other than a 429), redacted:
   *  under a variant, usually why the command failed. */
  firstRefusal?: string;
}

export class ClientCheckError extends UserInputError {
  override name = "ClientCheckError";
}

/** Runs one client check: one sandbox, one run of the command, one judged recording. */
export async function clientCheck(options: ClientCheckOptions): Promise<ClientCheckRun> {
  if (options.argv.length === 0) {
    throw new ClientCheckError("no command to run: give it after --, e.g. lckit client check -- npm test");
  }
  const timeoutMs = options.timeoutMs ?? CLIENT_CHECK_DEFAULTS.timeoutMs;
  const world =
    options.data === undefined
      ? defaultClientWorld()
      : typeof options.data === "string"
        ? loadDataFile(options.data)
        : referenceData(options.data);
  const chosenId = options.clientId ?? world.clients[0]?.clientId ?? "";
  const sandbox: ReturnType<typeof sandboxForWorld> = isSandboxWorld(options.variant)
    ? sandboxForWorld(options.variant, world, chosenId)
    : { world, options: options.variant ? { variants: [options.variant] } : {} };
  const reference = referenceOver(sandbox.world, {
    clock: shiftableClock(),
    record: true,
    ...sandbox.options,
  });
  const clients = [...reference.state.clients.values()];
  const chosen = reference.state.clients.get(chosenId);
  if (!chosen) {
    throw new ClientCheckError(
      `client "${options.clientId}" is not in the sandbox's data; known: ${clients.map((c) => c.client.clientId).join(", ")}`,
    );
  }
  const customer = reference.state.customers.get(chosen.customerId);
  const tenant = customer?.tenants?.[0] ?? [...reference.state.tenants.keys()][0] ?? "";
  // The type of the tenant's first lookup as the data lists it.
  const firstLookup = world.lookups.find((lookup) => lookup.tenantId === tenant);
  const callerClients = callerClientsOf(reference.state);

  const startedAt = new Date();
  const server = await reference.listen({ port: 0, ...sandbox.listen });
  let control: Awaited<ReturnType<typeof listenControl>>;
  try {
    control = await listenControl(reference.control, { port: 0 });
  } catch (error) {
    await server.close();
    throw error;
  }
  const env: NodeJS.ProcessEnv = {
    ...(options.env ?? process.env),
    LCKIT_BASE_URL: server.baseUrl,
    LCKIT_RDM_URL: server.rdmUrl,
    LCKIT_TOKEN_URL: `${server.baseUrl}/oauth/token`,
    LCKIT_CONTROL_URL: control.url,
    LCKIT_CLIENT_ID: chosen.client.clientId,
    LCKIT_CLIENT_SECRET: chosen.client.clientSecret,
    LCKIT_TENANT: tenant,
    LCKIT_LOOKUP_TYPE: firstLookup ? lookupTypeName(firstLookup.type) : "",
    LCKIT_VARIANT: options.variant ?? CLIENT_CHECK_DEFAULTS.variant,
  };
  let outcome: CommandOutcome;
  try {
    outcome = await runCommand(options.argv, env, { ...options, timeoutMs, name: "lckit client check" });
  } finally {
    await control.close();
    await server.close();
  }
  const finishedAt = new Date();
  const recorded = reference.control.recording();
  const traffic = readTraffic(recorded, withTokensHeldElsewhere(callerClients, reference.state));
  if (options.variant) traffic.variant = options.variant;
  if (server.baseUrl !== server.rdmUrl)
    traffic.addresses = { baseUrl: server.baseUrl, rdmUrl: server.rdmUrl };
  if (commandFailure(outcome) !== undefined) traffic.commandFailed = true;
  if (options.baseline && options.variant) traffic.baseline = { traffic: options.baseline };
  const pinnedPoint = sandboxChoice(options.variant);
  const meta: ClientRunMeta = {
    command: options.argv.join(" "),
    outcome,
    variant: options.variant ?? CLIENT_CHECK_DEFAULTS.variant,
    startedAt,
    finishedAt,
    baseUrl: server.baseUrl,
    rdmUrl: server.rdmUrl,
    tenant,
    credentials: clients.map(({ client }) => ({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
    })),
    dropped: reference.control.state().requests?.dropped ?? 0,
    ...(options.requireExercised ? { requireExercised: true } : {}),
    // Beside a default whose command passed, the choice is what this run's command failure depends on.
    ...(pinnedPoint !== undefined && options.defaultPassed === true
      ? {
          choice: {
            name: pinnedPoint.name,
            silentPoint: pinnedPoint.silentPoint,
            description: pinnedPoint.description,
            required: options.requiredChoices?.includes(pinnedPoint.name) ?? false,
          },
        }
      : {}),
  };
  const hint = deleteRoleHint(
    traffic,
    clients.map(({ client }) => client),
    chosen.client.clientId,
    tenant,
    options.data === undefined,
  );
  if (hint !== undefined) meta.hints = [hint];
  const stoppedBy = stopSignalOf(options.signal);
  if (stoppedBy !== undefined) meta.stoppedBy = stoppedBy;
  const result = clientRunResult(traffic, meta);
  const refused = traffic.exchanges.find((x) => x.status >= 400 && x.status !== 429);
  const firstRefusal = refused
    ? redactorFor(meta, traffic).text(
        `${refused.status} to ${refused.method} ${refused.pathname}: ${refused.responseBody.replace(/\s+/g, " ").slice(0, 200)}`,
      )
    : undefined;
  return {
    result,
    outcome,
    exitCode: exitCodeOf(
      result,
      options.failOn ?? (options.requireExercised ? [...DEFAULT_FAIL_ON, "not-exercised"] : DEFAULT_FAIL_ON),
    ),
    traffic,
    exchanges: redactedExchanges(traffic, meta),
    ...(firstRefusal === undefined ? {} : { firstRefusal }),
  };
}

/** What the caller rules know of each client of the sandbox: its quota as the run starts. */
function callerClientsOf(state: ReferenceState): CallerClient[] {
  return [...state.clients.values()].map(({ client, customerId }) => {
    const config = state.customers.get(customerId)?.multitokenConfig;
    const max = config?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed;
    return {
      clientId: client.clientId,
      multitoken: config !== undefined,
      ...(max === undefined ? {} : { maxActiveTokensAllowed: max }),
    };
  });
}

/** The clients with (world quota-held-elsewhere) the tokens other sessions held when each first asked,
 *  which its traffic cannot show: known once the run is over (the world fills at the first request). */
function withTokensHeldElsewhere(clients: CallerClient[], state: ReferenceState): CallerClient[] {
  const elsewhere = tokensHeldElsewhere(state);
  return clients.map((c) => {
    const held = elsewhere.get(c.clientId) ?? [];
    return held.length === 0 ? c : { ...c, heldElsewhere: held.map(({ expiresAt }) => ({ expiresAt })) };
  });
}

/** The advice for a 403 on a delete task: the chosen client's roles may not delete (the default world's
 *  first client has ROLE_RDM, which reads only), so the advice names a client of the data whose roles
 *  may (ROLE_RDM_EDIT, or the tenant's admin role) and the flag that picks it. */
export function deleteRoleHint(
  traffic: Pick<Traffic, "exchanges">,
  clients: readonly { clientId: string; authorities: readonly string[] }[],
  chosen: string,
  tenant: string,
  defaultData: boolean,
): string | undefined {
  const refused = traffic.exchanges.find((x) => x.operation === "createTask" && x.status === 403);
  if (refused === undefined) return undefined;
  const roles = clients.find((c) => c.clientId === chosen)?.authorities ?? [];
  const mayDelete = (c: { authorities: readonly string[] }) =>
    c.authorities.includes("ROLE_RDM_EDIT") || c.authorities.includes(`ROLE_ADMIN_TENANT_${tenant}`);
  const deleter = clients.find((c) => c.clientId !== chosen && mayDelete(c));
  const said = `the sandbox refused a delete task with 403 (#${refused.seq} ${refused.method} ${refused.pathname}): client ${chosen} has ${roles.join(", ") || "no role"}, which may not delete`;
  if (deleter === undefined)
    return `${said}; no client of the ${defaultData ? "default world" : "data"} has ROLE_RDM_EDIT or ROLE_ADMIN_TENANT_${tenant}: add one to your --data file and pick it with --client`;
  return `${said}; a command that deletes needs a client with ROLE_RDM_EDIT: run it as ${deleter.clientId} (${deleter.authorities.join(", ")}) with --client ${deleter.clientId}`;
}
