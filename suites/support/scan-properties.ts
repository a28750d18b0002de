// Properties every scan must have (lookups, autopilot all types, autopilot one type), as check factories:
// each scan's suite file picks the checks and names the requirement ids that apply to it.
import fc from "fast-check";
import {
  type Check,
  type CheckContext,
  type CredentialRole,
  depthOf,
  explore,
  type FailureDetail,
  fail,
  inconclusive,
  requestOf,
} from "../../src/check/index.ts";
import {
  type ApiResponse,
  describeResponse,
  type FullScanResult,
  type InterfaceClient,
  pageOf,
  type ScanEndpoint,
  type ScanQuery,
  type ScrollIdEncoding,
  scrollIdEncodings,
} from "../../src/client/index.ts";
import { typeName } from "./data-operations.ts";
import { defineCheck } from "./define.ts";
import { checkProperty } from "./property.ts";
import { readPages } from "./recorded-scrolls.ts";
import { ensure, isClientError, judgeSuccess } from "./response-judges.ts";
import {
  type Boundary,
  caseQuery,
  casesAt,
  describeCase,
  pageBudget,
  type SpaceCase,
  SpaceLog,
  selected,
  sortFieldsByTies,
  spaceArb,
  spaceFilters,
  spaceRuns,
} from "./scan-space.ts";
import { scrollEncodingFor, scrollIdEncodingFact } from "./scroll-encoding.ts";
import { clientOf } from "./target-client.ts";

export type ScanRecordShape = Record<string, unknown>;
type Scalar = string | number | boolean;

export interface ScanSubject {
  /** Suite name, the prefix of check ids. */
  suite: string;
  /** Words for messages: "the lookups scan". */
  name: string;
  role: CredentialRole;
  endpoint(ctx: CheckContext): ScanEndpoint;
  identity(record: ScanRecordShape): string;
  /** Top-level scalar fields a sort may name (SCAN-10: any of them). */
  sortFields: readonly string[];
  /** Sort fields the document itself uses, which a target must accept. */
  documentedSortFields: readonly string[];
  /** Fields for equals() filters, string-valued. */
  filterFields: readonly string[];
  /** Fields holding a lookup type: the SHOULD check filterTypeNameCheck filters them by type name. */
  typeFields: readonly string[];
  /** Which scan, as the exploration log names it: "lookups", "autopilot all types", "autopilot one type". */
  scan?: string;
}

// ---------------------------------------------------------------- reading whole scrolls

/** Against a large live data set, small limits would mean thousands of requests: keep scrolls <= 200 pages. */
export function smallestLimit(total: number): number {
  return Math.min(100, Math.max(1, Math.ceil(total / 200)));
}

export interface ScanRead {
  result: FullScanResult<ScanRecordShape>;
  records: ScanRecordShape[];
}

function endProblem(result: FullScanResult<ScanRecordShape>, what: string): string | undefined {
  switch (result.end) {
    case "no-scroll-id":
    case "empty-page":
      return undefined;
    case "error":
    case "malformed":
      return `${what}: page ${result.pages.length + 1} was not a scan page: ${describeResponse(result.failure ?? result.pages[0]?.response ?? ({} as ApiResponse<unknown>))}`;
    case "page-cap":
      return `${what}: still not at the end after ${result.pages.length} pages (${result.records.length} records); the scan must end (no scrollId, or an empty page)`;
    case "repeated-scroll-id":
      return `${what}: the same scrollId came back with the same page; the scan makes no progress`;
  }
}

/** Fails when the scroll did not end as a scan ends (endProblem), with the page at fault as data. */
function ensureEnded(result: FullScanResult<ScanRecordShape>, what: string): void {
  const problem = endProblem(result, what);
  if (problem === undefined) return;
  const notAPage = result.end === "error" || result.end === "malformed";
  const last = result.pages.length;
  fail(problem, {
    expected: notAPage
      ? 'a scan page {"scrollId", "values": [...]}'
      : "a scan that ends (no scrollId, or an empty page)",
    actual: notAPage
      ? `${result.failure?.status ?? "no"} answer: ${(result.failure?.text ?? "").slice(0, 200)}`
      : result.end === "page-cap"
        ? `${last} pages and still a scrollId`
        : "the same page again under the same scrollId",
    pages: [notAPage ? last + 1 : last],
    ...requestDetail(result),
  });
}

/**
 * Every page of one scroll. `expectedTotal` bounds the page count (twice the pages needed, plus slack).
 * Fails on an answer that is not a page; a scroll that does not end is a failure too unless `untilCap`
 * (checks that judge pages, not the end, look at what came).
 */
export async function readScroll(
  ctx: CheckContext,
  subject: ScanSubject,
  query: ScanQuery,
  expectedTotal?: number,
  options: { untilCap?: boolean } = {},
): Promise<ScanRead> {
  const limit = typeof query.limit === "number" ? query.limit : 100;
  const maxPages = expectedTotal === undefined ? 1000 : 2 * Math.ceil(expectedTotal / limit) + 10;
  const result = await scrollPages(ctx, subject, query, maxPages);
  const endless = result.end === "page-cap" || result.end === "repeated-scroll-id";
  if (!(options.untilCap && endless)) ensureEnded(result, `${subject.name} ${JSON.stringify(query)}`);
  return { result, records: result.records as ScanRecordShape[] };
}

/** The first `maxPages` pages of a scroll of the subject, from the run's recordings where they reach. */
export async function scrollPages(
  ctx: CheckContext,
  subject: ScanSubject,
  query: ScanQuery,
  maxPages: number,
): Promise<FullScanResult<ScanRecordShape>> {
  const endpoint = subject.endpoint(ctx);
  const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
  const read = { role: subject.role, endpoint, query, encoding };
  return (await readPages(ctx, read, maxPages)) as FullScanResult<ScanRecordShape>;
}

/** The unfiltered, default-ordered contents: what every other read is compared with. Repeats are a
 *  finding of the exactly-once checks only (`strict`); other checks work on the distinct records, so
 *  that one fault fails the checks of its rule and not every check that reads. */
export async function referenceRead(
  ctx: CheckContext,
  subject: ScanSubject,
  options: { strict?: boolean } = {},
): Promise<ScanRecordShape[]> {
  const { result, records } = await readScroll(ctx, subject, {});
  if (records.length === 0) nothingToJudge(ctx, subject);
  const ids = records.map(subject.identity);
  if (options.strict)
    failFinding(
      identityFinding(ids, ids, { pages: pageIdentities(subject, result) }),
      `${subject.name} without parameters`,
      result.pages[0]?.response.request,
    );
  return distinct(subject, records);
}

/** A scan that answered no record leaves a rule about its records nothing to judge: an empty tenant and a
 *  scan that answers nothing look the same, and neither may pass for a judged scan. */
export function nothingToJudge(ctx: CheckContext, subject: ScanSubject): never {
  inconclusive({
    saw: `${subject.name} of tenant ${ctx.target.tenant} answered no record`,
    readings: ["the tenant holds none", "the scan answers nothing"],
    decideBy: `certify with a tenant whose data ${subject.name} lists (the target file's tenant)`,
  });
}

export function distinct(subject: ScanSubject, records: ScanRecordShape[]): ScanRecordShape[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const id = subject.identity(record);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

// ---------------------------------------------------------------- judging contents and order

function counts(ids: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const id of ids) map.set(id, (map.get(id) ?? 0) + 1);
  return map;
}

const few = (items: string[]) =>
  items.length > 5 ? `${items.slice(0, 5).join(", ")} and ${items.length - 5} more` : items.join(", ");

/** A finding about which records came: its sentence and the same as data (see FailureDetail). */
export interface IdentityFinding {
  message: string;
  detail: FailureDetail;
}

/**
 * Exactly the expected identities, each once (with `repeats: "ignore"`: each at least once). `pages`, the
 * identities of each page in the order they came, lets the detail say on which pages the record at fault
 * came (a repeated record: the page it first came on and the page it came again).
 */
export function identityFinding(
  expected: readonly string[],
  actual: readonly string[],
  options: { repeats?: "fail" | "ignore"; pages?: readonly (readonly string[])[] } = {},
): IdentityFinding | undefined {
  const have = counts(actual);
  const repeatedIds = options.repeats === "ignore" ? [] : [...have].filter(([, n]) => n > 1);
  const duplicates = repeatedIds.map(([id, n]) => `${id} (x${n})`);
  const want = new Set(expected);
  const missing = [...want].filter((id) => !have.has(id));
  const extra = [...have.keys()].filter((id) => !want.has(id));
  const problems: string[] = [];
  if (duplicates.length > 0) problems.push(`repeated: ${few(duplicates)}`);
  if (missing.length > 0) problems.push(`missing: ${few(missing)}`);
  if (extra.length > 0) problems.push(`unexpected: ${few(extra)}`);
  if (problems.length === 0) return undefined;
  const wanted = options.repeats === "ignore" ? "the" : "each of";
  const once = options.repeats === "ignore" ? "" : " exactly once";
  const record = repeatedIds[0]?.[0] ?? missing[0] ?? (extra[0] as string);
  const detail: FailureDetail = {
    expected: `${wanted} ${want.size} records${once}`,
    actual: problems.join("; "),
    record,
  };
  const pages = options.pages ? pagesHolding(options.pages, record) : [];
  if (pages.length > 0) detail.pages = pages;
  return { message: `expected ${wanted} ${want.size} records${once}; ${problems.join("; ")}`, detail };
}

/** Pages (counted from 1) on which `id` came, once per time it came. */
export function pagesHolding(pages: readonly (readonly string[])[], id: string): number[] {
  return pages.flatMap((ids, index) => ids.filter((x) => x === id).map(() => index + 1));
}

/** The sentence of identityFinding alone. */
export function identityProblem(
  expected: readonly string[],
  actual: readonly string[],
  options: { repeats?: "fail" | "ignore" } = {},
): string | undefined {
  return identityFinding(expected, actual, options)?.message;
}

/** Fails with the finding's sentence (after `context`) and its detail, the request named when given. */
export function failFinding(
  finding: IdentityFinding | undefined,
  context: string,
  request?: { method: string; url: string },
): void {
  if (finding === undefined) return;
  fail(`${context}: ${finding.message}`, {
    ...finding.detail,
    ...(request ? { request: requestOf(request.method, request.url) } : {}),
  });
}

/** The identities of each page of a scroll, in the order they came. */
export function pageIdentities(subject: ScanSubject, result: FullScanResult<ScanRecordShape>): string[][] {
  return result.pages.map((page) => (page.values as ScanRecordShape[]).map(subject.identity));
}

function scalarOf(record: ScanRecordShape, field: string): Scalar | undefined {
  const value = record[field];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : undefined;
}

type Comparator = (a: Scalar, b: Scalar) => number;
const codeUnit: Comparator = (a, b) => (a === b ? 0 : a < b ? -1 : 1);
const caseInsensitive: Comparator = (a, b) =>
  typeof a === "string" && typeof b === "string"
    ? codeUnit(a.toLowerCase(), b.toLowerCase())
    : codeUnit(a, b);

/** First pair out of order under `compare`, skipping records without the field and pairs of mixed types. */
function firstDisorder(values: Scalar[], order: "asc" | "desc", compare: Comparator): number | undefined {
  const direction = order === "asc" ? 1 : -1;
  for (let i = 1; i < values.length; i++) {
    const a = values[i - 1] as Scalar;
    const b = values[i] as Scalar;
    if (typeof a !== typeof b) continue;
    if (direction * compare(a, b) > 0) return i;
  }
  return undefined;
}

/** In order under code-unit or case-insensitive comparison (MUST accepts either). */
export function orderProblem(
  records: ScanRecordShape[],
  field: string,
  order: "asc" | "desc",
): string | undefined {
  const values = records.map((r) => scalarOf(r, field)).filter((v): v is Scalar => v !== undefined);
  const strict = firstDisorder(values, order, codeUnit);
  if (strict === undefined || firstDisorder(values, order, caseInsensitive) === undefined) return undefined;
  return (
    `expected records in ${order} order of ${field} (code-unit or case-insensitive), but record ${strict + 1} ` +
    `(${JSON.stringify(values[strict])}) follows ${JSON.stringify(values[strict - 1])}`
  );
}

/** Index (among records holding the field) of the first record out of order under both comparisons. */
function firstDisorderIndex(
  records: ScanRecordShape[],
  field: string,
  order: "asc" | "desc",
): number | undefined {
  const values = records.map((r) => scalarOf(r, field)).filter((v): v is Scalar => v !== undefined);
  return firstDisorder(values, order, codeUnit);
}

/** The record's field holds `value`: exactly, or ignoring case (the document leaves case open); with
 *  `byName`, compared by lookup type name ("rdm/lookupTypes/Country" and "Country" alike). */
function fieldMatches(
  record: ScanRecordShape,
  field: string,
  value: string,
  options: { ignoreCase: boolean; byName?: boolean },
): boolean {
  const actual = record[field];
  if (typeof actual !== "string") return false;
  const norm = (s: string) => (options.byName ? typeName(s) : s);
  const [a, b] = [norm(actual), norm(value)];
  return options.ignoreCase ? a.toLowerCase() === b.toLowerCase() : a === b;
}

// ---------------------------------------------------------------- check factories

type Ids = { id: string; title: string; requirements: string[] };

/** Pages a limit is allowed to cost as a whole scroll: smaller limits are probed by partial scrolls. A
 *  fault at page boundaries shows at every boundary, so six pages show it five times over. */
const FULL_READ_PAGES = 6;
/** Pages a partial scroll reads at a small limit: three page boundaries to show a repeat or an overflow. */
const PARTIAL_PAGES = 4;
/** Pages an order case reads: the first page boundary, across which a sort per page only breaks order. The
 *  documented sort is read whole in both directions besides. */
const ORDER_PAGES = 2;

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

const limitArb = (total: number, least = 1) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...boundaryLimits(total, least)) },
    { weight: 1, arbitrary: fc.integer({ min: fullReadFloor(total, least), max: 100 }) },
  );

/** Limits below the full-read floor (1, 2, the smallest the kit uses), probed with partial scrolls. */
function partialLimits(total: number, least = 1): number[] {
  const floor = fullReadFloor(total, least);
  return [...new Set([1, 2, smallestLimit(total)])].filter((l) => l >= least && l < floor);
}

/** The first PARTIAL_PAGES pages of a scroll at a small limit (recorded like any other read). */
async function partialScroll(ctx: CheckContext, subject: ScanSubject, limit: number) {
  const result = await scrollPages(ctx, subject, { limit }, PARTIAL_PAGES);
  // A partial scroll judges pages, not the end: one that stops early or makes no progress is the ends
  // and exactly-once checks' finding (as with readScroll's untilCap).
  const endless = result.end === "page-cap" || result.end === "repeated-scroll-id";
  if (!endless) ensureEnded(result, `${subject.name} with limit=${limit}`);
  return result as FullScanResult<ScanRecordShape>;
}
/** The request a scroll's failure is about: its first request (the query that shaped every page). */
function requestDetail(result: FullScanResult<ScanRecordShape>): {
  request?: { method: string; path: string };
} {
  const sent = result.pages[0]?.response.request ?? result.failure?.request;
  return sent ? { request: requestOf(sent.method, sent.url) } : {};
}

/** Fails on the first page holding more records than `limit`. */
function overfullPage(subject: ScanSubject, result: FullScanResult<ScanRecordShape>, limit: number): void {
  for (const [index, page] of result.pages.entries())
    if (page.values.length > limit)
      fail(`${subject.name} with limit=${limit}: page ${index + 1} holds ${page.values.length} records`, {
        expected: `at most ${limit} records on a page`,
        actual: `${page.values.length} records`,
        pages: [index + 1],
        ...requestDetail(result),
      });
}

const orderArb = fc.constantFrom<"asc" | "desc">("asc", "desc");

/** A read check of one scan subject, with the subject's role: the frame every check of this file shares. */
function subjectReadCheck(subject: ScanSubject, ids: Ids, run: Check["run"]): Check {
  return defineCheck({
    ...ids,
    safety: "read",
    needs: { roles: [subject.role] },
    facts: [scrollIdEncodingFact],
    run,
  });
}
/** Pages of any limit together hold every record exactly once, unsorted and under every sort, order and
 *  filter of the scan's space (exploreSpace). */
export function exactlyOnceCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject, { strict: true });
    const log = new SpaceLog(ctx);
    try {
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
  await checkProperty(ctx, fc.asyncProperty(limitArb(all.length), judge));
}

/** No page holds more records than the limit asked for. */
export function pageWithinLimitCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    for (const limit of partialLimits(all.length)) {
      const result = await partialScroll(ctx, subject, limit);
      overfullPage(subject, result, limit);
    }
    await checkProperty(
      ctx,
      fc.asyncProperty(limitArb(all.length), async (limit) => {
        const { result } = await readScroll(ctx, subject, { limit }, all.length, { untilCap: true });
        overfullPage(subject, result, limit);
      }),
    );
    // Sorted and filtered scrolls page through the same limit.
    await exploreSpace(ctx, subject, all, judgeCaseLimit);
  });
}

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
    const log = new SpaceLog(ctx);
    try {
      await exploreSpace(ctx, subject, all, judgeCaseOrder, { sortedOnly: true, log });
      for (const part of alsoScans?.(all, ctx) ?? [])
        await exploreSpace(ctx, part.subject, part.records, judgeCaseOrder, { sortedOnly: true, log });
    } finally {
      log.done();
    }
  });
}

/** Fails when the records of a scroll are out of `order` of `field`, naming the record and its page. */
function judgeOrder(
  subject: ScanSubject,
  result: FullScanResult<ScanRecordShape>,
  field: string,
  order: "asc" | "desc",
  query: string,
): void {
  const records = result.pages.flatMap((page, index) =>
    page.values.map((record) => ({ record, page: index + 1 })),
  );
  const withField = records.filter(({ record }) => scalarOf(record, field) !== undefined);
  const problem = orderProblem(
    withField.map(({ record }) => record),
    field,
    order,
  );
  if (problem === undefined) return;
  const at = firstDisorderIndex(
    withField.map(({ record }) => record),
    field,
    order,
  );
  const culprit = at === undefined ? undefined : withField[at];
  const before = at === undefined ? undefined : withField[at - 1];
  const value = (entry: typeof culprit) => JSON.stringify(entry ? scalarOf(entry.record, field) : undefined);
  fail(`${subject.name} ${query}: ${problem}`, {
    expected: `records in ${order} order of ${field} (code-unit or case-insensitive)`,
    actual: `${value(culprit)} follows ${value(before)}`,
    field,
    ...(culprit ? { record: subject.identity(culprit.record) } : {}),
    ...(culprit && before ? { pages: [...new Set([before.page, culprit.page])] } : {}),
    ...requestDetail(result),
  });
}

// ---------------------------------------------------------------- the space of a scan (scan-space.ts)

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
  if (missing.length === 0 && extra.length === 0) return;
  const wanted = `exactly the ${expected.length} records whose ${filter.field} is ${filter.value}`;
  const actual = [
    missing.length > 0 ? `missing: ${few(missing)}` : "",
    extra.length > 0 ? `not matching: ${few(extra)}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  const record = missing[0] ?? (extra[0] as string);
  const pages = pagesHolding(pageIdentities(subject, result), record);
  fail(`${subject.name} ${describeCase(c)}: expected ${wanted}; ${actual}`, {
    expected: wanted,
    actual,
    record,
    field: filter.field,
    ...(pages.length > 0 ? { pages } : {}),
    ...requestDetail(result),
  });
};

/** No page above the case's limit. */
export const judgeCaseLimit: CaseJudge = (read) => {
  ensurePages(read, false);
  overfullPage(read.subject, read.result, read.case.limit);
};

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

/**
 * equals(field,'value') with a value a record holds yields exactly the records whose field holds that very
 * value. The value is sent as stored (a lookup type as its full URI): that is the one reading the document
 * fixes. Whether equals ignores case is not shown, so records whose field differs from the value in case
 * only may come too; whether a type name matches a type URI is the SHOULD check filterTypeNameCheck.
 */
export function filterCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    await checkProperty(
      ctx,
      fc.asyncProperty(
        fc.constantFrom(...subject.filterFields),
        fc.nat(all.length - 1),
        // limit 1 would make a scan that repeats page boundaries endless: the ends and exactly-once checks
        // judge that. A filtered scroll is judged whole: the largest pages most of the time.
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(100, 99) },
          { weight: 1, arbitrary: limitArb(all.length, 2) },
        ),
        async (field, index, limit) => {
          const value = all[index]?.[field];
          // Quoting inside filter values is not shown by the document: values with quotes are left out.
          fc.pre(typeof value === "string" && value !== "" && !/['"\\]/.test(value));
          await judgeFilter(ctx, subject, all, { field, value: value as string, limit, byName: false });
        },
      ),
    );
    // Filtered scrolls under a sort, at the boundaries of the space: a filter must hold whatever the order.
    await exploreSpace(ctx, subject, all, judgeCaseFilter, { filteredOnly: true });
  });
}

/**
 * The document's sample filters the lookups scan by equals(type,'<type_name>') while the type is stored as
 * rdm/lookupTypes/<type_name>: the kit's reading is that the name matches the URI (SHOULD; a target that
 * compares stored values exactly answers nothing, which the MUST check filterCheck does not hold against it).
 */
export function filterTypeNameCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    for (const field of subject.typeFields) {
      const names = [...new Set(all.map((r) => r[field]).filter((v): v is string => typeof v === "string"))]
        .map(typeName)
        .filter((name) => name !== "" && !/['"\\]/.test(name))
        .sort();
      for (const name of names.slice(0, 3))
        await judgeFilter(ctx, subject, all, { field, value: name, limit: 100, byName: true });
    }
  });
}

async function judgeFilter(
  ctx: CheckContext,
  subject: ScanSubject,
  all: ScanRecordShape[],
  query: { field: string; value: string; limit: number; byName: boolean },
): Promise<void> {
  const { field, value, limit, byName } = query;
  const filter = `equals(${field},'${value}')`;
  const { result, records } = await readScroll(ctx, subject, { filter, limit }, all.length);
  noteScroll(ctx, subject, { filter, limit }, result);
  const got = new Set(records.map(subject.identity));
  const exact = all
    .filter((r) => fieldMatches(r, field, value, { ignoreCase: false, byName }))
    .map(subject.identity);
  const missing = exact.filter((id) => !got.has(id));
  // Each answered record is judged by its own field, so a record the reference read lost does not count
  // against the filter.
  const extra = records
    .filter((r) => !fieldMatches(r, field, value, { ignoreCase: true, byName }))
    .map(subject.identity);
  if (missing.length === 0 && extra.length === 0) return;
  const wanted = `exactly the ${exact.length} records whose ${field} is ${byName ? `of type ${value}` : value}`;
  const actual = [
    missing.length > 0 ? `missing: ${few(missing)}` : "",
    extra.length > 0 ? `not matching: ${few(extra)}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  const record = missing[0] ?? (extra[0] as string);
  const pages = pagesHolding(pageIdentities(subject, result), record);
  fail(`${subject.name} filter=${filter}: expected ${wanted}; ${actual}`, {
    expected: wanted,
    actual,
    record,
    field,
    ...(pages.length > 0 ? { pages } : {}),
    ...requestDetail(result),
  });
}

/** The scan ends after finitely many pages: no scrollId, or an empty page after which nothing follows. */
export function endsCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const endpoint = subject.endpoint(ctx);
    const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
    const client = clientOf(ctx);
    const auth = await ctx.token(subject.role);
    // Two page sizes, the second small enough for many pages yet within a whole scroll's page budget
    // (the size of the set comes from the first scroll): the smallest limit the exactly-once check reads
    // whole, so both scrolls are usually recorded already.
    let total: number | undefined;
    for (const limit of [100, 7]) {
      const size = total === undefined ? limit : (boundaryLimits(total, limit)[0] ?? 100);
      const first = await scrollPages(ctx, subject, { limit: size }, 2000);
      total ??= first.records.length;
      noteScroll(ctx, subject, { limit: size }, first);
      ensureEnded(first, `${subject.name} with limit=${size}`);
      // A scroll of nothing ends at once whatever the scan does after its records.
      if (total === 0) nothingToJudge(ctx, subject);
      if (first.end !== "empty-page") continue;
      // An empty page may precede the end (deployments differ); nothing may follow it.
      const last = first.pages.at(-1)?.scrollId;
      const emptyPage =
        last === undefined ? undefined : await followEmpty(client, auth, endpoint, last, encoding);
      if (emptyPage)
        fail(`${subject.name} with limit=${size}: ${emptyPage}`, {
          expected: "nothing after an empty page",
          actual: emptyPage,
          pages: [first.pages.length + 1],
          ...requestDetail(first),
        });
    }
  });
}

async function followEmpty(
  client: InterfaceClient,
  auth: string,
  endpoint: ScanEndpoint,
  lastScrollId: string,
  encoding: ScrollIdEncoding,
): Promise<string | undefined> {
  // The page after the last non-empty one was empty; follow the scroll twice more to see that it stays so.
  const afterLast = pageOf(await client.scanNext(auth, endpoint, lastScrollId, encoding));
  let scrollId = afterLast?.scrollId;
  for (let i = 0; i < 2 && scrollId; i++) {
    const next = await client.scanNext(auth, endpoint, scrollId, encoding);
    const page = pageOf(next);
    if (!page) return undefined; // refused after the end: an end all the same
    if (page.values.length > 0)
      return `records came after an empty page (${page.values.length} on a later page)`;
    scrollId = page.scrollId;
  }
  return undefined;
}

/** The first request may carry a JSON null body: same first page as with no body. */
export function firstPageNullBodyCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const client = clientOf(ctx);
    const auth = await ctx.token(subject.role);
    const endpoint = subject.endpoint(ctx);
    explore(ctx, "scan", subject.scan ?? subject.name);
    const none = await client.scanFirst(auth, endpoint, { limit: 5 });
    const nullBody = await client.scanFirst(auth, endpoint, { limit: 5 }, { firstBody: "null" });
    for (const [what, response] of [
      ["no body", none],
      ["a null body", nullBody],
    ] as const) {
      const problem = judgeSuccess(response, `the first request of ${subject.name} with ${what}`);
      if (problem !== undefined || !pageOf(response))
        fail(
          problem ??
            `expected {"scrollId", "values": [...]} for the first page with ${what}, got ${describeResponse(response)}`,
          {
            expected: `a first page for a request with ${what}`,
            actual: `${response.status} ${response.text.slice(0, 200)}`,
            request: requestOf(response.request.method, response.request.url),
          },
        );
    }
    const a = pageOf(none)?.values.map((r) => subject.identity(r as ScanRecordShape));
    const b = pageOf(nullBody)?.values.map((r) => subject.identity(r as ScanRecordShape));
    if (JSON.stringify(a) !== JSON.stringify(b))
      fail(
        `the first page with a null body differs from the first page with no body: ${few(b ?? [])} vs ${few(a ?? [])}`,
      );
  });
}

// ---------------------------------------------------------------- SHOULD: the kit's choices

/** Each of the three encodings of the next-page body is accepted ({"scrollId"} is the kit's choice). */
export function scrollBodyCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const client = clientOf(ctx);
    const auth = await ctx.token(subject.role);
    const endpoint = subject.endpoint(ctx);
    for (const encoding of scrollIdEncodings) {
      const first = pageOf(await client.scanFirst(auth, endpoint, { limit: 2 }));
      if (!first?.scrollId) return; // a single page: no next-page request to judge
      const next = await client.scanNext(auth, endpoint, first.scrollId, encoding);
      const page = pageOf(next);
      if (!page)
        fail(`expected the next page for a scroll id sent as ${encoding}, got ${describeResponse(next)}`);
    }
  });
}

/** The end of results is a response without scrollId (the kit's choice), at most after empty pages. */
export function endWithoutScrollIdCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    // Any whole scroll shows how it ends: the one at limit 100 is recorded by the other checks already.
    const result = await scrollPages(ctx, subject, { limit: 100 }, 2000);
    ensureEnded(result, subject.name);
    const lastPage = result.pages.at(-1);
    if (result.end !== "no-scroll-id" || lastPage?.scrollId !== undefined)
      fail(
        `expected the last page of ${subject.name} to carry no scrollId; the scan ended with ${result.end}` +
          (lastPage?.scrollId ? ` and the last non-empty page carries scrollId ${lastPage.scrollId}` : ""),
        {
          expected: "a last page without scrollId",
          actual: `the scan ended with ${result.end === "empty-page" ? "an empty page" : result.end}`,
          field: "scrollId",
          pages: [result.pages.length],
          ...requestDetail(result),
        },
      );
  });
}

/** An unknown scroll id is refused with 400. */
export function unknownScrollIdCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const endpoint = subject.endpoint(ctx);
    const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
    const response = await clientOf(ctx).scanNext(
      await ctx.token(subject.role),
      endpoint,
      "lckit-unknown-scroll-id-0000",
      encoding,
    );
    if (response.status !== 400)
      fail(`expected 400 for an unknown scroll id, got ${describeResponse(response)}`);
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

/** The filter grammar of the kit: startsWith, not, and/or, exists/missing; an unknown operator is a 400 naming it. */
export function filterGrammarCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    const field =
      subject.filterFields.find((f) => !subject.typeFields.includes(f)) ?? subject.filterFields[0] ?? "";
    const sample = all
      .map((r) => r[field])
      .find((v): v is string => typeof v === "string" && /^[\w -]+$/.test(v));
    if (sample === undefined) return;
    const prefix = sample.slice(0, 1);
    const lower = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : undefined);
    const cases: [string, (r: ScanRecordShape) => boolean][] = [
      [`startsWith(${field},'${prefix}')`, (r) => lower(r[field])?.startsWith(prefix.toLowerCase()) === true],
      [`not equals(${field},'${sample}')`, (r) => lower(r[field]) !== sample.toLowerCase()],
      [
        `equals(${field},'${sample}') or startsWith(${field},'${prefix}')`,
        (r) => lower(r[field])?.startsWith(prefix.toLowerCase()) === true,
      ],
      [`exists(${field}) and equals(${field},'${sample}')`, (r) => lower(r[field]) === sample.toLowerCase()],
      [`missing(${field})`, (r) => r[field] === undefined],
    ];
    for (const [filter, predicate] of cases) {
      const { result, records } = await readScroll(ctx, subject, { filter }, all.length);
      const expected = all.filter(predicate).map(subject.identity);
      failFinding(
        identityFinding(expected, records.map(subject.identity), { repeats: "ignore" }),
        `${subject.name} filter=${filter}`,
        result.pages[0]?.response.request,
      );
    }
    const response = await clientOf(ctx).scanFirst(await ctx.token(subject.role), subject.endpoint(ctx), {
      filter: `lckitUnknownOp(${field},'x')`,
    });
    if (response.status !== 400 || !response.text.includes("lckitUnknownOp"))
      fail(`expected 400 naming the unknown operator lckitUnknownOp, got ${describeResponse(response)}`);
  });
}

/** Outside 1..100 the limit is refused with 400. */
export function limitOutOfRangeCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    for (const limit of [0, -1, 101, 1000, "ten"]) {
      const response = await clientOf(ctx).scanFirst(await ctx.token(subject.role), subject.endpoint(ctx), {
        limit,
      });
      if (response.status !== 400) fail(`limit=${limit}: expected 400, got ${describeResponse(response)}`);
    }
  });
}

/** A limit above 100 never yields a page above 100: refused (4xx), or clamped. The profile may pin which. */
export function limitAbove100Check(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const clamps = ctx.target.profile.clampsLimit;
    const endpoint = subject.endpoint(ctx);
    const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
    explore(ctx, "scan", subject.scan ?? subject.name);
    let judged = false;
    for (const limit of [101, 150, 1000]) {
      explore(ctx, "limit", limit);
      const result = await clientOf(ctx).scanAll(await ctx.token(subject.role), endpoint, {
        query: { limit },
        encoding,
        maxPages: 50,
      });
      const refused =
        result.end === "error" && result.pages.length === 0 && isClientError(result.failure?.status ?? 0);
      if (refused) {
        if (clamps === true)
          fail(`limit=${limit}: the profile says the target clamps the limit, but it refused it`);
        judged = true;
        continue;
      }
      if (clamps === false)
        fail(`limit=${limit}: the profile says the target refuses limits above 100, but it answered a page`);
      ensureEnded(result, `${subject.name} with limit=${limit}`);
      for (const [index, page] of result.pages.entries())
        if (page.values.length > 100)
          fail(
            `${subject.name} with limit=${limit}: page ${index + 1} holds ${page.values.length} records; at most 100`,
          );
      judged ||= result.records.length > 100;
    }
    if (!judged) fewerThanAPage(ctx, subject, "limits above 100 were answered");
  });
}

/** At most 100 records fit one page whatever limit a scan applies: a page cap of 100 is not judged. */
export function fewerThanAPage(ctx: CheckContext, subject: ScanSubject, what: string): never {
  inconclusive({
    saw: `${what}, and ${subject.name} of tenant ${ctx.target.tenant} holds at most 100 records`,
    readings: ["pages are held to 100 records", "a larger page would come with more records"],
    decideBy: `certify with a tenant whose data ${subject.name} lists holds more than 100 records`,
  });
}
