// lckit report diff: what changed between two runs (report.json files), so a nightly job can say
// "2 checks regressed since yesterday". Pure: reads two RunResults, returns data; renderers beside it.

import type { CheckResult, CheckStatus, RunResult } from "../result/model.ts";
import { escapeMarkdown as md } from "./escape.ts";

export interface StatusChange {
  id: string;
  level: CheckResult["level"];
  from: CheckStatus | "absent";
  to: CheckStatus | "absent";
  /** The new run's message or skip reason, when it has one. */
  message?: string;
}

export interface ReportDiff {
  old: { runId: string; verdict: string; kitVersion: string; catalogueSha256?: string };
  new: { runId: string; verdict: string; kitVersion: string; catalogueSha256?: string };
  /** Checks that passed (or did not exist, or were skipped) before and now fail or break. */
  regressed: StatusChange[];
  /** Checks that failed or broke before and now pass. */
  fixed: StatusChange[];
  /** Every other status change (a check that now skips, or that ran again after a skip). */
  changedStatus: StatusChange[];
  /** Checks whose level differs (a new kit version may move a check from SHOULD to MUST). */
  changedLevel: { id: string; from: CheckResult["level"]; to: CheckResult["level"] }[];
  /** Checks that fail in both runs, but with another message or other evidence. */
  changedEvidence: { id: string; level: CheckResult["level"]; from: string; to: string }[];
  added: string[];
  removed: string[];
}

const failing = (s: CheckStatus | "absent") => s === "failed" || s === "broken";

export function diffReports(before: RunResult, after: RunResult): ReportDiff {
  const oldById = new Map(before.checks.map((c) => [c.id, c]));
  const newById = new Map(after.checks.map((c) => [c.id, c]));
  const ids = [...new Set([...oldById.keys(), ...newById.keys()])].sort();
  const out: ReportDiff = {
    old: header(before),
    new: header(after),
    regressed: [],
    fixed: [],
    changedStatus: [],
    changedLevel: [],
    changedEvidence: [],
    added: ids.filter((id) => !oldById.has(id)),
    removed: ids.filter((id) => !newById.has(id)),
  };
  for (const id of ids) {
    const o = oldById.get(id);
    const n = newById.get(id);
    const from = o?.status ?? "absent";
    const to = n?.status ?? "absent";
    const level = (n ?? o)?.level ?? "MUST";
    const message = n?.message ?? n?.reason;
    const change: StatusChange = { id, level, from, to, ...(message === undefined ? {} : { message }) };
    if (failing(to) && !failing(from)) out.regressed.push(change);
    else if (failing(from) && to === "passed") out.fixed.push(change);
    else if (from !== to && o !== undefined && n !== undefined) out.changedStatus.push(change);
    if (o && n && o.level !== n.level) out.changedLevel.push({ id, from: o.level, to: n.level });
    if (o && n && failing(o.status) && failing(n.status)) {
      const a = evidenceOf(o);
      const b = evidenceOf(n);
      if (a !== b) out.changedEvidence.push({ id, level, from: a, to: b });
    }
  }
  return out;
}

function header(r: RunResult): ReportDiff["old"] {
  const sha = r.spec?.catalogue?.sha256;
  return {
    runId: r.runId,
    verdict: r.verdict,
    kitVersion: r.kit.version,
    ...(sha === undefined ? {} : { catalogueSha256: sha }),
  };
}

/** A failure's identity for comparison: its status, message, and the requests and statuses of its
 *  evidence (not bodies or times, which differ from run to run for the same fault). */
function evidenceOf(c: CheckResult): string {
  const exchanges = (c.evidence ?? []).map(
    (x) => `${x.request.method} ${pathOf(x.request.url)} -> ${x.response?.status ?? x.error ?? "no answer"}`,
  );
  return [`${c.status}: ${c.message ?? ""}`, ...exchanges].join("\n");
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** True when the new run fails a check the old one did not: the diff command exits 1. */
export function hasRegressions(diff: ReportDiff): boolean {
  return diff.regressed.length > 0;
}

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
