// The check model shared by suites/ and the runner: a check is data plus run(ctx); it knows nothing of reports.
import type { OperationSafety } from "../contract/index.ts";
import type { RequirementLevel } from "../requirements/levels.ts";

/** A check's level: the level of the requirements it proves (LEVELS lists them, strongest first). */
export type Level = RequirementLevel;
export { LEVELS } from "../requirements/levels.ts";

/** read: no change; write: changes data or configuration and restores it; destructive: deletes data;
 *  quota: exhausts or changes token quotas. */
export const SAFETY_CLASSES = ["read", "write", "destructive", "quota"] as const;
export type Safety = (typeof SAFETY_CLASSES)[number];

/** The operations (by their x-kit-safety in the contract) a check of each safety class may call; the
 *  transport refuses any other before it leaves the kit, so a check that does more than it declares
 *  cannot change a live system its user did not allow it to change. */
export const MAY_CALL: Readonly<Record<Safety, readonly OperationSafety[]>> = {
  read: ["read"],
  // Token quotas are the quota customer's configuration: changing them is what quota checks do.
  quota: ["read", "write"],
  write: ["read", "write"],
  destructive: ["read", "destructive"],
};

/** Credentials a check may ask for. A target file maps each to a client id and secret (env references). */
export const CREDENTIAL_ROLES = [
  "admin", // ROLE_ADMIN_TENANT_{tenant}
  "editor", // ROLE_RDM_EDIT with the tenant on its list
  "viewer", // ROLE_RDM with the tenant on its list
  "quota", // a client of the quota customer that checks may exhaust
  "otherAdmin", // ROLE_ADMIN_TENANT_{otherTenant}
  "rdbmsAdmin", // ROLE_ADMIN_TENANT_{rdbmsTenant}
] as const;
export type CredentialRole = (typeof CREDENTIAL_ROLES)[number];

export interface Credential {
  clientId: string;
  clientSecret: string;
}

/** What the kit pins where the document is silent; "auto" lets safe probes detect it. */
export interface Profile {
  scrollIdEncoding: "object" | "raw-text" | "json-string" | "auto";
  quotaRefusalStatus: number | "any-4xx";
  expiredTokenStatus: number | "401-or-403";
  validationErrorStatus: number | "400-or-422";
  clampsLimit: boolean | "auto";
}

export interface Target {
  name: string;
  baseUrl: string;
  rdmUrl: string;
  /** Tenant every check works in. */
  tenant: string;
  /** A second tenant for isolation checks; checks needing it skip when absent. */
  otherTenant?: string;
  /** Roles whose clients the target file states hold no access to otherTenant (not on their tenant list,
   *  no ROLE_ADMIN_TENANT_ of it). The interface cannot show a client's tenants, so only these are held
   *  to a refusal there; a stated-nothing client that gets in is a configuration question, not a finding. */
  otherTenantLackedBy?: CredentialRole[];
  /** A tenant with auth.migration.mode=rdbms and its customer, for the multitokenConfig rule. */
  rdbmsTenant?: string;
  rdbmsCustomerId?: string;
  /** Customer of `tenant` (configuration checks) and the customer of the quota client. */
  customerId?: string;
  quotaCustomerId?: string;
  /** A second quota client in a customer of its own (credentials.quotaAlt and quotaAltCustomerId in the
   *  target file). A live run then runs the quota checks in two lanes, each with its own quota client and
   *  customer. Each lane's checks see theirs as credentials.quota; a check reads this only to name the
   *  client's target-file key (credentials.quotaAlt) in a failure detail. */
  quotaAlt?: { customerId: string; credential: Credential };
  credentials: Partial<Record<CredentialRole, Credential>>;
  profile: Profile;
  /** True when both URLs are on loopback. Informational only: a port-forward to production is loopback too,
   *  so it grants nothing. */
  loopback: boolean;
  /** True for the embedded reference and for targets whose file says `disposable: true` (a sandbox the
   *  owner lets the kit change freely): write, quota and destructive checks run there without --allow. */
  disposable?: boolean;
}

export interface Clock {
  now(): number;
  /** Waits ms. A check's clock rejects when the check is over, and refuses a real wait longer than the
   *  check's remaining time (a CheckFailure: the target asked for a wait the check cannot afford). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Present only when the target's clock can be driven (the embedded reference): moves time forward. */
  advance?: (ms: number) => void;
  /** Milliseconds of real waiting the check can still afford (its time limit); absent where unbounded. */
  remainingMs?: () => number;
}

export interface Logger {
  info(message: string): void;
  debug(message: string): void;
}

/** One HTTP exchange kept as evidence; secrets are redacted by the runner before it stores this. */
export interface Exchange {
  /** Id of the check that sent it. */
  check?: string;
  /** Run-wide number of the exchange, in the order sent (from 0); evidence.har entries carry it as
   *  `_exchangeId`, so a report's evidence and citations point at exactly these entries. */
  id?: number;
  /** bodyTruncated: the body was cut (evidence keeps ~4 KB; the run's log keeps up to 256 KB). */
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
    bodyTruncated?: boolean;
  };
  response?: { status: number; headers: Record<string, string>; body: string; bodyTruncated?: boolean };
  /** Set when no complete answer came (timeout, reset, refused): what happened. */
  error?: string;
  /** What the transport did about this exchange: a retry (and why), a 429 waited out, a redirect not
   *  followed. */
  note?: string;
  durationMs: number;
}

/** Why the transport sent a request again: a connection reset, another connection-level failure before
 *  any answer, a 502/503/504 on an idempotent read, or a 429 whose Retry-After it waited out. */
export type RetryCause = "reset" | "connection" | "status" | "rate-limit";

/** A request the transport sent again for a check, as the transport saw it (no reader parses the note). */
export interface TransportRetry {
  /** Exchange.id of the attempt that was retried (evidence.har's _exchangeId); -1 when it had none. */
  exchange: number;
  cause: RetryCause;
  /** Method and URL of the request (redacted with the rest of the report). */
  request: string;
  /** The status answered (5xx, 429), when there was one. */
  status?: number;
  /** What went wrong before any answer (connection-level causes). */
  error?: string;
  /** Milliseconds waited before the next attempt. */
  waitMs: number;
  /** The same in one sentence, as the exchange's note says it. */
  note: string;
}

/** One configuration change a check is about to make, with what puts it back (never a secret). */
export type ConfigChange =
  | {
      kind: "customer";
      customerId: string;
      /** Role whose token PUTs the customer back. */
      role: CredentialRole;
      /** The customer as it was: PUT back as it stands. */
      restore: Record<string, unknown>;
    }
  | {
      kind: "client";
      customerId: string;
      clientId: string;
      role: CredentialRole;
      /** The client's fields as they were: upserted back through PUT .../clients. */
      restore: Record<string, unknown>;
    };

/** The run's journal of configuration changes: written to disk before a change is made, so the change can
 *  be undone by the runner (check timeout, interruption) or by `lckit restore` after the kit was killed. */
export interface ConfigJournal {
  /** Records the undo of a change about to be made; returns its id. Call before sending the change. */
  open(change: ConfigChange): number;
  /** The change was undone (by the check itself, the runner or lckit restore). */
  settle(id: number): void;
  /** Open (not yet undone) changes of this check's journal, oldest first. */
  pending(): readonly { id: number; change: ConfigChange }[];
}

export interface CheckContext {
  target: Target;
  /** fetch bound to the target: rate limited, time limited, recorded as evidence. */
  fetch: typeof fetch;
  clock: Clock;
  seed: number;
  /** Runs per property (fast-check numRuns). */
  runs: number;
  /** fast-check replay path given on the command line (`--path`), to replay exactly one counterexample. */
  replayPath?: string;
  /** Command that reruns this check with the current target and seed; suites append `--path <path>`. */
  replayCommand: string;
  log: Logger;
  /** An access token for a role (cached by the runner; fetched with the role's credentials). */
  token(role: CredentialRole): Promise<string>;
  /** Forget cached tokens (after a check changed token configuration). */
  resetTokens(): void;
  /** Every exchange recorded so far in this run (the schema suite validates them per operation). */
  exchanges(): readonly Exchange[];
  /** Exchanges of the run (from exchanges()) that this check judged though other checks sent them: cited
   *  for it (CheckResult.exchangeIds, evidence.har entries); "evidence" also puts them in its evidence
   *  (the ones a failure is about). Optional: a bare context does not cite. */
  cite?(exchanges: readonly Exchange[], as?: "judged" | "evidence"): void;
  /** Journal of configuration changes: open() before a change, settle() once it is undone. */
  journal: ConfigJournal;
  /** Aborted when the check is over (passed, failed, timed out, run interrupted): stop what it started. */
  signal: AbortSignal;
  /** Read once, judge many: answers recorded by the run's read checks (a whole scroll by its query), shared
   *  by every read check until a check that may change data starts. Given to read checks only. */
  recordings?: Map<string, Promise<unknown>>;
}

export interface Check {
  /** Stable, opaque id: `<suite>/<slug>`. Reports and allow-lists key on it. */
  id: string;
  suite: string;
  /** Starts with the level: "MUST return ...". */
  title: string;
  level: Level;
  /** Requirement-catalogue ids this check proves. */
  requirements: string[];
  safety: Safety;
  /** What a write or destructive check changes: "data" (lookups, delete tasks) or "configuration"
   *  (customers, clients). Unset: configuration, the cautious reading (the scheduler of a live run then
   *  keeps the check apart from the token checks, which change the quota customer's configuration). */
  changes?: "data" | "configuration";
  /** True for a check that judges the traffic of the other checks (ctx.exchanges()): the planner runs it
   *  after every other check, so that it sees all of that traffic, and never beside them. */
  readsOthersTraffic?: boolean;
  /** Roles whose client the check asks the token endpoint for tokens itself (not through ctx.token, whose
   *  tokens the runner fetches once). Such tokens count toward the quota of the client's customer, which
   *  the token checks change: a live run keeps the check out of the lane beside them. */
  issuesTokensFor?: CredentialRole[];
  /**
   * Operations beyond what the check's safety class may call (MAY_CALL) that it calls only with requests
   * harmless by construction, each with the reason (a delete task naming only an absent lookup, a
   * configuration write of no client). The transport refuses every other such call before it is sent.
   */
  harmlessCalls?: readonly HarmlessCall[];
  needs: { roles: CredentialRole[]; otherTenant?: boolean; rdbmsTenant?: boolean; drivableClock?: boolean };
  /** True for a check whose 429s are findings (a quota refusal may be one): the transport never waits
   *  them out for it. */
  judgesRateLimits?: boolean;
  /** Seconds the check is expected to wait on a live target (npm run bench:live); the planner balances
   *  the quota lanes by it, so a wrong figure costs time, never correctness. */
  expectedWaitSeconds?: number;
  run(ctx: CheckContext): Promise<void>;
}

/** An operation (operationId) a check calls beyond its safety class, and why that call changes nothing. */
export interface HarmlessCall {
  operation: string;
  why: string;
}

/** A property failure, reported with everything needed to replay it. */
export interface Counterexample {
  seed: number;
  path: string;
  value: string;
  replay: string;
}

/** A failure as data, beside its sentence: what a reader (or a tool reading report.json) needs to see what
 *  went wrong without parsing the message. Every field is optional: a check gives what it knows. */
export interface FailureDetail {
  /** What the check required, in words ("each record once", "a 4xx status"). */
  expected?: string;
  /** What the target did instead (a status, an excerpt of a body, a count). */
  actual?: string;
  /** The request the failure is about: its method and its path with the query (no host: the report names
   *  the target once; the evidence holds the full exchange). */
  request?: { method: string; path: string };
  /** The record at fault: a lookup key, a task id, a client id. */
  record?: string;
  /** The field at fault, as a dotted path into the body or record ("items.3.value", "status"). */
  field?: string;
  /** For scans: the pages (counted from 1) the record at fault was seen on, e.g. a repeated record on the
   *  page it first came and the page it came again. */
  pages?: number[];
  /** Departures from the contract grouped by (status, JSON pointer with indexes as *): how often each
   *  came in the exchanges judged and one example, so a report shows one line per kind. */
  departures?: { status: number; pointer: string; count: number; example: string }[];
}

/** Thrown by a check when the target does not conform: a result, not a fault of the kit. */
export class CheckFailure extends Error {
  override name = "CheckFailure";
  constructor(
    message: string,
    readonly details: FailureDetail & { counterexample?: Counterexample } = {},
  ) {
    super(message);
  }
}

/** The structured detail of a failure as a report keeps it: only the fields the check gave (no empty
 *  object: a failure without detail reports as it always did). */
export function failureDetail(failure: CheckFailure): FailureDetail | undefined {
  const { counterexample: _, ...given } = failure.details;
  const kept = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as FailureDetail;
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** Where a request went, as a FailureDetail names it: the method and the path with its query. */
export function requestOf(method: string, url: string): { method: string; path: string } {
  try {
    const u = new URL(url);
    return { method: method.toUpperCase(), path: `${u.pathname}${u.search}` };
  } catch {
    return { method: method.toUpperCase(), path: url };
  }
}

/** Thrown by a check that cannot run against this target (missing capability); the reason is reported. */
export class CheckSkipped extends Error {
  override name = "CheckSkipped";
}

/** Fails the check with a sentence and, optionally, its structured detail (see FailureDetail). */
export function fail(message: string, details?: CheckFailure["details"]): never {
  throw new CheckFailure(message, details);
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

/** What a check that ran could not decide from the target's answers: what it saw, the readings of that
 *  which the interface cannot tell apart (one conforming, one not), and what lets it decide next time. */
export interface Undecided {
  saw: string;
  readings: readonly [conforming: string, failing: string];
  decideBy: string;
}

/** Thrown by a check that ran but could not decide: neither a pass nor a failure, and never a skip (a skip
 *  says the check was not allowed or not possible). An undecided MUST check fails the job by default. */
export class CheckInconclusive extends Error {
  override name = "CheckInconclusive";
  constructor(
    readonly undecided: Undecided,
    readonly details: FailureDetail = {},
  ) {
    super(
      `could not decide: ${undecided.saw}; either ${undecided.readings[0]} (conforming), or ` +
        `${undecided.readings[1]} (not conforming). To decide: ${undecided.decideBy}`,
    );
  }
}

export function inconclusive(undecided: Undecided, details?: FailureDetail): never {
  throw new CheckInconclusive(undecided, details);
}
