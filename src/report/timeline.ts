// Where a run's time went, as data for report.html: the checks that ran, placed on their lane along the
// run's time (CheckResult.startedMs, lane, waits), and the checks that took longest.
import type { CheckResult, RunResult } from "../result/model.ts";

export interface TimelineBar {
  check: CheckResult;
  startMs: number;
  durationMs: number;
  /** The check's waits, in ms after the run began. */
  waits: { startMs: number; ms: number }[];
}

export interface TimelineRow {
  /** "lane 1", or "one at a time" for the checks run after the lanes. */
  label: string;
  bars: TimelineBar[];
  busyMs: number;
  waitedMs: number;
}

export interface Timeline {
  spanMs: number;
  rows: TimelineRow[];
  /** Checks that ran but carry no start time (a result from an older kit): counted, not placed. */
  unplaced: number;
}

/** undefined when no check carries a start time (an event check, a report of an older kit). */
export function timelineOf(result: RunResult): Timeline | undefined {
  const ran = result.checks.filter((c) => c.status !== "skipped" || c.startedMs !== undefined);
  const placed = ran.filter((c) => c.startedMs !== undefined);
  if (placed.length === 0) return undefined;
  const end = Math.max(result.durationMs, ...placed.map((c) => (c.startedMs ?? 0) + c.durationMs));
  const byRow = new Map<number, CheckResult[]>();
  for (const c of placed) {
    const key = c.lane ?? Number.MAX_SAFE_INTEGER;
    byRow.set(key, [...(byRow.get(key) ?? []), c]);
  }
  const rows = [...byRow.entries()]
    .sort(([a], [b]) => a - b)
    .map(([lane, checks]): TimelineRow => {
      const bars = checks
        .map(
          (c): TimelineBar => ({
            check: c,
            startMs: c.startedMs ?? 0,
            durationMs: c.durationMs,
            waits: (c.waits ?? []).map((w) => ({
              startMs: (c.startedMs ?? 0) + w.atMs,
              // A wait cut short by the check's end shows only the part inside the check.
              ms: Math.max(0, Math.min(w.ms, c.durationMs - w.atMs)),
            })),
          }),
        )
        .sort((a, b) => a.startMs - b.startMs);
      return {
        label: lane === Number.MAX_SAFE_INTEGER ? "one at a time" : `lane ${lane + 1}`,
        bars,
        busyMs: bars.reduce((n, b) => n + b.durationMs, 0),
        waitedMs: bars.reduce((n, b) => n + b.waits.reduce((m, w) => m + w.ms, 0), 0),
      };
    });
  return { spanMs: Math.max(end, 1), rows, unplaced: ran.length - placed.length };
}

/** The checks that took longest (ran ones only), longest first. */
export function slowestChecks(result: RunResult, n: number): CheckResult[] {
  return [...result.checks]
    .filter((c) => c.durationMs > 0)
    .sort((a, b) => b.durationMs - a.durationMs || a.id.localeCompare(b.id))
    .slice(0, n);
}

/** "850 ms", "12.3 s", "3 min 05 s". */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}
