// The lookups scan: POST {rdm_url}/lookups/{tenantId}/_scan with limit, filter, sort and order.

import { type Check, explore } from "../src/check/index.ts";
import { typeName } from "./support/data-operations.ts";
import { defineCheck } from "./support/define.ts";
import { lookupRules, recordsProblem } from "./support/record-fields.ts";
import { ensure } from "./support/response-judges.ts";
import { filterCheck, filterGrammarCheck, filterTypeNameCheck } from "./support/scan-filter-checks.ts";
import { limitOutOfRangeCheck, pageWithinLimitCheck } from "./support/scan-limit-checks.ts";
import { exactlyOnceCheck } from "./support/scan-once-checks.ts";
import { orderCheck, sortFieldsAcceptedCheck } from "./support/scan-order-checks.ts";
import { distinct, readScroll, referenceRead } from "./support/scan-reads.ts";
import {
  endsCheck,
  endWithoutScrollIdCheck,
  firstPageNullBodyCheck,
  scrollBodyCheck,
  unknownScrollIdCheck,
} from "./support/scan-scroll-checks.ts";
import type { ScanSubject } from "./support/scan-subject.ts";
import { scrollIdEncodingFact } from "./support/scroll-encoding.ts";

export const lookupScan: ScanSubject = {
  suite: "lookup-scan",
  name: "the lookups scan",
  scan: "lookups",
  role: "admin",
  endpoint: (ctx) => ({ kind: "lookups", tenantId: ctx.target.tenant }),
  identity: (r) => `${typeName(String(r.type))}/${String(r.code)}`,
  sortFields: ["code", "type", "updateDate", "version", "enabled", "updatedBy", "startDate", "endDate"],
  // The document's sample sorts by code.
  documentedSortFields: ["code"],
  filterFields: ["type", "code"],
  typeFields: ["type"],
};

export const lookupScanChecks: Check[] = [
  firstPageNullBodyCheck(lookupScan, {
    id: "lookup-scan/first-page-null-body",
    title: "MUST answer the first lookups scan request with no body or a null body alike",
    requirements: ["SCAN-01", "LOOKUP-SCAN-01"],
  }),
  exactlyOnceCheck(lookupScan, {
    id: "lookup-scan/every-record-once",
    title:
      "MUST return every lookup exactly once across the pages of a scroll, for any limit, sort, order and filter",
    requirements: ["SCAN-02", "SCAN-03", "SCAN-04", "LOOKUP-SCAN-01", "LOOKUP-SCAN-02"],
  }),
  pageWithinLimitCheck(lookupScan, {
    id: "lookup-scan/page-within-limit",
    title: "MUST never return more lookups on a page than the limit asked for",
    requirements: ["LOOKUP-SCAN-03", "LOOKUP-SCAN-02"],
  }),
  orderCheck(lookupScan, {
    id: "lookup-scan/order-respected",
    title: "MUST order the whole scroll by the sort field in the requested order, on every page",
    requirements: ["SCAN-06", "LOOKUP-SCAN-02"],
  }),
  filterCheck(lookupScan, {
    id: "lookup-scan/filter-equals-exact",
    title: "MUST return exactly the lookups matching an equals(field,'value') filter",
    requirements: ["SCAN-07", "LOOKUP-SCAN-02"],
  }),
  defineCheck({
    id: "lookup-scan/record-fields",
    title: "MUST give the fields of every lookup the document's types (optional fields may be absent)",
    requirements: ["LOOKUP-01", "LOOKUP-02", "LOOKUP-03", "LOOKUP-04"],
    safety: "read",
    facts: [scrollIdEncodingFact],
    needs: { roles: ["admin"] },
    async run(ctx) {
      const records = await referenceRead(ctx, lookupScan);
      ensure(recordsProblem(records, lookupRules, lookupScan.identity), "the lookups scan");
      // A sorted scroll may take another path through a provider: its records are judged too (the order
      // check reads the same scroll, so it is usually recorded already).
      const query = { sort: "code", order: "desc" as const, limit: 100 };
      const sorted = await readScroll(ctx, lookupScan, query, records.length, { untilCap: true });
      ensure(
        recordsProblem(distinct(lookupScan, sorted.records), lookupRules, lookupScan.identity),
        "the lookups scan sorted by code",
      );
      explore(ctx, "sort field", "none");
      explore(ctx, "sort field", "code");
      explore(ctx, "pages read", String(sorted.result.pages.length));
    },
  }),
  endsCheck(lookupScan, {
    id: "lookup-scan/scan-ends",
    title: "MUST end the lookups scan after finitely many pages",
    requirements: ["SCAN-05"],
  }),
  scrollBodyCheck(lookupScan, {
    id: "lookup-scan/scroll-id-bodies-accepted",
    title: 'SHOULD accept the next-page scroll id as {"scrollId"}, as raw text and as a JSON string',
    requirements: ["SCAN-08"],
  }),
  endWithoutScrollIdCheck(lookupScan, {
    id: "lookup-scan/end-without-scroll-id",
    title: "SHOULD signal the end of the lookups scan by a page without scrollId",
    requirements: ["SCAN-09"],
  }),
  unknownScrollIdCheck(lookupScan, {
    id: "lookup-scan/unknown-scroll-id-400",
    title: "SHOULD refuse an unknown scroll id with 400",
    requirements: ["SCAN-12"],
  }),
  sortFieldsAcceptedCheck(lookupScan, {
    id: "lookup-scan/sort-fields-accepted",
    title: "SHOULD accept every top-level scalar field of a lookup as sort field",
    requirements: ["SCAN-10"],
  }),
  filterTypeNameCheck(lookupScan, {
    id: "lookup-scan/filter-type-name",
    title: "SHOULD match equals(type,'<type_name>') against lookups of type rdm/lookupTypes/<type_name>",
    requirements: ["LOOKUP-SCAN-05"],
  }),
  filterGrammarCheck(lookupScan, {
    id: "lookup-scan/filter-grammar",
    title: "SHOULD support the kit's filter grammar and refuse an unknown operator with 400 naming it",
    requirements: ["SCAN-11"],
  }),
  limitOutOfRangeCheck(lookupScan, {
    id: "lookup-scan/limit-out-of-range-400",
    title: "SHOULD refuse a lookups scan limit outside 1..100 with 400",
    requirements: ["LOOKUP-SCAN-04"],
  }),
];
