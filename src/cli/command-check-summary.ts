// The terminal summary of a check that ran the team's command (lckit client check, lckit events consumer
// check): the verdict, one line per rule with its mark, the counts and the command's exit.

import type { CommandOutcome } from "../commands/command-run.ts";
import { terminalSafe } from "../report/escape.ts";
import { commandExitWords } from "../result/client-verdict.ts";
import type { CheckResult, RunResult } from "../result/model.ts";
import { CHECK_STATUSES } from "../result/model.ts";

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
