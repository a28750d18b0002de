// The checks the document asks of both scans alike (the lookups scan and the autopilot statistics scan):
// one table, each scan naming only its words and its own requirement ids. A suite file lists them in its
// order between the checks that are its own.
import type { Check } from "../../src/check/index.ts";
import { filterCheck } from "./scan-filter-checks.ts";
import { limitOutOfRangeCheck, pageWithinLimitCheck } from "./scan-limit-checks.ts";
import { exactlyOnceCheck } from "./scan-once-checks.ts";
import { sortFieldsAcceptedCheck } from "./scan-order-checks.ts";
import {
  endsCheck,
  endWithoutScrollIdCheck,
  firstPageNullBodyCheck,
  scrollBodyCheck,
  unknownScrollIdCheck,
} from "./scan-scroll-checks.ts";
import type { ScanSubject } from "./scan-subject.ts";

/** How a scan's check titles name it, and the requirement ids of the scan's own section. */
export interface ScanWords {
  /** The scan with its article: ["a", "lookups scan"]. */
  scan: readonly [string, string];
  /** One record and more: ["lookup", "lookups"]. */
  record: readonly [string, string];
  /** The ids of the scan endpoint itself, of its paging parameters (limit, filter, sort, order), of its
   *  limit (the page's bound) and of its limit's range. */
  requirements: readonly [endpoint: string, parameters: string, limit: string, limitRange: string];
}

/** The shared checks of one scan, in groups that stand together in both suites. */
export function sharedScanChecks(subject: ScanSubject, words: ScanWords) {
  const id = (name: string) => `${subject.suite}/${name}`;
  const [endpoint, parameters, limit, limitRange] = words.requirements;
  const [article, scan] = words.scan;
  const [record, records] = words.record;
  return {
    /** The first page and the paging of a whole scroll. */
    paging: [
      firstPageNullBodyCheck(subject, {
        id: id("first-page-null-body"),
        title: `MUST answer the first ${scan} request with no body or a null body alike`,
        requirements: ["SCAN-01", endpoint],
      }),
      exactlyOnceCheck(subject, {
        id: id("every-record-once"),
        title: `MUST return every ${record} exactly once across the pages of a scroll, for any limit, sort, order and filter`,
        requirements: ["SCAN-02", "SCAN-03", "SCAN-04", endpoint, parameters],
      }),
      pageWithinLimitCheck(subject, {
        id: id("page-within-limit"),
        title: `MUST never return more ${records} on a page than the limit asked for`,
        requirements: [limit, parameters],
      }),
    ] as Check[],
    filterEqualsExact: filterCheck(subject, {
      id: id("filter-equals-exact"),
      title: `MUST return exactly the ${records} matching an equals(field,'value') filter`,
      requirements: ["SCAN-07", parameters],
    }),
    scanEnds: endsCheck(subject, {
      id: id("scan-ends"),
      title: `MUST end the ${scan} after finitely many pages`,
      requirements: ["SCAN-05"],
    }),
    /** How the scroll id travels and how the scroll ends, and which sort fields it takes. */
    scrollHandling: [
      scrollBodyCheck(subject, {
        id: id("scroll-id-bodies-accepted"),
        title: 'SHOULD accept the next-page scroll id as {"scrollId"}, as raw text and as a JSON string',
        requirements: ["SCAN-08"],
      }),
      endWithoutScrollIdCheck(subject, {
        id: id("end-without-scroll-id"),
        title: `SHOULD signal the end of the ${scan} by a page without scrollId`,
        requirements: ["SCAN-09"],
      }),
      unknownScrollIdCheck(subject, {
        id: id("unknown-scroll-id-400"),
        title: "SHOULD refuse an unknown scroll id with 400",
        requirements: ["SCAN-12"],
      }),
      sortFieldsAcceptedCheck(subject, {
        id: id("sort-fields-accepted"),
        title: `SHOULD accept every top-level scalar field of a ${record} as sort field`,
        requirements: ["SCAN-10"],
      }),
    ] as Check[],
    limitOutOfRange: limitOutOfRangeCheck(subject, {
      id: id("limit-out-of-range-400"),
      title: `SHOULD refuse ${article} ${scan} limit outside 1..100 with 400`,
      requirements: [limitRange],
    }),
  };
}
