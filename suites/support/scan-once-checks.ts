// The check factory of SCAN-04: pages of any limit together hold every record exactly once.
import fc from "fast-check";
import { type Check, type CheckContext, fail } from "../../src/check/index.ts";
import { checkProperty } from "./property.ts";
import { judgeOnce } from "./scan-case-judges.ts";
import { exploreSpace, visitSmallLimitCases } from "./scan-explorer.ts";
import {
  counts,
  failFinding,
  few,
  identityFinding,
  pageIdentities,
  pagesHolding,
  requestDetail,
} from "./scan-judges.ts";
import {
  boundaryLimits,
  limitArb,
  limitRuns,
  PARTIAL_PAGES,
  partialLimits,
  partialScroll,
} from "./scan-limits.ts";
import { readScroll, referenceRead } from "./scan-reads.ts";
import { SpaceLog } from "./scan-space.ts";
import { type Ids, type ScanRecordShape, type ScanSubject, subjectReadCheck } from "./scan-subject.ts";

/** Pages of any limit together hold every record exactly once, unsorted and under every sort, order and
 *  filter of the scan's space (exploreSpace), sorted scrolls at limits of 1 to 3 among them. */
export function exactlyOnceCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject, { strict: true });
    const log = new SpaceLog(ctx);
    try {
      // First, before any other sorted scroll: sorted scrolls at limits of 1 to 3 (a first page picked apart
      // from the later pages must agree with them on ties).
      await visitSmallLimitCases(ctx, subject, all, judgeOnce, log);
      await unsortedOnce(ctx, subject, all, log);
      await exploreSpace(ctx, subject, all, judgeOnce, { log });
    } finally {
      log.done();
    }
  });
}

/** Every record once in unsorted, unfiltered scrolls: partial scrolls at small limits, whole ones at the
 *  limits that matter. */
async function unsortedOnce(
  ctx: CheckContext,
  subject: ScanSubject,
  all: ScanRecordShape[],
  log: SpaceLog,
): Promise<void> {
  const expected = all.map(subject.identity);
  // Small limits cost a request per record or two: their first pages show a record repeated at a page
  // boundary, or one the scan was never meant to hold; the whole-scroll cases below show a lost one.
  const known = new Set(expected);
  for (const limit of partialLimits(all.length)) {
    const result = await partialScroll(ctx, subject, limit);
    const ids = result.records.map(subject.identity);
    const repeatedIds = [...counts(ids)].filter(([, n]) => n > 1);
    const repeated = repeatedIds.map(([id, n]) => `${id} (x${n})`);
    const unknown = ids.filter((id) => !known.has(id));
    if (repeated.length > 0 || unknown.length > 0) {
      const problems = [
        repeated.length > 0 ? `repeated: ${few(repeated)}` : "",
        unknown.length > 0 ? `not in the scan without parameters: ${few(unknown)}` : "",
      ]
        .filter(Boolean)
        .join("; ");
      const record = repeatedIds[0]?.[0] ?? (unknown[0] as string);
      fail(`${subject.name} with limit=${limit}, first ${PARTIAL_PAGES} pages: ${problems}`, {
        expected: "each record of the scan without parameters at most once",
        actual: problems,
        record,
        pages: pagesHolding(pageIdentities(subject, result), record),
        ...requestDetail(result),
      });
    }
  }
  const judge = async (limit: number) => {
    const { result, records } = await readScroll(ctx, subject, { limit }, all.length);
    log.note(
      subject.scan ?? subject.name,
      { limit },
      all.length,
      result.pages.map((p) => p.values as ScanRecordShape[]),
    );
    failFinding(
      identityFinding(expected, records.map(subject.identity), {
        pages: pageIdentities(subject, result),
      }),
      `${subject.name} with limit=${limit}`,
      result.pages[0]?.response.request,
    );
  };
  // The limits that matter first, whatever the property draws; its cases then add others (a limit drawn
  // again is read once: see recorded-scrolls.ts).
  for (const limit of boundaryLimits(all.length)) await judge(limit);
  await checkProperty(ctx, fc.asyncProperty(limitArb(all.length), judge), { numRuns: limitRuns(ctx) });
}
