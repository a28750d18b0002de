// A variant sweep as Markdown (the job summary of the Action's client mode, summary.md of the sweep's
// folder): one row per provider choice with the command's exit, the broken caller rules and, for a run that
// failed, the choice and the first refusal the client met. A pure function of the sweep.

import { sweepMarkdown } from "../../report/sweep.ts";
import { COMMAND_CHECK_ID } from "../../result/client-verdict.ts";
import type { ClientSweep } from "./sweep.ts";
import { dependsOnChoice, whyFailed } from "./sweep-report.ts";

/** The columns of summary.md after the choice's. */
const COLUMNS = ["Result", "Command exit", "Broken caller rules", "Why it failed", "Folder"];

export function renderSweepMarkdown(sweep: ClientSweep): string {
  const rows = sweep.runs.map((entry) => {
    const { variant, run } = entry;
    const broken = run.result.checks
      .filter((check) => check.status === "failed" && check.id !== COMMAND_CHECK_ID)
      .map((check) => `${check.id} (${check.level})`);
    const result =
      run.exitCode !== 0
        ? "FAILED"
        : dependsOnChoice(entry)
          ? "passed, SHOULD: fails under this choice only"
          : "passed";
    const exit = run.outcome.exitCode ?? run.outcome.signal ?? "none";
    return [
      variant,
      result,
      String(exit),
      broken.join(", ") || "none",
      whyFailed(entry) ?? "",
      `${variant}/`,
    ];
  });
  return sweepMarkdown("lckit client check", { choiceWord: "provider" }, sweep.passed, COLUMNS, rows);
}
