// Waivers: a baseline file of known failures (check id, reason, who, expiry date). Under a baseline only
// new failures fail the job; waived failures stay "failed" in every format, marked as waived, and an
// expired waiver makes its failure count again. A waived MUST failure is never conformant: the verdict
// stays NOT CONFORMANT (and never CERTIFIED); only the exit code changes (verdict.ts exitCodeOf).
import { createHash } from "node:crypto";
import { parse, stringify } from "yaml";
import type { RunResult, Waiver } from "./model.ts";
import { isWaived } from "./verdict.ts";

export const baselineVersion = 1;

export class BaselineError extends Error {
  override name = "BaselineError";
}

export interface Baseline {
  waivers: Waiver[];
  /** sha256 of the file's bytes: the report names the exact baseline it was judged under. */
  sha256: string;
}

const date = /^\d{4}-\d{2}-\d{2}$/;

/** Parses a baseline (YAML or JSON). Every problem names the entry, what was expected and what to do. */
export function parseBaseline(text: string, file: string): Baseline {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new BaselineError(
      `${file}: not YAML or JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const waivers = (data as { waivers?: unknown } | null)?.waivers;
  if (typeof data !== "object" || data === null || !Array.isArray(waivers))
    throw new BaselineError(
      `${file}: expected a mapping with a "waivers" list (write one with lckit run --baseline-update ${file})`,
    );
  const seen = new Set<string>();
  const out = waivers.map((raw, i): Waiver => {
    const where = `${file}: waivers[${i}]`;
    if (typeof raw !== "object" || raw === null)
      throw new BaselineError(
        `${where}: expected a mapping with check, reason, who, expires; got ${String(raw)}`,
      );
    const w = raw as Record<string, unknown>;
    for (const key of ["check", "reason", "who", "expires"]) {
      const value = w[key] instanceof Date ? (w[key] as Date).toISOString().slice(0, 10) : w[key];
      if (typeof value !== "string" || value.trim() === "")
        throw new BaselineError(
          `${where}: "${key}" is missing or empty; every waiver names the check, why its failure is accepted, ` +
            "who accepted it and until when (expires: YYYY-MM-DD)",
        );
      w[key] = value;
    }
    const expires = w.expires as string;
    if (!date.test(expires) || Number.isNaN(Date.parse(`${expires}T00:00:00Z`)))
      throw new BaselineError(`${where}: "expires" expects a date YYYY-MM-DD, got "${expires}"`);
    const check = w.check as string;
    if (seen.has(check))
      throw new BaselineError(`${where}: check "${check}" is waived twice; keep one entry`);
    seen.add(check);
    const unknown = Object.keys(w).filter((k) => !["check", "reason", "who", "expires"].includes(k));
    if (unknown.length > 0)
      throw new BaselineError(
        `${where}: unknown key "${unknown[0]}"; a waiver has check, reason, who, expires`,
      );
    return { check, reason: w.reason as string, who: w.who as string, expires };
  });
  return { waivers: out, sha256: createHash("sha256").update(text).digest("hex") };
}

/** A waiver holds through the whole of its expiry day (UTC). */
export function isExpired(waiver: Waiver, now: Date): boolean {
  return now.getTime() > Date.parse(`${waiver.expires}T23:59:59.999Z`);
}

/** Marks the run's failed checks with their waivers and records the baseline; the verdict reason says
 *  when every MUST failure is a known one. Returns a new result (the input is left as it was). */
export function applyBaseline(result: RunResult, baseline: Baseline, file: string, now: Date): RunResult {
  const byCheck = new Map(baseline.waivers.map((w) => [w.check, w]));
  const used = new Set<string>();
  const checks = result.checks.map((c) => {
    const w = byCheck.get(c.id);
    if (w === undefined || c.status !== "failed") return c;
    used.add(w.check);
    return { ...c, waiver: { ...w, expired: isExpired(w, now) } };
  });
  const waived = checks.filter(isWaived).map((c) => c.id);
  const expired = checks.filter((c) => c.status === "failed" && c.waiver?.expired).map((c) => c.id);
  const mustFailed = checks.filter((c) => c.status === "failed" && c.level === "MUST");
  let verdictReason = result.verdictReason;
  if (result.verdict === "NOT CONFORMANT" && mustFailed.every(isWaived))
    verdictReason +=
      `; every MUST failure is a known failure waived by the baseline ${file} (${waived.length} waived): ` +
      "no new failure, so the job does not fail, but a waived failure is never conformant";
  else if (expired.length > 0)
    verdictReason += `; ${expired.length} waivers of the baseline expired: those failures count again`;
  return {
    ...result,
    checks,
    verdictReason,
    baseline: {
      file,
      sha256: baseline.sha256,
      waivers: baseline.waivers.length,
      waived,
      expired,
      unused: baseline.waivers.filter((w) => !used.has(w.check)).map((w) => w.check),
    },
  };
}

/** A baseline from a run: every failed check, keeping the reason, who and expiry of waivers an earlier
 *  baseline gave it; new entries get a reason naming the run, `who`, and an expiry `days` ahead. Checks
 *  that pass now drop out (their waiver is no longer needed). */
export function baselineFromRun(
  result: RunResult,
  previous: Baseline | undefined,
  who: string,
  now: Date,
  days = 90,
): string {
  const old = new Map((previous?.waivers ?? []).map((w) => [w.check, w]));
  const expires = new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  const waivers = result.checks
    .filter((c) => c.status === "failed")
    .map(
      (c): Waiver =>
        old.get(c.id) ?? {
          check: c.id,
          reason: `${c.level} failure seen in run ${result.runId}: ${(c.message ?? "").replace(/\s+/g, " ").slice(0, 160)}`,
          who,
          expires,
        },
    );
  return (
    "# lckit baseline: known failures. Under `lckit run --baseline FILE` only new failures fail the job.\n" +
    "# Review each reason, who accepted it and its expiry (YYYY-MM-DD); an expired waiver fails again.\n" +
    stringify({ baselineVersion, waivers })
  );
}
