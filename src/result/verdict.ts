// The run's verdict from its check results, and the one exit policy of every command that judges (lckit
// run, events check, client check, events consumer check): pure functions of the run result, so every
// renderer and exit code agree.
import { LEVELS } from "../check/index.ts";
import {
  CHECK_STATUSES,
  type CheckResult,
  type CheckStatus,
  type Counts,
  type Interruption,
  type RunResult,
  type SubjectKind,
  type Verdict,
} from "./model.ts";

export function countResults(checks: readonly CheckResult[], notSelected: number): Counts {
  const zero = () => Object.fromEntries(CHECK_STATUSES.map((s) => [s, 0])) as Record<CheckStatus, number>;
  const byStatus = zero();
  const byLevel = Object.fromEntries(LEVELS.map((l) => [l, zero()])) as Counts["byLevel"];
  for (const c of checks) {
    byStatus[c.status] += 1;
    byLevel[c.level][c.status] += 1;
  }
  return { byStatus, byLevel, notSelected };
}

/** INTERRUPTED beats everything (a signal or the deadline cut the run short: the results are partial),
 *  then BROKEN (results cannot be trusted), then a MUST failure, then MUST checks that did not run (safety
 *  settings, missing credentials or capabilities, the check skipped itself, an unresponsive target). */
export function decideVerdict(
  checks: readonly CheckResult[],
  interruption?: Interruption,
  /** Checks the selection (--suite/--check/--level) left out: a subset run is never called CONFORMANT. */
  notSelected = 0,
  /** What was judged: a rule not exercised is said in its terms (a client's traffic, a consumer's view). */
  subject?: SubjectKind,
): { verdict: Verdict; reason: string } {
  if (interruption && interruption.cause !== "unresponsive") {
    const done = checks.filter((c) => c.status !== "skipped").length;
    const mustFailed = checks.filter((c) => c.level === "MUST" && c.status === "failed").length;
    return {
      verdict: "INTERRUPTED",
      reason:
        `${interruption.message}; ${plural(done, "check")} finished before ` +
        `(${plural(mustFailed, "MUST failure")}), ${plural(checks.length - done, "check")} did not run`,
    };
  }
  const notRun = checks.filter((c) => c.skipCause === "unresponsive").length;
  const stopped =
    interruption === undefined || notRun === 0
      ? ""
      : `; the run stopped early: ${interruption.message} (${plural(notRun, "check")} not run)`;
  const decided = subsetOf(decideFinished(checks, subject), checks, notSelected);
  return { verdict: decided.verdict, reason: `${decided.reason}${stopped}` };
}

/** A run of selected checks proves those checks only: what would be CONFORMANT is PASSED (subset), with
 *  how many of all the kit's checks were selected. Failures and INCOMPLETE keep their verdicts. */
function subsetOf(
  decided: { verdict: Verdict; reason: string },
  checks: readonly CheckResult[],
  notSelected: number,
): { verdict: Verdict; reason: string } {
  if (notSelected <= 0 || decided.verdict !== "CONFORMANT") return decided;
  const passed = checks.filter((c) => c.status === "passed").length;
  return {
    verdict: "PASSED (subset)",
    reason:
      `${passed} of ${checks.length} selected checks passed (${checks.length} of ${checks.length + notSelected} ` +
      `checks selected; ${decided.reason}); a subset is no conformance claim: run every check for one`,
  };
}

/** What gave a rule its opportunities, by the run's subject: a caller rule judges the client's traffic, a
 *  consumer rule the stream and the view the consumer wrote of it. */
const OPPORTUNITY_SOURCE: Partial<Record<SubjectKind, string>> = {
  caller: "your client's traffic",
  consumer: "the stream and your consumer's view of it",
  traffic: "the recorded traffic",
};

function decideFinished(
  checks: readonly CheckResult[],
  subject?: SubjectKind,
): { verdict: Verdict; reason: string } {
  const broken = checks.filter((c) => c.status === "broken");
  if (broken.length > 0)
    return {
      verdict: "BROKEN",
      reason: `the run broke: ${plural(broken.length, "check")} hit a fault of the kit (${ids(broken)})`,
    };
  const mustFailed = checks.filter((c) => c.level === "MUST" && c.status === "failed");
  if (mustFailed.length > 0)
    return {
      verdict: "NOT CONFORMANT",
      reason: `${plural(mustFailed.length, "MUST check")} failed (${ids(mustFailed)})`,
    };
  const mustUndecided = checks.filter((c) => c.level === "MUST" && c.status === "inconclusive");
  if (mustUndecided.length > 0)
    return {
      verdict: "INCOMPLETE",
      reason:
        `${plural(mustUndecided.length, "MUST check")} ran and could not decide from the target's answers ` +
        `(${ids(mustUndecided)}); see what each saw and what lets it decide next time`,
    };
  // A rule that what it judges (a client's traffic, a consumer's view) gave nothing: said in its terms.
  const mustNotExercised = checks.filter((c) => c.level === "MUST" && c.status === "not-exercised");
  if (mustNotExercised.length > 0)
    return {
      verdict: "INCOMPLETE",
      reason:
        `${plural(mustNotExercised.length, "MUST rule")} not exercised (${ids(mustNotExercised)}): ` +
        `${(subject && OPPORTUNITY_SOURCE[subject]) ?? "the run"} ` +
        (mustNotExercised.length === 1
          ? "gave it nothing to judge; it says what would exercise it"
          : "gave them nothing to judge; each says what would exercise it"),
    };
  const mustSkipped = checks.filter((c) => c.level === "MUST" && c.status === "skipped");
  if (mustSkipped.length > 0)
    return {
      verdict: "INCOMPLETE",
      reason:
        `${plural(mustSkipped.length, "MUST check")} did not run (${ids(mustSkipped)}); ` +
        "see their reasons (safety settings, credentials or capabilities of the target)",
    };
  if (!checks.some((c) => c.status === "passed")) return { verdict: "INCOMPLETE", reason: "no check ran" };
  // Here every MUST check ran and passed; what is left to say is about the SHOULD and MAY checks.
  const otherFailed = checks.filter((c) => c.status === "failed").length;
  const otherUnrun = checks.filter((c) => c.status !== "passed" && c.status !== "failed").length;
  const unrun =
    otherUnrun === 0 ? "" : `; ${plural(otherUnrun, "SHOULD/MAY check")} did not run or could not decide`;
  return {
    verdict: "CONFORMANT",
    reason:
      otherFailed === 0 && otherUnrun === 0
        ? "every check ran and passed"
        : otherFailed === 0
          ? `every MUST check ran and passed${unrun}`
          : `every MUST check ran and passed; ${plural(otherFailed, "SHOULD/MAY finding")} (warnings, not failures)${unrun}`,
  };
}

/** Exit code of a judging command (lckit run, lckit events check, lckit client check): 0 nothing named by
 *  --fail-on was found, 1 a MUST failure or an outcome named by --fail-on, 2 nothing was judged (usage or
 *  configuration: no message read, a command that could not start or sent no request), 3 the run broke (or
 *  the command under test hung or was killed), 4 interrupted (signal or deadline: the report is partial). */
export const INTERRUPTED_EXIT_CODE = 4;
export type ExitCode = 0 | 1 | 2 | 3 | typeof INTERRUPTED_EXIT_CODE;

/** Outcomes that can fail a job (exit 1), the same on every command that judges: MUST failures always;
 *  undecided MUST rules unless --pass-inconclusive; INCOMPLETE, MUST rules not exercised and SHOULD/MAY
 *  failures when asked. */
export type FailOn = "must" | "inconclusive" | "incomplete" | "not-exercised" | "should";
export const FAIL_ON_VALUES: readonly FailOn[] = [
  "must",
  "inconclusive",
  "incomplete",
  "not-exercised",
  "should",
];
/** What fails the job when --fail-on is not given: never a silent pass on what the kit could not decide. */
export const DEFAULT_FAIL_ON: readonly FailOn[] = ["must", "inconclusive"];

/** --fail-on as given, over the default; --pass-inconclusive takes "inconclusive" out. */
export function failOnOf(given: readonly FailOn[], passInconclusive = false): FailOn[] {
  return [
    ...new Set<FailOn>(
      [...DEFAULT_FAIL_ON, ...given].filter((outcome) => !(outcome === "inconclusive" && passInconclusive)),
    ),
  ];
}

/** What a judging command found, in the terms of the exit policy: read from its run result by `findingsOf`,
 *  the only way to them. */
export interface Findings {
  verdict: Verdict;
  /** A MUST failure that is not waived by the baseline. */
  mustFailed: boolean;
  /** A MUST rule ran and could not decide. */
  mustUndecided: boolean;
  /** A MUST rule had no opportunity to judge (a caller rule the client's traffic never exercised). */
  mustNotExercised: boolean;
  /** A SHOULD or MAY failure that is not waived. */
  otherFailed: boolean;
  /** Nothing was judged, and what that means: 2 the input or setup gave nothing to judge, 3 the command
   *  under test hung or was killed, 0 an empty input the caller allowed (--allow-empty). */
  nothingJudged?: 0 | 2 | 3;
}

/** What a run result found, whatever it judged: its verdict and checks (each at its rule's level; waived
 *  failures are known, not new), and what its subject says was not judged at all. */
export function findingsOf(
  result: Pick<RunResult, "verdict" | "checks" | "requestsSent" | "interruption" | "subject">,
): Findings {
  const { verdict, checks } = result;
  const fresh = checks.filter((c) => c.status === "failed" && !isWaived(c));
  const nothingJudged = nothingJudgedOf(result, checks);
  return {
    verdict,
    // Under a baseline only new failures fail the job: a NOT CONFORMANT run whose MUST failures are all
    // waived (unexpired) exits like a passing one. The verdict itself stays NOT CONFORMANT.
    mustFailed:
      verdict === "NOT CONFORMANT" && (checks.length === 0 || fresh.some((c) => c.level === "MUST")),
    // A MUST check the run did not get to because the target stopped answering is undecided too: the
    // target's silence is no rule of the document, and no answer is no pass.
    mustUndecided: checks.some(
      (c) => c.level === "MUST" && (c.status === "inconclusive" || c.skipCause === "unresponsive"),
    ),
    mustNotExercised: checks.some((c) => c.level === "MUST" && c.status === "not-exercised"),
    otherFailed: fresh.some((c) => c.level !== "MUST"),
    ...(nothingJudged === undefined ? {} : { nothingJudged }),
  };
}

/** A run stopped by a signal to the kit (Ctrl-C, SIGTERM): INTERRUPTED, never the command's fault. */
function stoppedByKit(interruption: Interruption | undefined): boolean {
  return interruption?.cause === "SIGINT" || interruption?.cause === "SIGTERM";
}

/** Why a run judged nothing, by its subject: no message read (an event stream); a team's command that
 *  could not start (2), hung or was killed (3), sent no request (a caller) or consumed nothing (a
 *  consumer). */
function nothingJudgedOf(
  result: Pick<RunResult, "requestsSent" | "interruption" | "subject">,
  checks: readonly Pick<CheckResult, "id" | "status">[],
): Findings["nothingJudged"] {
  const subject = result.subject;
  if (subject === undefined || subject.kind === "provider") return undefined;
  // Stopped before anything came (Ctrl-C on a quiet stdin or broker): interrupted, not an empty input.
  if (subject.kind === "events" && stoppedByKit(result.interruption)) return undefined;
  if (subject.kind === "events") return subject.messages > 0 ? undefined : subject.emptyAllowed ? 0 : 2;
  // Recorded traffic with no exchange of the interface: the input gave nothing to judge.
  if (subject.kind === "traffic") return (subject.judged ?? subject.exchanges) > 0 ? undefined : 2;
  if (stoppedByKit(result.interruption)) return undefined;
  const { command } = subject;
  if (command.startError !== undefined) return 2;
  if (command.timedOut || command.signal !== null) return 3;
  if (subject.kind === "caller") return result.requestsSent === 0 ? 2 : undefined;
  // A consumer that wrote no view was still judged when a rule decided from how it ended (it crashed on
  // an unlisted type): that finding is the result, not a configuration problem.
  const ruleDecided = checks.some(
    (c) => (c.status === "failed" || c.status === "passed") && !/^consumer\/(command|view)$/.test(c.id),
  );
  return subject.nothingConsumed && !ruleDecided ? 2 : undefined;
}

/** The one exit policy of every command that judges. */
export function exitCodeFor(findings: Findings, failOn: readonly FailOn[] = DEFAULT_FAIL_ON): ExitCode {
  if (findings.nothingJudged !== undefined) return findings.nothingJudged;
  if (findings.verdict === "INTERRUPTED") return INTERRUPTED_EXIT_CODE;
  if (findings.verdict === "BROKEN") return 3;
  if (findings.mustFailed) return 1;
  if (failOn.includes("inconclusive") && findings.mustUndecided) return 1;
  if (failOn.includes("incomplete") && findings.verdict === "INCOMPLETE") return 1;
  if (failOn.includes("not-exercised") && findings.mustNotExercised) return 1;
  if (failOn.includes("should") && findings.otherFailed) return 1;
  return 0;
}

/** The exit code of several judgements (a sweep's runs): the worst, 4 before 3 before 2 before 1 before 0. */
export function worstExitCode<C extends ExitCode>(codes: readonly C[]): C | 0 {
  const severity: readonly ExitCode[] = [0, 1, 2, 3, INTERRUPTED_EXIT_CODE];
  return codes.reduce<C | 0>(
    (worst, code) => (severity.indexOf(code) > severity.indexOf(worst) ? code : worst),
    0,
  );
}

/** The exit code of a run result under `failOn`: the exit policy applied to its findings. */
export function exitCodeOf(
  result: Parameters<typeof findingsOf>[0],
  failOn: readonly FailOn[] = DEFAULT_FAIL_ON,
): ExitCode {
  return exitCodeFor(findingsOf(result), failOn);
}

/** A failed check under an unexpired waiver of the baseline: a known failure. */
export function isWaived(check: Pick<CheckResult, "status" | "waiver">): boolean {
  return check.status === "failed" && check.waiver !== undefined && !check.waiver.expired;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function ids(checks: readonly CheckResult[]): string {
  const shown = checks.slice(0, 5).map((c) => c.id);
  return checks.length > 5 ? `${shown.join(", ")}, ...` : shown.join(", ");
}
