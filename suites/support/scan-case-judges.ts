// The judges of one case of a scan's space (scan-explorer.ts): every record once, in order, as filtered, within
// the limit.
import type { CaseJudge, CaseRead } from "./scan-explorer.ts";
import {
  ensureEnded,
  failFilterFinding,
  failFinding,
  fieldMatches,
  identityFinding,
  judgeOrder,
  overfullPage,
  pageIdentities,
} from "./scan-judges.ts";
import { describeCase } from "./scan-space.ts";

/** A scroll that answered something other than a page fails every judge; one that does not end fails the
 *  exactly-once judge only (the others judge the pages that came). */
function ensurePages(read: CaseRead, strict: boolean): void {
  const { result } = read;
  const endless = result.end === "page-cap" || result.end === "repeated-scroll-id";
  if (strict || !endless) ensureEnded(result, `${read.subject.name} ${describeCase(read.case)}`);
}

/**
 * Each record the case selects, exactly once, across every page (SCAN-04): none repeated, none lost at a
 * boundary, whatever the sort, order, filter and limit. A record equal to the filter value but for case may
 * come, once; a record the filter does not match at all is the filter check's finding, not this one's, and
 * with `foreign: "ignore"` (a scan of a part, such as one lookup type) so is a record outside the part.
 */
export function onceJudge(options: { foreign?: "fail" | "ignore" } = {}): CaseJudge {
  return (read) => {
    ensurePages(read, true);
    const { case: c, subject, expected, tolerated, result } = read;
    const allowed = new Set(tolerated.map(subject.identity));
    const came = result.records.map(subject.identity);
    const judged = c.filter || options.foreign === "ignore" ? came.filter((id) => allowed.has(id)) : came;
    const want = [...expected.map(subject.identity), ...judged];
    failFinding(
      identityFinding(c.filter ? want : expected.map(subject.identity), judged, {
        pages: pageIdentities(subject, result),
      }),
      `${subject.name} ${describeCase(c)}`,
      result.pages[0]?.response.request,
    );
  };
}

export const judgeOnce: CaseJudge = onceJudge();

/** The order of the sort field across every page read (SCAN-06); ties in any order. */
export const judgeCaseOrder: CaseJudge = (read) => {
  const { case: c, subject, result } = read;
  if (c.sort === undefined) return;
  ensurePages(read, false);
  judgeOrder(subject, result, c.sort, c.order ?? "asc", describeCase(c));
};

/** Exactly the records the filter matches (SCAN-07), under the case's sort and limit too: none missing,
 *  none that does not match (equal but for case is a match: the document leaves case open). */
export const judgeCaseFilter: CaseJudge = (read) => {
  const { case: c, subject, expected, tolerated, result } = read;
  const filter = c.filter;
  if (filter === undefined) return;
  ensurePages(read, false);
  const came = result.records;
  const got = new Set(came.map(subject.identity));
  const allowed = new Set(tolerated.map(subject.identity));
  const missing = expected.map(subject.identity).filter((id) => !got.has(id));
  // Each answered record is judged by its own field, so a record the reference read lost does not count.
  const extra = came
    .filter(
      (r) =>
        !allowed.has(subject.identity(r)) &&
        !fieldMatches(r, filter.field, filter.value, { ignoreCase: true }),
    )
    .map(subject.identity);
  failFilterFinding(subject, result, {
    context: `${subject.name} ${describeCase(c)}`,
    wanted: `exactly the ${expected.length} records whose ${filter.field} is ${filter.value}`,
    field: filter.field,
    missing,
    extra,
  });
};

/** No page above the case's limit. */
export const judgeCaseLimit: CaseJudge = (read) => {
  ensurePages(read, false);
  overfullPage(read.subject, read.result, read.case.limit);
};
