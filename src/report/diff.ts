// lckit report diff, rendered: the diff of two runs (computed in src/result/run-diff.ts) as JSON or as
// Markdown for a job summary.
import type { ReportDiff, StatusChange } from "../result/run-diff.ts";
import { escapeMarkdown as md } from "./escape.ts";

export function renderDiffJson(diff: ReportDiff): string {
  return `${JSON.stringify(diff, null, 2)}\n`;
}

export function renderDiffMarkdown(diff: ReportDiff): string {
  const out: string[] = [];
  const n = (k: number, noun: string) => `${k} ${noun}${k === 1 ? "" : "s"}`;
  out.push(
    `## ${diff.regressed.length > 0 ? "❌" : "✅"} ${n(diff.regressed.length, "check")} regressed, ` +
      `${n(diff.fixed.length, "check")} fixed`,
    "",
    `Old: run ${md(diff.old.runId)} (${md(diff.old.verdict)}, kit ${md(diff.old.kitVersion)}); ` +
      `new: run ${md(diff.new.runId)} (${md(diff.new.verdict)}, kit ${md(diff.new.kitVersion)}).`,
    "",
  );
  if (diff.old.catalogueSha256 !== diff.new.catalogueSha256)
    out.push("The requirement catalogue differs between the two runs (another kit version).", "");
  const table = (title: string, rows: StatusChange[]) => {
    if (rows.length === 0) return;
    out.push(`### ${title}`, "", "| Check | Level | Was | Now | Message |", "|---|---|---|---|---|");
    for (const r of rows)
      out.push(
        `| ${md(r.id)} | ${r.level} | ${r.from} | ${r.to} | ${md((r.message ?? "").replace(/\s+/g, " ").slice(0, 200))} |`,
      );
    out.push("");
  };
  table("Regressed", diff.regressed);
  table("Fixed", diff.fixed);
  table("Other status changes", diff.changedStatus);
  if (diff.changedLevel.length > 0) {
    out.push("### Changed level", "", "| Check | Was | Now |", "|---|---|---|");
    for (const r of diff.changedLevel) out.push(`| ${md(r.id)} | ${r.from} | ${r.to} |`);
    out.push("");
  }
  if (diff.changedEvidence.length > 0) {
    out.push("### Still failing, other evidence", "");
    for (const r of diff.changedEvidence)
      out.push(`- ${md(r.id)} (${r.level}): was "${md(firstLine(r.from))}", now "${md(firstLine(r.to))}"`);
    out.push("");
  }
  if (diff.added.length > 0) out.push(`New checks: ${diff.added.map(md).join(", ")}`, "");
  if (diff.removed.length > 0)
    out.push(`Checks no longer in the report: ${diff.removed.map(md).join(", ")}`, "");
  return `${out.join("\n")}\n`;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 200);
}
