// The explorer's oracle: what the target's own read endpoints show, scanned whole once (the tenant's
// lookups, the statistics of every lookup type, the blocked values of each type, read with the target's
// own paging), and the legal answers of each read over it. Where the document is explicit (equals keeps
// exactly the records whose field has the value; a per-type scan holds that type only; offset and limit
// cut a slice) it says "exactly this"; where it is silent (case of equals, the form of a type in equals,
// order of ties and of records without the sort field) it accepts every legal answer.
//
// Written from the document, not from src/reference: suites never import the reference, and the
// reference's filter parser and sort choices are its own picks among the legal ones (the grammar beyond
// equals, the case of strings), where the oracle must accept them all.
import { type CheckContext, fail, inconclusive } from "../../src/check/index.ts";
import {
  type ApiResponse,
  type BlockedValue,
  describeResponse,
  type InterfaceClient,
  pageOf,
  type ScanEndpoint,
  type ScanQuery,
} from "../../src/client/index.ts";
import { lookupTypeUri } from "../../src/contract/index.ts";
import { typeName } from "./data-operations.ts";
import { scrollEncodingFor } from "./scroll-encoding.ts";

export type Rec = Record<string, unknown>;
/** The three scans of the document. */
export type ScanKind = "lookups" | "autopilot" | "autopilot-type";

/** An autopilot match statistic's identity. The document names no key: a statistic relates an unmapped
 *  source value to a candidate, so one value may have several records; the time it was created ("Epoch
 *  milliseconds when the record was created", which nothing changes) tells them apart. */
export function statisticIdentity(record: Rec): string {
  return `${typeName(String(record.lookupType))}|${String(record.source)}|${String(record.unmappedValue)}|${String(record.createdAt)}`;
}

/** A record's identity per scan: what "no record twice, none missing" counts. */
export function identityOf(kind: ScanKind, record: Rec): string {
  return kind === "lookups"
    ? `${typeName(String(record.type))}/${String(record.code)}`
    : statisticIdentity(record);
}

export function blockedIdentity(value: BlockedValue | Rec): string {
  return `${typeName(String(value.lookupType))}|${String(value.value)}`;
}

/** What the target showed at the start: the model's state. */
export interface Observed {
  tenant: string;
  lookups: Rec[];
  statistics: Rec[];
  /** Blocked values of each lookup type name, in the target's listing order. */
  blocked: Map<string, Rec[]>;
  /** Lookup type names seen in lookups, statistics or blocked values, sorted. */
  types: string[];
  /** Requests the whole read cost. */
  requests: number;
}

/** The limit the oracle reads with: the document's sample, and the maximum of the autopilot scans. */
const ORACLE_LIMIT = 100;
/** Pages the model reads of one scan at most: 20,000 records. */
const ORACLE_PAGES = 200;

export interface ReadPage {
  response: ApiResponse<unknown>;
  values: Rec[];
  scrollId?: string;
  end: boolean;
}

/** One scan answer as a page: its records, its scrollId, whether it ends the scroll (no scrollId, or no
 *  records: the end-of-results signals deployments use). Undefined when it is not a scan page. */
export function readPage(response: ApiResponse<unknown>): ReadPage | undefined {
  const page = pageOf(response as ApiResponse<never>) as { values: Rec[]; scrollId?: string } | undefined;
  if (page === undefined) return undefined;
  const out: ReadPage = { response, values: page.values, end: !page.scrollId || page.values.length === 0 };
  if (page.scrollId !== undefined) out.scrollId = page.scrollId;
  return out;
}

export function endpointOf(tenant: string, kind: ScanKind, type?: string): ScanEndpoint {
  if (kind === "autopilot-type") return { kind, tenantId: tenant, lookupType: type ?? "" };
  return { kind, tenantId: tenant };
}

/** A whole scroll with the target's own paging, distinct records in the order they came. */
async function wholeScroll(
  ctx: CheckContext,
  client: InterfaceClient,
  endpoint: ScanEndpoint,
  counter: { requests: number },
): Promise<Rec[]> {
  const auth = await ctx.token("admin");
  const encoding = await scrollEncodingFor(ctx, "admin", endpoint);
  const query: ScanQuery = { limit: ORACLE_LIMIT };
  const seen = new Map<string, Rec>();
  let response: ApiResponse<unknown> = await client.scanFirst(auth, endpoint, query);
  let previous = "";
  for (let pages = 1; ; pages++) {
    counter.requests++;
    const page = readPage(response);
    if (page === undefined)
      fail(`the explorer's first read of ${endpoint.kind}: not a scan page: ${describeResponse(response)}`, {
        expected: 'a scan page {"scrollId", "values": [...]}',
        actual: `${response.status} ${response.text.slice(0, 200)}`,
      });
    const kind = endpoint.kind;
    for (const record of page.values) seen.set(identityOf(kind, record), record);
    if (page.end) return [...seen.values()];
    // The same scrollId with the same page again: a scan that makes no progress (a static mock's
    // example) gives the model nothing to hold; the scan checks judge it.
    const shown = `${page.scrollId}\n${JSON.stringify(page.values)}`;
    if (shown === previous)
      inconclusive({
        saw: `the ${endpoint.kind} scan answered the same page under the same scrollId again`,
        readings: ["a scan the explorer cannot model (no progress)", "a scan that does not page"],
        decideBy: "run the explorer against a target whose scans page (the scan checks judge this one)",
      });
    previous = shown;
    // A tenant too large for the model (or a scan that never ends: the scan checks' finding) leaves the
    // explorer without its oracle.
    if (pages >= ORACLE_PAGES)
      inconclusive({
        saw: `the ${endpoint.kind} scan still had a scrollId after ${ORACLE_PAGES} pages of ${ORACLE_LIMIT}`,
        readings: ["the tenant holds more records than the explorer models", "the scan never ends"],
        decideBy:
          "point the target file's tenant at a tenant of fewer records (the scan checks judge the end)",
      });
    response = await client.scanNext(auth, endpoint, page.scrollId as string, encoding, query);
  }
}

/** Every blocked value of a type, read with offset paging of 100 until a short page. */
export async function wholeBlocked(
  ctx: CheckContext,
  client: InterfaceClient,
  type: string,
  counter: { requests: number },
): Promise<Rec[]> {
  const auth = await ctx.token("admin");
  const out: Rec[] = [];
  for (let offset = 0; offset < 100_000; offset += ORACLE_LIMIT) {
    const response = await client.blockedValues(auth, ctx.target.tenant, type, {
      offset,
      limit: ORACLE_LIMIT,
    });
    counter.requests++;
    // A type without blocked values may be unknown to the listing: nothing to list.
    if (!response.ok || !Array.isArray(response.body)) return out;
    const list = response.body as Rec[];
    out.push(...list);
    if (list.length < ORACLE_LIMIT) return out;
  }
  return out;
}

/** Reads the target's data whole: the model's state before any command. */
export async function observe(ctx: CheckContext, client: InterfaceClient): Promise<Observed> {
  const tenant = ctx.target.tenant;
  const counter = { requests: 0 };
  const lookups = await wholeScroll(ctx, client, endpointOf(tenant, "lookups"), counter);
  const statistics = await wholeScroll(ctx, client, endpointOf(tenant, "autopilot"), counter);
  if (lookups.length === 0 && statistics.length === 0)
    inconclusive({
      saw: `tenant ${tenant} answered no lookup and no statistic`,
      readings: ["the tenant holds none", "the scans answer nothing"],
      decideBy: "point the target file's tenant at a tenant with lookups and autopilot statistics",
    });
  const typeSet = new Set<string>([
    ...lookups.map((r) => typeName(String(r.type))),
    ...statistics.map((r) => typeName(String(r.lookupType))),
  ]);
  const types = [...typeSet].sort();
  const blocked = new Map<string, Rec[]>();
  for (const type of types) blocked.set(type, await wholeBlocked(ctx, client, type, counter));
  return { tenant, lookups, statistics, blocked, types, requests: counter.requests };
}

// ---------------------------------------------------------------- legal answers

/** A filter the explorer sends: only equals(field,'value'), the grammar the document shows. */
export interface EqualsFilter {
  field: string;
  value: string;
}

export function filterText(filter: EqualsFilter): string {
  return `equals(${filter.field},'${filter.value.replaceAll("'", "\\'")}')`;
}

/** Fields holding a lookup type: equals on them may compare by type name (the document's sample passes a
 *  name where lookups store a URI), or by the stored form. */
const TYPE_FIELDS = new Set(["type", "lookupType"]);

/**
 * Whether a record answers equals(field,'value'): "yes" where the field holds exactly the value (the
 * document's words), "no" where the record lacks the field or holds a value no reading makes equal, and
 * "either" where only a legal reading does (case ignored; a type compared by name; a number written as a
 * string).
 */
export function equalsVerdict(record: Rec, filter: EqualsFilter): "yes" | "no" | "either" {
  const actual = record[filter.field];
  if (actual === undefined || actual === null) return "no";
  if (typeof actual === "string") {
    if (actual === filter.value) return "yes";
    const fold = (s: string) => s.toLowerCase();
    if (fold(actual) === fold(filter.value)) return "either";
    if (TYPE_FIELDS.has(filter.field) && fold(typeName(actual)) === fold(typeName(filter.value)))
      return "either";
    return "no";
  }
  if (typeof actual === "number" || typeof actual === "boolean")
    return String(actual) === filter.value ? "either" : "no";
  return "no";
}

/** The records a scan serves for a query: `must` (every one is answered) and `may` (no other one is). */
export interface LegalSet {
  must: Set<string>;
  may: Set<string>;
}

export function recordsOf(observed: Observed, kind: ScanKind, type?: string): Rec[] {
  if (kind === "lookups") return observed.lookups;
  if (kind === "autopilot") return observed.statistics;
  return observed.statistics.filter((r) => typeName(String(r.lookupType)) === type);
}

export function legalSet(observed: Observed, kind: ScanKind, type?: string, filter?: EqualsFilter): LegalSet {
  const must = new Set<string>();
  const may = new Set<string>();
  for (const record of recordsOf(observed, kind, type)) {
    const id = identityOf(kind, record);
    const verdict = filter ? equalsVerdict(record, filter) : "yes";
    if (verdict === "yes") must.add(id);
    if (verdict !== "no") may.add(id);
  }
  return { must, may };
}

type Scalar = string | number | boolean;
const scalar = (v: unknown): v is Scalar =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const codeUnit = (a: Scalar, b: Scalar) => (a === b ? 0 : a < b ? -1 : 1);
const foldCase = (a: Scalar, b: Scalar) =>
  typeof a === "string" && typeof b === "string"
    ? codeUnit(a.toLowerCase(), b.toLowerCase())
    : codeUnit(a, b);

/** The first record out of `order` of `field` under both legal comparisons (code unit, case folded), or
 *  undefined. Ties are any order; records without the field, or of another type, are placed anywhere. */
export function disorder(records: readonly Rec[], field: string, order: "asc" | "desc"): number | undefined {
  const values = records.map((r) => r[field]).filter(scalar);
  const direction = order === "asc" ? 1 : -1;
  const first = (compare: (a: Scalar, b: Scalar) => number) => {
    for (let i = 1; i < values.length; i++) {
      const [a, b] = [values[i - 1] as Scalar, values[i] as Scalar];
      if (typeof a === typeof b && direction * compare(a, b) > 0) return i;
    }
    return undefined;
  };
  const strict = first(codeUnit);
  return strict === undefined || first(foldCase) === undefined ? undefined : strict;
}

/** A lookup type as the lookups scan stores it (URI) or as the statistics name it (name). */
export function typeValue(kind: ScanKind, type: string): string {
  return kind === "lookups" ? lookupTypeUri(type) : type;
}
