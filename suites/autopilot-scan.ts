// The autopilot statistics scans: all lookup types, and one lookup type.

import { type Check, type CheckContext, depthOf, explore, fail, requestOf } from "../src/check/index.ts";
import { lookupTypeUri } from "../src/contract/index.ts";
import { typeName } from "./support/data-operations.ts";
import { statisticIdentity } from "./support/data-oracle.ts";
import { recordsProblem, statisticRules } from "./support/record-fields.ts";
import { ensure } from "./support/response-judges.ts";
import { judgeCaseLimit, onceJudge } from "./support/scan-case-judges.ts";
import { exploreSpace, noteScroll } from "./support/scan-explorer.ts";
import { failFinding, identityFinding, identityProblem, pageIdentities } from "./support/scan-judges.ts";
import { limitAbove100Check } from "./support/scan-limit-checks.ts";
import { orderCheck } from "./support/scan-order-checks.ts";
import { fewerThanAPage, nothingToJudge, readScroll, referenceRead } from "./support/scan-reads.ts";
import { sharedScanChecks } from "./support/scan-shared-checks.ts";
import { describeCase } from "./support/scan-space.ts";
import { type ScanSubject, subjectReadCheck } from "./support/scan-subject.ts";

const statisticFields = {
  sortFields: [
    "lookupType",
    "source",
    "unmappedValue",
    "status",
    "semanticScore",
    "currentFrequency",
    "requiredFrequency",
    "createdAt",
    "updateDate",
    "aiConfidence",
    "candidateLookupCode",
    "mappedAt",
  ],
  // The document names no sort field for these scans: any of them may be refused.
  documentedSortFields: [],
  filterFields: ["lookupType", "source", "status", "unmappedValue"],
  typeFields: ["lookupType"],
} as const;

export const autopilotScan: ScanSubject = {
  suite: "autopilot-scan",
  name: "the autopilot statistics scan",
  scan: "autopilot all types",
  role: "admin",
  endpoint: (ctx) => ({ kind: "autopilot", tenantId: ctx.target.tenant }),
  identity: statisticIdentity,
  ...statisticFields,
};

/** The per-type scan of one lookup type (its name, as the path takes it). */
export function autopilotTypeScan(lookupType: string): ScanSubject {
  return {
    suite: "autopilot-scan",
    name: `the autopilot statistics scan of ${lookupType}`,
    scan: "autopilot one type",
    role: "admin",
    endpoint: (ctx) => ({ kind: "autopilot-type", tenantId: ctx.target.tenant, lookupType }),
    identity: statisticIdentity,
    ...statisticFields,
  };
}

type TypeScan = { type: string; subject: ScanSubject; records: Record<string, unknown>[] };

/** Per-type scans whose space is explored, most statistics (most pages) first: by default the richest
 *  type's alone; deep, every type with two statistics or more. */
function typeScans(all: Record<string, unknown>[], ctx: Pick<CheckContext, "depth">): TypeScan[] {
  const byType = new Map<string, Record<string, unknown>[]>();
  for (const r of all) {
    const type = typeName(String(r.lookupType));
    byType.set(type, [...(byType.get(type) ?? []), r]);
  }
  const parts = [...byType]
    .sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))
    .map(([type, records]) => ({ type, subject: autopilotTypeScan(type), records }));
  return depthOf(ctx) === "deep" ? parts.filter((p) => p.records.length >= 2) : parts.slice(0, 1);
}

const shared = sharedScanChecks(autopilotScan, {
  scan: ["an", "autopilot scan"],
  record: ["statistic", "statistics"],
  requirements: ["AUTOPILOT-01", "AUTOPILOT-04", "AUTOPILOT-03", "AUTOPILOT-10"],
});

export const autopilotScanChecks: Check[] = [
  ...shared.paging,
  limitAbove100Check(autopilotScan, {
    id: "autopilot-scan/limit-above-100",
    title: "MUST never return a page above 100 statistics, whatever limit is asked (refuse or clamp)",
    requirements: ["AUTOPILOT-03"],
  }),
  subjectReadCheck(
    autopilotScan,
    {
      id: "autopilot-scan/default-limit",
      title: "MUST return pages of 100 statistics (the last may hold fewer) when no limit is given",
      requirements: ["AUTOPILOT-03"],
    },
    async (ctx) => {
      const { result } = await readScroll(ctx, autopilotScan, {});
      explore(ctx, "scan", autopilotScan.scan ?? autopilotScan.name);
      explore(ctx, "limit", "none");
      for (const [index, page] of result.pages.entries())
        if (page.values.length > 100)
          fail(`without limit, page ${index + 1} holds ${page.values.length} statistics`);
      // "limit: page size; default 100": a page with records after it is not the last, so it is a full page.
      // Only where the records end may a page be short (an empty page after it may signal the end).
      const lastWithRecords = result.pages.findLastIndex((page) => page.values.length > 0);
      const short = result.pages.findIndex((page, i) => i < lastWithRecords && page.values.length < 100);
      if (short >= 0) {
        const held = result.pages[short]?.values.length ?? 0;
        fail(`without limit, page ${short + 1} holds ${held} statistics and page ${short + 2} brings more`, {
          expected: "pages of 100 statistics, the default page size, until the last page with records",
          actual: `page ${short + 1} of ${result.pages.length}: ${held} statistics, followed by more`,
          ...(result.pages[short]
            ? { request: requestOf("POST", result.pages[short].response.request.url) }
            : {}),
        });
      }
      if (result.records.length <= 100) fewerThanAPage(ctx, autopilotScan, "a scroll without limit was read");
    },
  ),
  orderCheck(
    autopilotScan,
    {
      id: "autopilot-scan/order-respected",
      title:
        "MUST order the whole scroll by an accepted sort field in the requested order, in both autopilot scans",
      requirements: ["SCAN-06", "AUTOPILOT-04", "AUTOPILOT-02"],
    },
    // The per-type scan sorts the same way: every page of its sorted scrolls.
    typeScans,
  ),
  shared.filterEqualsExact,
  subjectReadCheck(
    autopilotScan,
    {
      id: "autopilot-scan/record-fields",
      title:
        "MUST give the fields of every statistic the document's types, in both scans (optional fields may be absent)",
      requirements: ["AUTOPILOT-05", "AUTOPILOT-06", "AUTOPILOT-07", "AUTOPILOT-08"],
    },
    async (ctx) => {
      const all = await referenceRead(ctx, autopilotScan);
      explore(ctx, "scan", autopilotScan.scan ?? autopilotScan.name);
      ensure(recordsProblem(all, statisticRules, statisticIdentity), autopilotScan.name);
      for (const type of [...new Set(all.map((r) => typeName(String(r.lookupType))))].sort()) {
        const typeScan = autopilotTypeScan(type);
        explore(ctx, "scan", typeScan.scan ?? typeScan.name);
        const { records } = await readScroll(ctx, typeScan, {}, all.length);
        ensure(recordsProblem(records, statisticRules, statisticIdentity), `the scan of ${type}`);
      }
    },
  ),
  shared.scanEnds,
  subjectReadCheck(
    autopilotScan,
    {
      id: "autopilot-scan/type-scan-only-that-type",
      title: "MUST return from the per-type scan exactly the statistics of that lookup type",
      requirements: ["AUTOPILOT-02", "AUTOPILOT-09", "SCAN-04"],
    },
    async (ctx) => {
      const all = await referenceRead(ctx, autopilotScan);
      const types = [...new Set(all.map((r) => typeName(String(r.lookupType))))].sort();
      for (const type of types) {
        const subject = autopilotTypeScan(type);
        explore(ctx, "lookup type", type);
        const { result, records } = await readScroll(ctx, subject, {}, all.length);
        noteScroll(ctx, subject, {}, result);
        const foreign = records.filter((r) => typeName(String(r.lookupType)) !== type);
        if (foreign.length > 0)
          fail(
            `the scan of ${type} returned ${foreign.length} statistics of other types ` +
              `(e.g. lookupType ${JSON.stringify(foreign[0]?.lookupType)}); accepted forms: ${type} or ${lookupTypeUri(type)}`,
          );
        const expected = all.filter((r) => typeName(String(r.lookupType)) === type).map(statisticIdentity);
        ensure(
          identityProblem(expected, records.map(statisticIdentity), { repeats: "ignore" }),
          `the scan of ${type}`,
        );
      }
      // Sorted and filtered scrolls, at the boundaries of the type's space, hold only that type.
      for (const part of typeScans(all, ctx))
        await exploreSpace(ctx, part.subject, part.records, ({ case: c, result }) => {
          const foreign = result.records.find((r) => typeName(String(r.lookupType)) !== part.type);
          if (foreign)
            fail(
              `${part.subject.name} ${describeCase(c)} returned a statistic of lookupType ` +
                `${JSON.stringify(foreign.lookupType)}`,
              {
                expected: `statistics of ${part.type} only`,
                actual: `lookupType ${JSON.stringify(foreign.lookupType)}`,
                record: statisticIdentity(foreign),
              },
            );
        });
    },
  ),
  subjectReadCheck(
    autopilotScan,
    {
      id: "autopilot-scan/type-scan-pages",
      title:
        "MUST page the per-type scan like the others: each statistic once, pages within the limit, for any sort, order and filter",
      requirements: ["AUTOPILOT-02", "SCAN-04", "AUTOPILOT-03"],
    },
    async (ctx) => {
      const all = await referenceRead(ctx, autopilotScan);
      const parts = typeScans(all, ctx);
      const part = parts[0];
      if (part === undefined) nothingToJudge(ctx, autopilotScan);
      const { type, subject } = part;
      explore(ctx, "lookup type", type);
      const count = part.records.length;
      // Small pages, yet a whole scroll of at most six: every page boundary shows a repeat or an overflow.
      const limit = Math.min(100, Math.max(7, Math.ceil(count / 6)));
      const { result, records } = await readScroll(ctx, subject, { limit }, all.length);
      const request = result.pages[0]?.response.request;
      for (const [index, page] of result.pages.entries())
        if (page.values.length > limit)
          fail(`the scan of ${type} with limit=${limit} has a page of ${page.values.length}`, {
            expected: `at most ${limit} statistics on a page`,
            actual: `${page.values.length} statistics`,
            pages: [index + 1],
            ...(request ? { request: requestOf(request.method, request.url) } : {}),
          });
      const ids = records.map(statisticIdentity);
      failFinding(
        identityFinding(ids, ids, { pages: pageIdentities(subject, result) }),
        `the scan of ${type} with limit=${limit}`,
        request,
      );
      // Sorted, filtered and at the boundaries of its space: each statistic of the type once, pages
      // within the limit.
      // Statistics of other types are type-scan-only-that-type's finding.
      const once = onceJudge({ foreign: "ignore" });
      for (const { subject: typeScan, records: ofType } of parts)
        await exploreSpace(ctx, typeScan, ofType, (read) => {
          judgeCaseLimit(read);
          once(read);
        });
    },
  ),
  ...shared.scrollHandling,
  shared.limitOutOfRange,
];
