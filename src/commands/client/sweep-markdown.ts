// A variant sweep as Markdown (the job summary of the Action's client mode, summary.md of the sweep's
// folder): one row per provider choice with the command's exit, the broken caller rules and, for a run that
// failed, the choice and the first refusal the client met. A pure function of the sweep.

import { escapeMarkdown } from "../../report/escape.ts";
import { COMMAND_CHECK_ID } from "../../result/client-verdict.ts";
import type { ClientSweep } from "./sweep.ts";
import { dependsOnChoice, whyFailed } from "./sweep-report.ts";

export function renderSweepMarkdown(sweep: ClientSweep): string {
  const lines = [
    "# lckit client check: every provider choice",
    "",
    `${sweep.passed} of ${sweep.runs.length} provider choice(s) passed.`,
    "",
    "| Provider choice | Result | Command exit | Broken caller rules | Why it failed | Folder |",
    "|---|---|---|---|---|---|",
  ];
  for (const entry of sweep.runs) {
    const { variant, run } = entry;
    const broken = run.result.checks
      .filter((check) => check.status === "failed" && check.id !== COMMAND_CHECK_ID)
      .map((check) => `${check.id} (${check.level})`);
    const exit = run.outcome.exitCode ?? run.outcome.signal ?? "none";
    lines.push(
      `| ${escapeMarkdown(variant)} | ${run.exitCode !== 0 ? "FAILED" : dependsOnChoice(entry) ? "passed, SHOULD: fails under this choice only" : "passed"} | ${exit} | ${escapeMarkdown(broken.join(", ") || "none")} | ${escapeMarkdown(whyFailed(entry) ?? "")} | ${escapeMarkdown(`${variant}/`)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
