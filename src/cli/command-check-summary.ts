// What the CLI prints of a check that ran the team's command (lckit client check, lckit events consumer
// check): the terminal summary of a run (the verdict, one line per rule with its mark, the counts and the
// command's exit), and the session's output, one printer for both commands.

import type { CommandOutcome } from "../commands/command-run.ts";
import type { CommandSession, SweepEvents } from "../commands/session.ts";
import type { Sweep } from "../commands/sweep.ts";
import { terminalSafe } from "../report/escape.ts";
import { sweepOutput } from "../report/sweep.ts";
import { commandExitWords } from "../result/client-verdict.ts";
import type { CheckResult, RunResult } from "../result/model.ts";
import { CHECK_STATUSES } from "../result/model.ts";
import { displayPath } from "../session/run-session.ts";
import type { CliIo } from "./io.ts";

function markOf(check: CheckResult): string {
  if (check.status === "passed") return "ok  ";
  if (check.status === "failed") return check.level === "MUST" ? "FAIL" : "WARN";
  if (check.status === "not-exercised") return "----";
  return check.status.toUpperCase().slice(0, 4);
}

export function commandCheckSummary(
  result: RunResult,
  outcome: Pick<CommandOutcome, "exitCode" | "signal" | "timedOut" | "startError">,
  after: readonly string[] = [],
): string {
  const lines = [`${result.verdict}: ${result.verdictReason}`];
  for (const check of result.checks) {
    const said =
      check.status === "not-exercised"
        ? `not exercised${check.exerciseRequired ? " (required: --fail-on not-exercised)" : ""}: ${check.reason ?? ""}`
        : (check.message ?? check.reason ?? "");
    const traced = check.requirements.length > 0 ? ` (${check.requirements.join(", ")})` : "";
    // A message of several lines (the command's output tail) is indented under its check, made safe.
    const [head = "", ...rest] = said.split("\n");
    lines.push(`  ${markOf(check)} ${check.id}${traced} ${terminalSafe(head)}`.trimEnd());
    for (const line of rest) lines.push(`       ${terminalSafe(line)}`.trimEnd());
    if (check.counterexample) lines.push(`       replay: ${terminalSafe(check.counterexample.replay)}`);
  }
  const counts = CHECK_STATUSES.filter((status) => (result.counts.byStatus[status] ?? 0) > 0)
    .map((status) => `${result.counts.byStatus[status]} ${status.replace("-", " ")}`)
    .join(", ");
  lines.push(`  ${counts}; ${commandExitWords(outcome)}`, ...after);
  return `${lines.join("\n")}\n`;
}

/** How one judging command that runs a team's command speaks of its session. */
export interface SessionWords<Run, Entry> {
  /** "client check", "consumer check". */
  name: string;
  /** Whose choices a sweep runs over: "provider", "producer". */
  choiceWord: string;
  /** One run, in text. */
  summary: (run: Run) => string;
  /** The lines printed as a choice of a sweep finishes. */
  progress: (entry: Entry, finished: number, total: number) => string;
  /** The sweep's closing lines. */
  closing: (sweep: Sweep<Entry>) => string;
  /** A choice's name, as sweep.json keys its run. */
  choiceOf: (entry: Entry) => string;
}

/** What the CLI prints of a session (src/commands/session.ts), the same for both commands: a sweep's
 *  progress as it goes (on stderr when stdout carries JSON), then one run's summary or result, or the
 *  sweep's closing lines or document with every choice's result; the report folder on stderr. */
export function sessionPrinter<
  Run extends { result: RunResult },
  Entry extends { run: Run },
  Document extends { runs: readonly { choice: string }[] },
>(
  io: CliIo,
  format: "text" | "json",
  words: SessionWords<Run, Entry>,
): { events: SweepEvents<Entry>; print: (session: CommandSession<Run, Entry, Document>) => number } {
  const progress = (text: string) => (format === "json" ? io.err(text) : io.out(text));
  return {
    events: {
      onStart: (total, atOnce, folder) =>
        progress(
          `${words.name} over ${total} ${words.choiceWord} choice(s), ${atOnce} at a time; reports in ${displayPath(io.cwd, folder)}\n`,
        ),
      onFinished: (entry, finished, total) => progress(words.progress(entry, finished, total)),
    },
    print(session) {
      if (session.kind === "single")
        io.out(
          format === "json" ? `${JSON.stringify(session.run.result, null, 2)}\n` : words.summary(session.run),
        );
      else if (format === "json") {
        const results = new Map(session.sweep.runs.map((entry) => [words.choiceOf(entry), entry.run.result]));
        io.out(`${JSON.stringify(sweepOutput(session.document, results, session.folder), null, 2)}\n`);
      } else io.out(words.closing(session.sweep));
      io.err(`report: ${session.folder}\n`);
      return session.exitCode;
    },
  };
}
