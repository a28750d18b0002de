// The lookups scan: POST {rdm_url}/lookups/{tenantId}/_scan with limit, filter, sort and order.

import { type Check, explore } from "../src/check/index.ts";
import { typeName } from "./support/data-operations.ts";
import { lookupRules, recordsProblem } from "./support/record-fields.ts";
import { ensure } from "./support/response-judges.ts";
import { filterGrammarCheck, filterTypeNameCheck } from "./support/scan-filter-checks.ts";
import { orderCheck } from "./support/scan-order-checks.ts";
import { distinct, readScroll, referenceRead } from "./support/scan-reads.ts";
import { sharedScanChecks } from "./support/scan-shared-checks.ts";
import { type ScanSubject, subjectReadCheck } from "./support/scan-subject.ts";

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

const shared = sharedScanChecks(lookupScan, {
  scan: ["a", "lookups scan"],
  record: ["lookup", "lookups"],
  requirements: ["LOOKUP-SCAN-01", "LOOKUP-SCAN-02", "LOOKUP-SCAN-03", "LOOKUP-SCAN-04"],
});

export const lookupScanChecks: Check[] = [
  ...shared.paging,
  orderCheck(lookupScan, {
    id: "lookup-scan/order-respected",
    title: "MUST order the whole scroll by the sort field in the requested order, on every page",
    requirements: ["SCAN-06", "LOOKUP-SCAN-02"],
  }),
  shared.filterEqualsExact,
  subjectReadCheck(
    lookupScan,
    {
      id: "lookup-scan/record-fields",
      title: "MUST give the fields of every lookup the document's types (optional fields may be absent)",
      requirements: ["LOOKUP-01", "LOOKUP-02", "LOOKUP-03", "LOOKUP-04"],
    },
    async (ctx) => {
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
  ),
  shared.scanEnds,
  ...shared.scrollHandling,
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
  shared.limitOutOfRange,
];
