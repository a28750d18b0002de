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
  /** "lookups scan" */
  scan: string;
  /** The scan with its article: "a lookups scan". */
  aScan: string;
  /** "lookup" / "lookups" */
  record: string;
  records: string;
  requirements: {
    /** The section's id of the scan endpoint itself. */
    endpoint: string;
    /** The ids of its paging parameters (limit, filter, sort, order). */
    parameters: string;
    /** The id of its limit: the page's bound. */
    limit: string;
    /** The id of its limit's range. */
    limitRange: string;
  };
}

/** The shared checks of one scan, in groups that stand together in both suites. */
export function sharedScanChecks(subject: ScanSubject, words: ScanWords) {
  const id = (name: string) => `${subject.suite}/${name}`;
  const req = words.requirements;
  return {
    /** The first page and the paging of a whole scroll. */
    paging: [
      firstPageNullBodyCheck(subject, {
        id: id("first-page-null-body"),
        title: `MUST answer the first ${words.scan} request with no body or a null body alike`,
        requirements: ["SCAN-01", req.endpoint],
      }),
      exactlyOnceCheck(subject, {
        id: id("every-record-once"),
        title: `MUST return every ${words.record} exactly once across the pages of a scroll, for any limit, sort, order and filter`,
        requirements: ["SCAN-02", "SCAN-03", "SCAN-04", req.endpoint, req.parameters],
      }),
      pageWithinLimitCheck(subject, {
        id: id("page-within-limit"),
        title: `MUST never return more ${words.records} on a page than the limit asked for`,
        requirements: [req.limit, req.parameters],
      }),
    ] as Check[],
    filterEqualsExact: filterCheck(subject, {
      id: id("filter-equals-exact"),
      title: `MUST return exactly the ${words.records} matching an equals(field,'value') filter`,
      requirements: ["SCAN-07", req.parameters],
    }),
    scanEnds: endsCheck(subject, {
      id: id("scan-ends"),
      title: `MUST end the ${words.scan} after finitely many pages`,
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
        title: `SHOULD signal the end of the ${words.scan} by a page without scrollId`,
        requirements: ["SCAN-09"],
      }),
      unknownScrollIdCheck(subject, {
        id: id("unknown-scroll-id-400"),
        title: "SHOULD refuse an unknown scroll id with 400",
        requirements: ["SCAN-12"],
      }),
      sortFieldsAcceptedCheck(subject, {
        id: id("sort-fields-accepted"),
        title: `SHOULD accept every top-level scalar field of a ${words.record} as sort field`,
        requirements: ["SCAN-10"],
      }),
    ] as Check[],
    limitOutOfRange: limitOutOfRangeCheck(subject, {
      id: id("limit-out-of-range-400"),
      title: `SHOULD refuse ${words.aScan} limit outside 1..100 with 400`,
      requirements: [req.limitRange],
    }),
  };
}
