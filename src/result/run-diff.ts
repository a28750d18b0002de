// What changed between two runs (their report.json files), so a nightly job can say "2 checks regressed
// since yesterday". Pure: reads two RunResults, returns data; src/report/diff.ts renders it.
import type { CheckResult, CheckStatus, RunResult } from "./model.ts";

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
