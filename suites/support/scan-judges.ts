// Judging what a scroll answered, with the answer at fault as data: which records came (each expected one
// exactly once), in which order, whether it ended as a scan ends, no page above its limit.
import { type FailureDetail, fail, requestOf } from "../../src/check/index.ts";
import { type ApiResponse, describeResponse, type FullScanResult } from "../../src/client/index.ts";
import { typeName } from "./data-operations.ts";
import type { ScanRecordShape, ScanSubject } from "./scan-subject.ts";

export function counts(ids: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const id of ids) map.set(id, (map.get(id) ?? 0) + 1);
  return map;
}

export const few = (items: string[]) =>
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

/** Fails when a filtered scroll lost records the filter selects (`missing`) or held records it does not
 *  match (`extra`), naming the first at fault and the pages it came on. */
export function failFilterFinding(
  subject: ScanSubject,
  result: FullScanResult<ScanRecordShape>,
  found: { context: string; wanted: string; field: string; missing: string[]; extra: string[] },
): void {
  const { context, wanted, field, missing, extra } = found;
  if (missing.length === 0 && extra.length === 0) return;
  const actual = [
    missing.length > 0 ? `missing: ${few(missing)}` : "",
    extra.length > 0 ? `not matching: ${few(extra)}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  const record = missing[0] ?? (extra[0] as string);
  const pages = pagesHolding(pageIdentities(subject, result), record);
  fail(`${context}: expected ${wanted}; ${actual}`, {
    expected: wanted,
    actual,
    record,
    field,
    ...(pages.length > 0 ? { pages } : {}),
    ...requestDetail(result),
  });
}

/** The identities of each page of a scroll, in the order they came. */
export function pageIdentities(subject: ScanSubject, result: FullScanResult<ScanRecordShape>): string[][] {
  return result.pages.map((page) => (page.values as ScanRecordShape[]).map(subject.identity));
}

type Scalar = string | number | boolean;

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
export function fieldMatches(
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

/** The request a scroll's failure is about: its first request (the query that shaped every page). */
export function requestDetail(result: FullScanResult<ScanRecordShape>): {
  request?: { method: string; path: string };
} {
  const sent = result.pages[0]?.response.request ?? result.failure?.request;
  return sent ? { request: requestOf(sent.method, sent.url) } : {};
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
export function ensureEnded(result: FullScanResult<ScanRecordShape>, what: string): void {
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

/** Fails on the first page holding more records than `limit`. */
export function overfullPage(
  subject: ScanSubject,
  result: FullScanResult<ScanRecordShape>,
  limit: number,
): void {
  for (const [index, page] of result.pages.entries())
    if (page.values.length > limit)
      fail(`${subject.name} with limit=${limit}: page ${index + 1} holds ${page.values.length} records`, {
        expected: `at most ${limit} records on a page`,
        actual: `${page.values.length} records`,
        pages: [index + 1],
        ...requestDetail(result),
      });
}

/** Fails when the records of a scroll are out of `order` of `field`, naming the record and its page. */
export function judgeOrder(
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
