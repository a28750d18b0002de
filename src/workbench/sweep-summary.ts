// A variant sweep as Markdown (the job summary of the Action's client mode, summary.md of the sweep's
// folder): one row per provider choice with the command's exit, the broken caller rules and, for a run that
// failed, the choice and the first refusal the client met. A pure function of the sweep.

import { VARIANTS } from "../reference/index.ts";
import { escapeMarkdown } from "../report/escape.ts";
import { COMMAND_CHECK_ID } from "../result/client-verdict.ts";
import type { ClientSweep } from "./client-sweep.ts";

export function renderSweepMarkdown(sweep: ClientSweep): string {
  const lines = [
    "# lckit client check: every provider choice",
    "",
    `${sweep.passed} of ${sweep.runs.length} provider choice(s) passed.`,
    "",
    "| Provider choice | Result | Command exit | Broken caller rules | Why it failed | Report |",
    "|---|---|---|---|---|---|",
  ];
  for (const { variant, run } of sweep.runs) {
    const broken = run.result.checks
      .filter((check) => check.status === "failed" && check.id !== COMMAND_CHECK_ID)
      .map((check) => `${check.id} (${check.level})`);
    const choice = VARIANTS.find((entry) => entry.name === variant)?.description;
    const why =
      run.exitCode === 0
        ? ""
        : [
            choice ? `the choice: ${choice}` : "",
            run.firstRefusal ? `first refusal: ${run.firstRefusal}` : "",
          ]
            .filter(Boolean)
            .join("; ");
    const exit = run.outcome.exitCode ?? run.outcome.signal ?? "none";
    lines.push(
      `| ${escapeMarkdown(variant)} | ${run.exitCode === 0 ? "passed" : "FAILED"} | ${exit} | ${escapeMarkdown(broken.join(", ") || "none")} | ${escapeMarkdown(why)} | ${escapeMarkdown(run.result.runId)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
