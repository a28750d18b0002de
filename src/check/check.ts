// The check model shared by suites/ and the runner: a check is data plus run(ctx); it knows nothing of
// reports.
import type { RequirementLevel } from "../requirements/levels.ts";
import type { Exchange } from "./exchange.ts";
import type { Depth } from "./exploration.ts";
import type { ConfigJournal } from "./journal.ts";
import type { Fact, RunFacts } from "./run-facts.ts";
import type { HarmlessCall, Safety } from "./safety.ts";
import type { CredentialRole, Target } from "./target.ts";

/** A check's level: the level of the requirements it proves (LEVELS lists them, strongest first). */
export type Level = RequirementLevel;

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
  /** Runs `work` and gives back, beside its value, the exchanges this check sent meanwhile: its own, never
   *  those of a check running beside it (to share them with another check, which cites them). Optional: a
   *  bare context records none. */
  ownExchangesOf?<T>(work: () => Promise<T>): Promise<{ value: T; exchanges: Exchange[] }>;
  /** Journal of configuration changes: open() before a change, settle() once it is undone. */
  journal: ConfigJournal;
  /** Aborted when the check is over (passed, failed, timed out, run interrupted): stop what it started. */
  signal: AbortSignal;
  /** What earlier checks of the run learned about the target, reachable for the facts the check declares
   *  (Check.facts). */
  facts: RunFacts;
  /** Read once, judge many: answers recorded by the run's read checks (a whole scroll by its query), shared
   *  by every read check until a check that may change data starts. Given to read checks only. */
  recordings?: Map<string, Promise<unknown>>;
  /** How far the run explores (see exploration.ts); absent: "default". Read it through depthOf(ctx). */
  depth?: Depth;
  /** Notes a value of a dimension of the exploration model the check reached (call explore(ctx, ...)). */
  explore?(dimension: string, value: string | number | boolean): void;
}

/** An HTTP check: a rule of kind "http" (rule.ts, defineRule), whose judge is run(ctx), with what the
 *  runner reads from its declaration (safety, needs, facts, ...). */
export interface Check {
  /** Set by defineRule (suites declare checks through defineCheck); a check built by hand may omit it. */
  kind?: "http";
  /** Stable, opaque id: `<suite>/<slug>`. Reports and allow-lists key on it. */
  id: string;
  suite: string;
  /** Starts with the level: "MUST return ...". */
  title: string;
  /** The level its title starts with. */
  level: Level;
  /** Requirement-catalogue ids this check proves. */
  requirements: string[];
  safety: Safety;
  /** What a write or destructive check changes: "data" (lookups, delete tasks) or "configuration"
   *  (customers, clients). Unset: configuration, the cautious reading (the scheduler of a live run then
   *  keeps the check apart from the token checks, which change the quota customer's configuration). */
  changes?: "data" | "configuration";
  /** True for a destructive check that leaves the tenant without data (a delete task with no parameters):
   *  the planner runs it after every other check that reads or deletes data, so that none of them depends
   *  on the order the order seed draws (issue 43). */
  emptiesTenant?: boolean;
  /** True for a check that judges the traffic of the other checks (ctx.exchanges()): the planner runs it
   *  after every other check, so that it sees all of that traffic, and never beside them. */
  readsOthersTraffic?: boolean;
  /** Roles whose client the check asks the token endpoint for tokens itself (not through ctx.token, whose
   *  tokens the runner fetches once). Such tokens count toward the quota of the client's customer, which
   *  the token checks change: a live run keeps the check out of the lane beside them. The transport
   *  refuses the check's token request for a client of any other role of the target. */
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
  /** True for a check that leaves the quota client tokens valid for longer than a quota session's short
   *  validity (a burst sized to its own length): the next token check of its lane waits them out, so the
   *  planner runs it last in its lane. Order, never correctness: a wrong flag costs seconds. */
  leavesLongTokens?: boolean;
  /** Run facts the check reads or writes (ctx.facts): what it relies on other checks to have learned,
   *  and what it learns for them. */
  facts?: readonly Fact<unknown>[];
  run(ctx: CheckContext): Promise<void>;
}
