// What a check's result means to a reader, shared by report.html and summary.md: a failed MUST check is a
// failure, a failed SHOULD/MAY check a finding (a warning, never a failure), a waived failure is known;
// every other status (passed, skipped, broken, inconclusive, any the model adds) stands for itself.
import { clientFailureCauses } from "../result/client-verdict.ts";
import {
  CHECK_STATUSES,
  type CheckResult,
  type CommandRun,
  JUDGING_COMMANDS,
  type RunResult,
  type SubjectKind,
  type TargetSummary,
} from "../result/model.ts";
import { isWaived } from "../result/verdict.ts";

export type Outcome = "failure" | "finding" | "waived" | Exclude<CheckResult["status"], "failed">;

export function outcomeOf(c: Pick<CheckResult, "status" | "level" | "waiver" | "exerciseRequired">): Outcome {
  if (c.status === "not-exercised" && c.level === "MUST" && c.exerciseRequired) return "failure";
  if (c.status !== "failed") return c.status;
  if (isWaived(c)) return "waived";
  return c.level === "MUST" ? "failure" : "finding";
}

/** Every outcome, in the order bars, counts and filters show them: passed first, then what needs reading,
 *  then what did not decide. Statuses added to CHECK_STATUSES later come last, by name. */
export const OUTCOMES: readonly Outcome[] = [
  "passed",
  "failure",
  "finding",
  "waived",
  ...CHECK_STATUSES.filter(
    (s): s is Exclude<CheckResult["status"], "failed"> => s !== "passed" && s !== "failed",
  ),
];

const LABELS: Record<string, string> = {
  passed: "passed",
  failure: "MUST failures",
  finding: "SHOULD/MAY findings",
  waived: "waived failures",
  skipped: "skipped",
  "not-exercised": "not exercised",
  broken: "broken (kit faults)",
  inconclusive: "inconclusive",
};

/** "MUST failures", "SHOULD/MAY findings", ...: the plural label of an outcome. */
export function outcomeLabel(outcome: string): string {
  return LABELS[outcome] ?? outcome;
}

const SINGULAR: Record<string, string> = {
  failure: "MUST failure",
  finding: "SHOULD/MAY finding",
  waived: "waived failure",
  broken: "broken (kit fault)",
};

/** "1 MUST failure", "3 SHOULD/MAY findings", "5 passed". */
export function outcomeCount(outcome: string, n: number): string {
  return `${n} ${n === 1 ? (SINGULAR[outcome] ?? outcomeLabel(outcome)) : outcomeLabel(outcome)}`;
}

/** One word for a column head: "failures" (MUST), "findings" (SHOULD/MAY), or the status. */
export function outcomeShort(outcome: string): string {
  if (outcome === "failure") return "failures";
  if (outcome === "finding") return "findings";
  if (outcome === "not-exercised") return "not exercised";
  return outcome;
}

/** The singular word on a badge. */
export function outcomeBadge(outcome: string): string {
  if (outcome === "failure") return "failed";
  if (outcome === "finding") return "finding";
  return outcome;
}

/** Checks counted by outcome (every outcome present, zero included). */
export function countOutcomes(checks: readonly CheckResult[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
  for (const c of checks) {
    const o = outcomeOf(c);
    counts[o] = (counts[o] ?? 0) + 1;
  }
  return counts;
}

/** One row per suite, in name order, with its checks counted by outcome. */
export function suiteOutcomes(
  result: RunResult,
): { suite: string; total: number; counts: Record<string, number> }[] {
  const suites = [...new Set(result.checks.map((c) => c.suite))].sort();
  return suites.map((suite) => {
    const checks = result.checks.filter((c) => c.suite === suite);
    return { suite, total: checks.length, counts: countOutcomes(checks) };
  });
}

/** The outcomes that have at least one check, in OUTCOMES order (what a legend or a table needs). */
export function presentOutcomes(counts: Record<string, number>): string[] {
  const known = OUTCOMES.filter((o) => (counts[o] ?? 0) > 0);
  const extra = Object.keys(counts).filter((o) => !OUTCOMES.includes(o as Outcome) && (counts[o] ?? 0) > 0);
  return [...known, ...extra];
}

/** Where the target says what it is: GET /version as a certified run asked it, or as a check of the run
 *  was answered; undefined when nothing asked. */
export function targetVersionText(result: RunResult): string | undefined {
  const v: { status?: number; body?: string; error?: string } | undefined =
    result.certification?.targetVersion ?? result.targetVersion;
  if (v === undefined || Object.keys(v).length === 0) return undefined;
  if (v.error !== undefined) return `no answer: ${v.error}`;
  return `${v.status ?? "?"} ${v.body ?? ""}`.trim();
}

/** What failed a check of a team's command (client or consumer), for a headline ("your command failed
 *  (exit 1); MUST rule broken (...)"); undefined for a provider run, an event stream, or a check nothing
 *  failed. */
export function clientHeadline(result: Pick<RunResult, "subject" | "checks">): string | undefined {
  const command = commandOf(result);
  if (command === undefined) return undefined;
  const causes = clientFailureCauses(result.checks, command);
  return causes.length === 0 ? undefined : causes.join("; ");
}

/** The team's command a client or consumer check ran; undefined for a provider run or an event stream. */
export function commandOf(result: Pick<RunResult, "subject">): CommandRun | undefined {
  const { subject } = result;
  return subject.kind === "caller" || subject.kind === "consumer" ? subject.command : undefined;
}

/** The target a run sent requests to: a provider, or the sandbox a caller's command was pointed at; an
 *  event stream and a consumer check have none (no URLs, no requests, no /version). */
export function targetOf(result: Pick<RunResult, "subject" | "target">): TargetSummary | undefined {
  const { subject } = result;
  if (subject.kind === "provider") return subject.target;
  return subject.kind === "caller" ? result.target : undefined;
}

/** The kit's command that judged a run, as a report's title names it. */
export const JUDGING_COMMAND = JUDGING_COMMANDS;

/** What a run judged, as headlines name it: the target, the stream, the team's command. */
export function subjectName(result: Pick<RunResult, "subject" | "command">): string {
  const { subject } = result;
  switch (subject.kind) {
    case "provider":
      return subject.target.name;
    case "events":
      return subject.source;
    case "caller":
      return `client: ${result.command} (sandbox variant ${subject.choice})`;
    case "consumer":
      return `consumer: ${result.command} (producer choice ${subject.choice}, ${subject.delivery})`;
    case "traffic":
      return `traffic: ${subject.source}`;
  }
}

/** How the team's command ended, in a few words ("exit 1", "killed by SIGTERM"). */
export function commandEnd(command: CommandRun): string {
  if (command.startError !== undefined) return `could not start: ${command.startError}`;
  if (command.timedOut) return "hung past its time limit";
  if (command.signal !== null) return `killed by ${command.signal}`;
  return `exit ${command.exitCode}`;
}

/** The command line that judges a failed check again, by the kind of run: a provider's check alone with the
 *  run's seed; the team's command again under the same choice (and, for a consumer, the same stream and
 *  delivery); an event stream or recorded traffic judged whole again by the run's own command line (lckit
 *  events check and lckit judge take no --check or --seed). A counterexample's own replay comes first. */
export function replayCommand(result: RunResult, c: CheckResult): string {
  const { subject } = result;
  switch (subject.kind) {
    case "caller":
      return `lckit client check${subject.choice === "default" ? "" : ` --variants ${subject.choice}`} -- ${subject.command.argv.join(" ")}`;
    case "consumer":
      return (
        c.counterexample?.replay ??
        `lckit events consumer check --variants ${subject.choice} --delivery ${subject.delivery} -- ${subject.command.argv.join(" ")}`
      );
    case "events":
    case "traffic":
      return c.counterexample?.replay ?? result.command;
    case "provider":
      return c.counterexample?.replay ?? `${result.command} --check ${c.id} --seed ${result.seed}`;
  }
}

/** What a report's facts call the subject of a run that has no target, by its kind. */
const SUBJECT_WORD: Record<SubjectKind, string> = {
  provider: "Target",
  caller: "Target",
  events: "Messages from",
  consumer: "Consumer",
  traffic: "Traffic from",
};

export function subjectWord(result: Pick<RunResult, "subject">): string {
  return SUBJECT_WORD[result.subject.kind];
}
