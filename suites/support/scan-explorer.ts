// The space of a scan explored (its cases: scan-space.ts): each case read whole and handed to a judge, the
// boundary cases first, then draws of the whole space, every read noted in the exploration log.
import fc from "fast-check";
import { type CheckContext, depthOf, explore } from "../../src/check/index.ts";
import type { FullScanResult } from "../../src/client/index.ts";
import { checkProperty } from "./property.ts";
import { isClientError } from "./response-judges.ts";
import { fieldMatches } from "./scan-judges.ts";
import { scrollPages } from "./scan-reads.ts";
import {
  type Boundary,
  caseQuery,
  casesAt,
  pageBudget,
  type SpaceCase,
  SpaceLog,
  selected,
  smallLimitCases,
  sortFieldsByTies,
  spaceArb,
  spaceFilters,
  spaceRuns,
} from "./scan-space.ts";
import type { ScanRecordShape, ScanSubject } from "./scan-subject.ts";

/** A case of the space read as far as it goes: the records it must hold, those it may hold besides (equal
 *  to the filter value but for case: whether equals ignores case is not shown), and what came. */
export interface CaseRead {
  case: SpaceCase;
  subject: ScanSubject;
  expected: ScanRecordShape[];
  tolerated: ScanRecordShape[];
  result: FullScanResult<ScanRecordShape>;
}

/** One case read whole (recorded: every check of the run that reads it shares one read); undefined when
 *  the target refuses a sort field the document does not name, which it may. */
async function readCase(
  ctx: CheckContext,
  subject: ScanSubject,
  all: ScanRecordShape[],
  c: SpaceCase,
): Promise<CaseRead | undefined> {
  const expected = selected(all, c);
  const filter = c.filter;
  const tolerated = filter
    ? all.filter((r) => fieldMatches(r, filter.field, filter.value, { ignoreCase: true }))
    : expected;
  // A scroll holding more than the filter selects is the filter check's finding: read it to its end.
  const maxPages = 2 * Math.ceil(all.length / c.limit) + 10;
  const result = await scrollPages(ctx, subject, caseQuery(c), maxPages);
  const refused = result.pages.length === 0 && isClientError(result.failure?.status ?? 0);
  if (refused && c.sort !== undefined && !subject.documentedSortFields.includes(c.sort)) return undefined;
  return { case: c, subject, expected, tolerated, result };
}

export type CaseJudge = (read: CaseRead) => void;

/** Notes what a scroll read outside the space reached: its scan, filter and limit. */
export function noteScroll(
  ctx: CheckContext,
  subject: ScanSubject,
  query: { filter?: string; limit?: number },
  result: FullScanResult<ScanRecordShape>,
): void {
  explore(ctx, "scan", subject.scan ?? subject.name);
  explore(ctx, "sort field", "none");
  explore(ctx, "filter", query.filter ?? "none");
  explore(ctx, "limit", query.limit ?? "none");
  explore(ctx, "last page", lastPageOf(result, query.limit ?? 100));
}

function lastPageOf(result: FullScanResult<ScanRecordShape>, limit: number): string {
  const n = result.records.length;
  return n % limit === 0 ? "exactly full" : n % limit === 1 ? "one record over" : "partial";
}

/**
 * Reads the space of a scan and judges every case read: first its boundary cases, whatever the seed (a page
 * boundary inside a run of ties of the sort value, a last page exactly full, one record over; with a sort
 * and without, with a filter and without), then draws of the whole space. By default the boundary cases
 * take the two sort fields with the most ties the target accepts (one in both orders, one under the largest
 * filter), each scroll within six pages, and two draws; deep, every accepted sort field in both orders,
 * unfiltered and under the largest filter of another field (the filter fields taken in turn), the unsorted
 * scroll under the largest filter of each field, scrolls of up to fifteen pages, and the run's draws.
 */
export async function exploreSpace(
  ctx: CheckContext,
  subject: ScanSubject,
  all: ScanRecordShape[],
  judge: CaseJudge,
  options: { sortedOnly?: boolean; filteredOnly?: boolean; log?: SpaceLog } = {},
): Promise<void> {
  const log = options.log ?? new SpaceLog(ctx);
  const visit = async (c: SpaceCase): Promise<boolean> => {
    const read = await readCase(ctx, subject, all, c);
    if (read === undefined) return false;
    log.note(
      subject.scan ?? subject.name,
      c,
      read.expected.length,
      read.result.pages.map((p) => p.values as ScanRecordShape[]),
    );
    judge(read);
    return true;
  };
  try {
    const wanted = (c: SpaceCase) =>
      (!options.sortedOnly || c.sort !== undefined) && (!options.filteredOnly || c.filter !== undefined);
    const visitWanted = async (c: SpaceCase) => (wanted(c) ? visit(c) : true);
    if (all.length > 0) await visitBoundaries(ctx, subject, all, visitWanted, options.sortedOnly === true);
    const pages = pageBudget(ctx);
    await checkProperty(
      ctx,
      fc.asyncProperty(spaceArb(subject, all, pages), async (c) => {
        if (wanted(c)) await visit(c);
      }),
      { numRuns: spaceRuns(ctx) },
    );
  } finally {
    if (!options.log) log.done();
  }
}

/**
 * Sorted scrolls at limits of 1 to 3 whose first page boundary falls in a run of tied sort values, read
 * whole (smallLimitCases): meant to be a check's first sorted scrolls, where a target may still pick a first
 * page apart from the order of the later ones. A sort the target refuses (not a documented one) is skipped.
 */
export async function visitSmallLimitCases(
  ctx: CheckContext,
  subject: ScanSubject,
  all: ScanRecordShape[],
  judge: CaseJudge,
  log: SpaceLog,
): Promise<void> {
  for (const c of smallLimitCases(subject, all)) {
    const read = await readCase(ctx, subject, all, c);
    if (read === undefined) continue;
    log.note(
      subject.scan ?? subject.name,
      c,
      read.expected.length,
      read.result.pages.map((p) => p.values as ScanRecordShape[]),
    );
    judge(read);
  }
}

async function visitBoundaries(
  ctx: CheckContext,
  subject: ScanSubject,
  all: ScanRecordShape[],
  visit: (c: SpaceCase) => Promise<boolean>,
  sortedOnly: boolean,
): Promise<void> {
  const pages = pageBudget(ctx);
  const deep = depthOf(ctx) === "deep";
  // The most selective-yet-largest filter of each field, largest first.
  const filters = spaceFilters(subject, all)
    .map((values) => values[0])
    .filter((f) => f !== undefined)
    .sort((a, b) => selected(all, { filter: b }).length - selected(all, { filter: a }).length);
  // Unsorted filtered scrolls when deep (by default the sorted ones under a filter stand for them).
  if (!sortedOnly && deep)
    for (const filter of filters)
      for (const c of casesAt(all, { filter }, pages, ["full", "over"])) await visit(c);
  const accepted: string[] = [];
  for (const sort of sortFieldsByTies(subject, all)) {
    if (!deep && accepted.length >= 2) break;
    const other = filters.filter((f) => f.field !== sort);
    // The second field of a default run sorts under the largest filter: a sort by the filtered field
    // itself would order nothing.
    if (!deep && accepted.length === 1 && filters[0] !== undefined && other[0] !== filters[0]) continue;
    // Deep: both orders unfiltered, and under one filter of another field (each sort field the next one).
    const filter = other[accepted.length % Math.max(1, other.length)];
    const under = filter ? { filter } : {};
    const plans: [Omit<SpaceCase, "limit">, Boundary[]][] = deep
      ? [
          [{ sort, order: "asc" }, ["ties", "full", "over"]],
          [{ sort, order: "desc" }, ["ties", "full", "over"]],
          [{ ...under, sort, order: "desc" }, ["ties", "full", "over"]],
          [{ ...under, sort, order: "asc" }, ["ties"]],
        ]
      : accepted.length === 0
        ? [
            [{ sort, order: "asc" }, ["ties", "full", "over"]],
            [{ sort, order: "desc" }, ["ties"]],
          ]
        : [[{ ...(other[0] ? { filter: other[0] } : {}), sort, order: "desc" }, ["ties", "full", "over"]]];
    let taken = true;
    for (const [base, which] of plans) {
      for (const c of casesAt(all, base, pages, which)) {
        taken = await visit(c);
        if (!taken) break;
      }
      if (!taken) break;
    }
    if (taken) accepted.push(sort);
  }
}
