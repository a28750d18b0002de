// The limits a scan is read at: the boundary limits read whole within a page budget, and the small ones probed
// by partial scrolls.
import fc from "fast-check";
import { type CheckContext, runsAtDepth } from "../../src/check/index.ts";
import type { FullScanResult } from "../../src/client/index.ts";
import { ensureEnded } from "./scan-judges.ts";
import { scrollPages, smallestLimit } from "./scan-reads.ts";
import type { ScanRecordShape, ScanSubject } from "./scan-subject.ts";

/** Pages a limit is allowed to cost as a whole scroll: smaller limits are probed by partial scrolls. A
 *  fault at page boundaries shows at every boundary, so six pages show it five times over. */
const FULL_READ_PAGES = 6;

/** Pages a partial scroll reads at a small limit: three page boundaries to show a repeat or an overflow. */
export const PARTIAL_PAGES = 4;

/** Smallest limit whose whole scroll of `total` records stays within FULL_READ_PAGES pages. */
function fullReadFloor(total: number, least: number): number {
  return Math.min(100, Math.max(least, smallestLimit(total), Math.ceil(total / FULL_READ_PAGES)));
}

/**
 * Limits that matter for a scroll of `total` records, each read whole: 100 and 99 (the largest pages),
 * the smallest limit at which the last page is exactly full, the smallest at which it holds one record,
 * and (for a small set) total - 1, total and total + 1; the rest of the cases draw from the whole range the
 * floor allows. Identical reads are recorded once (see recorded-scrolls.ts), so repeated draws cost nothing.
 */
export function boundaryLimits(total: number, least = 1): number[] {
  const floor = fullReadFloor(total, least);
  const candidates = [100, 99, 1, 2, total - 1, total, total + 1];
  // Most pages (most boundaries) within the budget: the limit whose pages split the records exactly, and
  // the one that leaves a single record on the last page.
  const within = (l: number) => Number.isInteger(l) && l >= floor && l <= 100;
  for (const rest of [0, 1]) {
    for (let pages = FULL_READ_PAGES; pages >= 2; pages--) {
      const limit = (total - rest) / pages;
      if (within(limit)) {
        candidates.push(limit);
        break;
      }
    }
  }
  return [...new Set(candidates.filter(within))].sort((a, b) => a - b);
}

export const limitArb = (total: number, least = 1) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...boundaryLimits(total, least)) },
    { weight: 1, arbitrary: fc.integer({ min: fullReadFloor(total, least), max: 100 }) },
  );

/**
 * Draws of a limits property (limitArb) at the default depth. Three in four draw a boundary limit, which the
 * checks read first (recorded: drawn again, it costs nothing); the rest read a whole scroll of their own.
 * Four draws add about one such limit per seed (another each seed), where the run's ten added two or three
 * (the checks that draw them share the seed, so the one that draws most decides the cost); deep, every run.
 */
export function limitRuns(ctx: Pick<CheckContext, "depth" | "runs">): number {
  return runsAtDepth(ctx, 4);
}

/** Limits below the full-read floor (1, 2, the smallest the kit uses), probed with partial scrolls. */
export function partialLimits(total: number, least = 1): number[] {
  const floor = fullReadFloor(total, least);
  return [...new Set([1, 2, smallestLimit(total)])].filter((l) => l >= least && l < floor);
}

/** The first PARTIAL_PAGES pages of a scroll at a small limit (recorded like any other read). */
export async function partialScroll(ctx: CheckContext, subject: ScanSubject, limit: number) {
  const result = await scrollPages(ctx, subject, { limit }, PARTIAL_PAGES);
  // A partial scroll judges pages, not the end: one that stops early or makes no progress is the ends
  // and exactly-once checks' finding (as with readScroll's untilCap).
  const endless = result.end === "page-cap" || result.end === "repeated-scroll-id";
  if (!endless) ensureEnded(result, `${subject.name} with limit=${limit}`);
  return result as FullScanResult<ScanRecordShape>;
}
