// The check factories about a scan's sort: a sorted scroll follows its order across pages, and every
// top-level scalar field is accepted as sort (the kit's choice).
import fc from "fast-check";
import type { Check, CheckContext } from "../../src/check/index.ts";
import { checkProperty } from "./property.ts";
import { ensure, isClientError, judgeSuccess } from "./response-judges.ts";
import { judgeCaseOrder } from "./scan-case-judges.ts";
import { exploreSpace, visitSmallLimitCases } from "./scan-explorer.ts";
import { ensureEnded, judgeOrder } from "./scan-judges.ts";
import { limitArb } from "./scan-limits.ts";
import { readScroll, referenceRead, scrollPages } from "./scan-reads.ts";
import { SpaceLog } from "./scan-space.ts";
import { type Ids, type ScanRecordShape, type ScanSubject, subjectReadCheck } from "./scan-subject.ts";

/** Pages an order case reads: the first page boundary, across which a sort per page only breaks order. The
 *  documented sort is read whole in both directions besides. */
const ORDER_PAGES = 2;

const orderArb = fc.constantFrom<"asc" | "desc">("asc", "desc");

/**
 * When the target accepts a sort, the whole scroll follows it; documented sort fields must be accepted.
 * `alsoScans` names scans of a part of the records (the per-type autopilot scan) whose sorted scrolls are
 * judged the same way.
 */
export function orderCheck(
  subject: ScanSubject,
  ids: Ids,
  alsoScans?: (
    all: ScanRecordShape[],
    ctx: CheckContext,
  ) => { subject: ScanSubject; records: ScanRecordShape[] }[],
): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    // First, before any other sorted scroll: sorted scrolls at limits of 1 to 3, whose first page a target
    // may pick apart from the later pages (read by the exactly-once check too: recorded, read once).
    const log = new SpaceLog(ctx);
    try {
      await visitSmallLimitCases(ctx, subject, all, judgeCaseOrder, log);
    } catch (error) {
      log.done();
      throw error;
    }
    // Both directions of a sort the document names, read whole at the largest page, whatever the
    // property draws below (a handful of runs may draw one direction only).
    const documented = subject.documentedSortFields[0];
    if (documented !== undefined)
      for (const order of ["asc", "desc"] as const) {
        const query = { sort: documented, order, limit: 100 };
        const { result } = await readScroll(ctx, subject, query, all.length, { untilCap: true });
        judgeOrder(subject, result, documented, order, `sort=${documented}&order=${order}&limit=100`);
      }
    await checkProperty(
      ctx,
      fc.asyncProperty(
        fc.constantFrom(...subject.sortFields),
        orderArb,
        // Order is judged within pages and across the first page boundary, which every limit below the
        // total shows: the largest pages (100, 99) most of the time, any other limit now and then.
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(100, 99) },
          { weight: 1, arbitrary: limitArb(all.length) },
        ),
        async (sort, order, limit) => {
          const query = { sort, order, limit };
          const result = await scrollPages(ctx, subject, query, ORDER_PAGES);
          const refused = result.pages.length === 0 && isClientError(result.failure?.status ?? 0);
          // The document does not list permitted sort fields: a refusal of another one is acceptable.
          if (refused && !subject.documentedSortFields.includes(sort)) return;
          const endless = result.end === "page-cap" || result.end === "repeated-scroll-id";
          if (!endless) ensureEnded(result, `${subject.name} ${JSON.stringify(query)}`);
          judgeOrder(subject, result, sort, order, `sort=${sort}&order=${order}&limit=${limit}`);
        },
      ),
    );
    // Every page of whole scrolls, under filters too, at the boundaries of the space.
    try {
      await exploreSpace(ctx, subject, all, judgeCaseOrder, { sortedOnly: true, log });
      for (const part of alsoScans?.(all, ctx) ?? [])
        await exploreSpace(ctx, part.subject, part.records, judgeCaseOrder, { sortedOnly: true, log });
    } finally {
      log.done();
    }
  });
}

/** Every top-level scalar field is accepted as sort. */
export function sortFieldsAcceptedCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    for (const sort of subject.sortFields) {
      for (const order of ["asc", "desc"] as const) {
        // The first page of the scroll the order check reads too (recorded once for both).
        const result = await scrollPages(ctx, subject, { sort, order, limit: 100 }, 1);
        if (result.pages.length === 0 && result.failure)
          ensure(judgeSuccess(result.failure, `${subject.name} sort=${sort}&order=${order}`));
        judgeOrder(subject, result, sort, order, `sort=${sort}&order=${order}&limit=100`);
      }
    }
  });
}
