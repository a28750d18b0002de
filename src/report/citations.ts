// Where a check's evidence is in the report folder, in one short line: the entries of evidence.har that
// hold the exchanges its result rests on (CheckResult.harEntries, indexes of log.entries), the exchange
// ids when no HAR was written, the lines of events.ndjson for an event check. Ranges keep it compact: a
// property check may cite thousands of entries.
import { EVENTS_FILE, HAR_FILE } from "../result/evidence.ts";
import type { CheckResult } from "../result/model.ts";

/** Ranges a line lists at most; the rest are counted. */
const MAX_RANGES = 8;

/** "evidence.har log.entries[3-5, 9]" / "events.ndjson lines 2, 7" / "exchanges 12-14 (...)"; undefined
 *  when the check cites nothing. */
export function evidenceLocation(check: CheckResult): string | undefined {
  const parts: string[] = [];
  const entries = check.harEntries ?? [];
  const ids = check.exchangeIds ?? [];
  if (entries.length > 0) parts.push(`${HAR_FILE} log.entries[${ranges(entries)}]`);
  else if (ids.length > 0) parts.push(`exchanges ${ranges(ids)} (--har keeps them in ${HAR_FILE})`);
  const lines = check.eventLines ?? [];
  if (lines.length > 0)
    parts.push(`${EVENTS_FILE} ${lines.length === 1 ? "line" : "lines"} ${ranges(lines)}`);
  return parts.length === 0 ? undefined : parts.join("; ");
}

/** "3-5, 9, 12-40": sorted, runs of consecutive numbers joined, at most MAX_RANGES then "and N more". */
export function ranges(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const n of sorted) {
    const last = runs.at(-1);
    if (last !== undefined && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  const shown = runs.slice(0, MAX_RANGES).map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
  const hidden = runs.slice(MAX_RANGES).reduce((sum, [a, b]) => sum + b - a + 1, 0);
  return hidden === 0 ? shown.join(", ") : `${shown.join(", ")} and ${hidden} more`;
}
