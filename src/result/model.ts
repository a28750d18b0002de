// The result of a run: plain data, versioned, validated by report.schema.json. Renderers read only this.
import type {
  Check,
  Counterexample,
  Depth,
  Exchange,
  Explored,
  FailureDetail,
  Level,
  Safety,
  Target,
  TransportRetry,
} from "../check/index.ts";
import type { SpecInfo } from "./kit-info.ts";

export const reportVersion = 1 as const;

/** What became of a check, in the order counts and reports show them. `skipped`: the check was not allowed
 *  (safety settings) or not possible (the target file lacks something, the run was cut short);
 *  `inconclusive`: it ran and could not decide from the target's answers; `not-exercised`: a caller rule
 *  of a client check whose traffic gave it no opportunity (its reason says what would exercise it). */
export const CHECK_STATUSES = [
  "passed",
  "failed",
  "inconclusive",
  "not-exercised",
  "skipped",
  "broken",
] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** Why a check was skipped: safety settings, a missing capability of the target, the check itself, the
 *  run was interrupted (signal, deadline) before or while it ran, or the target stopped answering. */
export type SkipCause = "safety" | "needs" | "check" | "interrupted" | "unresponsive";

/** PASSED (subset): every selected check that ran passed, but --suite/--check/--level left checks out,
 *  so the run makes no conformance claim. INTERRUPTED: a signal or the run's deadline ended the run early; the report holds what finished. */
export type Verdict =
  | "CERTIFIED"
  | "CONFORMANT"
  | "PASSED (subset)"
  | "NOT CONFORMANT"
  | "INCOMPLETE"
  | "BROKEN"
  | "INTERRUPTED";

/** "budget": the run's request budget (--request-budget, requestBudget) was spent. */
export type InterruptionCause = "SIGINT" | "SIGTERM" | "deadline" | "budget" | "unresponsive" | "aborted";
/** A signal to the kit that stops a run (Ctrl-C, SIGTERM): the run is INTERRUPTED, exit 4. */
export type StopSignal = Extract<InterruptionCause, "SIGINT" | "SIGTERM">;

/** What ended a run early. "unresponsive" (the breaker) keeps the ordinary verdict: the checks that got no
 *  answer failed; the others end the run INTERRUPTED. */
export interface Interruption {
  cause: InterruptionCause;
  message: string;
  at: string;
}

/** The check as the suites define it (id, suite, title, level, requirements, safety), then how it went. */
export interface CheckResult
  extends Pick<Check, "id" | "suite" | "title" | "level" | "requirements" | "safety"> {
  status: CheckStatus;
  durationMs: number;
  /** Failed and broken checks: what went wrong (broken: the error, stack in `details.stack`). */
  message?: string;
  /** Failed checks: the failure as data (expected, actual, the request, the record or field at fault, the
   *  pages of a scan), only the fields the check gave; broken checks: the stack. Absent on passed checks. */
  details?: FailureDetail & { stack?: string };
  /** Skipped checks: why. Inconclusive checks: what the kit saw, the two readings, what decides next time.
   *  Not exercised rules: what the client's traffic lacked and what would exercise the rule. */
  reason?: string;
  /** Inconclusive checks: the same as structured data. */
  undecided?: { saw: string; readings: [string, string]; decideBy: string };
  skipCause?: SkipCause;
  /** A not exercised MUST rule the run was asked to require (lckit client check --fail-on not-exercised):
   *  it fails the run as a failure would, in every format. */
  exerciseRequired?: true;
  /** Failed and broken checks: the last exchanges of that check, redacted, bodies capped. */
  evidence?: Exchange[];
  /** Property failures: everything needed to replay the counterexample. */
  counterexample?: Counterexample;
  /** Lines the check logged (capped), for failed and broken checks. */
  log?: string[];
  /** Requests the check sent (0 for a rule that judges what was observed: it sends none). */
  requests: number;
  /** A rule that judges what was observed (event, caller, consumer rules): the opportunities it judged
   *  (messages, requests of the command's traffic, objects of the view); absent for an HTTP check and for
   *  a rule not exercised. */
  opportunities?: number;
  /** Milliseconds the check spent waiting on the target's clock (token validity, Retry-After, a task),
   *  summed over its waits; absent when it waited for nothing. */
  waitMs?: number;
  /** Checks that ran: when the check began, in ms after the run began (the report's timeline). */
  startedMs?: number;
  /** Checks that ran in one of the run's concurrent lanes (from 0); absent for those run one at a time
   *  after the lanes. */
  lane?: number;
  /** The real waits of waitMs (the first 50): when each began, in ms after the check began, and its length. */
  waits?: { atMs: number; ms: number }[];
  /** A waiver of the run's baseline (--baseline) names this check. A failed check with an unexpired
   *  waiver is a known failure: it does not fail the job, but it is never conformant. An expired waiver
   *  is shown (expired: true) and the failure counts again. */
  waiver?: Waiver & { expired: boolean };
  /** Requests the transport sent again for this check (after a reset or a 502/503/504, or a 429 waited
   *  out): the exchange that was retried (Exchange.id, evidence.har's _exchangeId) and what happened. A
   *  passed check lists them too: a retry is no finding, but the evidence shows it. */
  retries?: TransportRetry[];
  /** Ids (Exchange.id) of the exchanges the check used: the requests it sent and those of a recording
   *  another check made that it judged (read once, judge many); in the order the check used them. */
  exchangeIds?: number[];
  /** Indexes (from 0) of the entries of evidence.har holding the exchanges of exchangeIds (the entries
   *  whose `_exchangeId` is one of them): what the check's result rests on. */
  harEntries?: number[];
  /** What the check explored of its requirements' space: dimension -> the values it reached (the
   *  dimensions of requirements/exploration.yaml). */
  explored?: Explored;
  /** Failed event checks (lckit events check --report-dir): the lines (from 1) of events.ndjson, beside
   *  report.json, holding the messages that broke the check's rule (the first few). */
  eventLines?: number[];
}

/** One known failure accepted for a while: which check, why, who accepted it, until when (YYYY-MM-DD). */
export interface Waiver {
  check: string;
  reason: string;
  who: string;
  expires: string;
}

export type CoverageStatus =
  | "proven"
  | "failing"
  | "broken"
  | "undecided"
  | "not-run"
  | "untested"
  | "elsewhere";

export interface RequirementCoverage {
  id: string;
  section?: string;
  level?: string;
  text?: string;
  /** proven: every check that ran passed (and at least one ran); failing: one failed; broken: one broke;
   *  undecided: one ran and could not decide (none failed or broke);
   *  not-run: checks exist but none ran (skipped or not selected); untested: no check traces to it;
   *  elsewhere: another command of the kit checks it (event requirements in an HTTP run, and vice versa). */
  status: CoverageStatus;
  /** For status elsewhere: the command that checks this requirement. */
  checkedBy?: string;
  /** For status untested: why no command of the kit can check it (the catalogue's notCheckable). */
  notCheckable?: string;
  checks: { id: string; status: CheckStatus | "not-selected" }[];
  /** MUST requirements of the exploration model (requirements/exploration.yaml): what the run's checks
   *  reached along each of its dimensions (dimension -> values). */
  explored?: Explored;
  /** Parts of the requirement's space the run did not explore, each with why. */
  gaps?: ExplorationGap[];
}

/** A dimension of a requirement the run did not explore (all of it, or the part the model names). */
export interface ExplorationGap {
  dimension: string;
  /** "not reached": the model's checks explore it, but not in this run (not run, deep only, stopped). */
  why: "not shown" | "unsafe" | "cost" | "unobservable" | "not reached";
  note: string;
}

export interface Coverage {
  /** Catalogue file the coverage was computed from (repository-relative), or null when absent. */
  catalogue: string | null;
  requirements: RequirementCoverage[];
  /** Requirement ids referenced by checks but absent from the catalogue. */
  unknown: { id: string; checks: string[] }[];
  figures: Record<CoverageStatus, number> & { total: number };
}

/** What a report says of the target: the target's names and URLs as given, never a credential. */
export interface TargetSummary
  extends Pick<
    Target,
    "name" | "baseUrl" | "rdmUrl" | "tenant" | "otherTenant" | "rdbmsTenant" | "loopback"
  > {
  /** Credential roles the target file provides (names only, never values). */
  roles: string[];
}

export interface Counts {
  byStatus: Record<CheckStatus, number>;
  byLevel: Record<Level, Record<CheckStatus, number>>;
  /** Checks not selected by --suite/--check/--level. */
  notSelected: number;
}

export interface RunResult {
  reportVersion: typeof reportVersion;
  runId: string;
  kit: { name: string; version: string };
  /** What the run certifies against: the requirement catalogue and the contract (version + sha256), and
   *  the sha256 of the user's copy of the interface document when one was named (else null). */
  spec: SpecInfo;
  /** The target the run sent requests to: a provider (lckit run) or the sandbox a caller's command was
   *  pointed at (lckit client check). Absent where nothing was requested: an event stream, a consumer. */
  target?: TargetSummary;
  selection: { suites: string[]; checks: string[]; level: Level; allow: Safety[]; confirmTenant?: string };
  /** The seed of what the run generated: a provider run's properties, a consumer check's stream. Absent
   *  where nothing was generated (an event stream read, a client's command, recorded traffic). */
  seed?: number;
  /** Runs per property (lckit run); absent for the kinds that have no properties. */
  runs?: number;
  /** How far the checks explored (HTTP runs): "default" or "deep" (see src/check/exploration.ts). */
  depth?: Depth;
  replayPath?: string;
  /** Command line that reruns this selection (without --seed). */
  command: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  requestsSent: number;
  checks: CheckResult[];
  counts: Counts;
  coverage: Coverage;
  verdict: Verdict;
  /** One sentence on why the verdict is what it is. */
  verdictReason: string;
  /** Present when the run ended early. */
  interruption?: Interruption;
  /** Configuration changes the checks made (journalled before each was sent): what is still changed
   *  (empty when everything was put back) and the journal `lckit restore` undoes it from. */
  configuration?: { journal: string | null; changes: number; leftChanged: string[] };
  /** The baseline of known failures the run was judged under (--baseline): its file name and sha256,
   *  the failed checks it waived, the failures whose waiver expired, and waivers that matched no failure. */
  baseline?: {
    file: string;
    sha256: string;
    waivers: number;
    waived: string[];
    expired: string[];
    unused: string[];
  };
  /** A certified run (--certify): what was certified, and whether the certificate was granted. */
  certification?: Certification;
  /** What GET {rdm_url}/version answered when a check of the run asked it (status, body capped): the
   *  target as it names itself, shown beside the verdict. Absent when no check asked. */
  targetVersion?: { status: number; body: string };
  /** A client check (lckit client check): the command that was judged and how it ended, beside the verdict
   *  (subject.command and subject.choice say the same; kept for readers of earlier reports). */
  client?: ClientCommand;
  /** What the run judged, in its own terms: a provider (lckit run), an event stream (lckit events check), a
   *  caller's command against the sandbox (lckit client check), or an event consumer's command (lckit
   *  events consumer check). Renderers and the exit policy read the kind from here; reports written before
   *  it existed lack it (the schema keeps it optional). */
  subject: Subject;
}

/** What a run judged: one shape per judging command, none borrowing another's fields. */
export type Subject =
  | { kind: "provider"; target: TargetSummary }
  | {
      kind: "events";
      /** The file, "-" (stdin) or broker URL the messages were read from. */
      source: string;
      /** Messages read. */
      messages: number;
      /** An empty stream was allowed (--allow-empty): no message read is then no failure. */
      emptyAllowed?: true;
    }
  | {
      kind: "caller";
      command: CommandRun;
      /** The provider choice the sandbox took (a variant name), or "default". */
      choice: string;
    }
  | {
      kind: "consumer";
      command: CommandRun;
      /** The producer choice the stream was generated under. */
      choice: string;
      /** How the stream reached the consumer (file, stdin, pubsub-push, sns-push, rabbitmq, amqp1). */
      delivery: string;
      /** Messages the delivery handed over, of those the stream holds. */
      delivered: number;
      messages: number;
      /** No view, or an empty one: the consumer consumed nothing, so nothing was judged. */
      nothingConsumed?: true;
    }
  | {
      /** Recorded traffic judged by both rule sets (lckit judge): a HAR or NDJSON of exchanges. */
      kind: "traffic";
      /** The file or "-" (stdin) the exchanges were read from. */
      source: string;
      /** Exchanges read. */
      exchanges: number;
      /** Exchanges judged (those read, less the excluded parties' and those over the bound). */
      judged?: number;
      /** The parties judged: "service" and "client <id>" per client seen. */
      parties: string[];
      /** Parties named out (--exclude-client, --exclude-tenant). */
      excluded?: { clients?: string[]; tenants?: string[] };
      /** Exchanges not kept: over the bound on kept exchanges (said, never silently judged). */
      dropped?: number;
      /** What was judged when, per party and per rule, over the traffic's own time (report.html draws it). */
      timeline?: TrafficTimeline;
      /** Live traffic (lckit proxy): what it forwarded, and what was no exchange of the service, blamed
       *  on no party: upstream failures (504 no answer in time, 502 unreachable or reset), requests node's
       *  parser refused (400), clients that left before their answer. */
      proxy?: {
        forwarded: number;
        upstreamTimedOut: number;
        upstreamReset: number;
        malformedRequests: number;
        clientAborted: number;
        /** Exchanges forwarded but not judged: the judge's bounded queue was full. */
        notJudged?: number;
        /** The first upstream failures, "METHOD path: why". */
        firstFailures: string[];
      };
    };

/** The traffic's time cut into equal buckets (fixed in number whatever its length: the judge streams), and
 *  per party and per rule what was judged in each. Exchanges without a time are counted apart, never drawn
 *  at a time they do not have. */
export interface TrafficTimeline {
  /** When the first bucket begins (the first exchange judged), ISO 8601; absent when no exchange had a time. */
  start?: string;
  bucketMs: number;
  /** Buckets in every array below. */
  buckets: number;
  /** Exchanges judged that carried no time of their own: what was judged at them is in the `untimed` counts. */
  untimedExchanges: number;
  /** Per party ("service", "client <id>"): the exchanges of the interface it took part in, per bucket. */
  parties: { party: string; exchanges: number[]; untimed: number }[];
  /** Per party and rule (its check id) that had an opportunity or a finding: how many per bucket. */
  series: {
    party: string;
    check: string;
    opportunities: number[];
    findings: number[];
    untimed: { opportunities: number; findings: number };
  }[];
}

export type SubjectKind = Subject["kind"];

/** The kit's command that judges each kind of subject, as reports and coverage name it. */
export const JUDGING_COMMANDS: Record<SubjectKind, string> = {
  provider: "lckit run",
  events: "lckit events check",
  caller: "lckit client check",
  consumer: "lckit events consumer check",
  traffic: "lckit judge",
};

/** A team's command the kit ran (client and consumer checks) and how it ended. */
export type CommandRun = Omit<ClientCommand, "variant">;

/** The consumer's command a client check ran against the sandbox, and its own result. */
export interface ClientCommand {
  argv: string[];
  /** The provider choice the sandbox took (a variant name), or "default". */
  variant: string;
  /** The command's own exit code; null when it did not exit by itself. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Why the command could not be started. */
  startError?: string;
  durationMs: number;
  /** The last lines of the command's output (stdout and stderr as they came), redacted. */
  outputTail?: string;
}

/** The record of a certified run: everything a third party needs to know what the verdict is about. */
export interface Certification {
  /** True when the verdict is CERTIFIED: every MUST check of the kit ran and passed, none waived. */
  certified: boolean;
  /** Why the certificate was granted or refused. */
  reason: string;
  kitVersion: string;
  catalogueSha256: string;
  contractSha256: string;
  target: string;
  /** What GET {rdm_url}/version answered (status and body, capped), or the error. */
  targetVersion: { status?: number; body?: string; error?: string };
  profile: Record<string, unknown>;
  seed: number;
  runs: number;
  startedAt: string;
  finishedAt: string;
  /** MUST checks of the kit that did not run, each with why and the key or flag that makes it run. */
  missing: { id: string; reason: string; fix: string }[];
}
