// Query parameters an operation does not define, read against the document's paging model. The document
// lists each operation's query parameters and is silent on others: a provider may ignore one or refuse it,
// so a cache-buster or a trace flag is harmless (SHOULD: client/query-parameters-defined). A parameter the
// caller pages by is not: the interface offers paging only by `offset` (the blocked values) and by the
// scrollId in the body (the scans), so moving through records by another parameter asks the same page
// again (MUST: client/request-within-contract, CALLER-QUERY-01).
import type { ContractOperation } from "../../contract/index.ts";
import { loadContract } from "../../contract/index.ts";
import { callerRule, plural, type Violation, verdict } from "./caller-rule.ts";
import { scrollIdSent } from "./scroll-lifecycle.ts";
import { oncePerTraffic, parseJson, remembered, type Traffic, type TrafficExchange } from "./traffic.ts";

/** The operations whose query the rules read: lookup-data and autopilot, as the document describes them. */
function documented(x: TrafficExchange): ContractOperation | undefined {
  if (x.operation === undefined) return undefined;
  const operation = loadContract().operation(x.operation);
  if (operation.extension) return undefined;
  return operation.host === "lookup-data" || operation.path.startsWith("/configuration/")
    ? operation
    : undefined;
}

/** A query string as the rules read it against its operation: the parameters, the documented ones as one
 *  comparable text, and those the operation does not define (in the order sent). Read once per operation
 *  and query string. */
interface QueryReading {
  query: URLSearchParams;
  documented: string;
  undefinedOnes: [string, string][];
}

const queryReading = remembered((x: TrafficExchange): QueryReading => {
  const operation = documented(x) as ContractOperation;
  const defined = new Set(operation.parameters.filter((p) => p.in === "query").map((p) => p.name));
  const query = new URLSearchParams(x.search);
  const sent = [...query];
  return {
    query,
    documented: sent
      .filter(([name]) => defined.has(name))
      .sort()
      .join("&"),
    undefinedOnes: sent.filter(([name]) => !defined.has(name)),
  };
}, 10_000);

/** The reading of a documented request's query (`operation` is documented(x)). */
function readQuery(operation: ContractOperation, x: TrafficExchange): QueryReading {
  return queryReading(operation.operationId, x.search, x);
}

export interface UndefinedParameter {
  x: TrafficExchange;
  operation: ContractOperation;
  name: string;
  value: string;
  /** Set when the caller moved through the records by it: the page before, and how the value moved. */
  paged?: { from: string; before: TrafficExchange; records: number };
}

const OFFSET_WORDS = '"offset (integer, optional, default 0, starting offset)"';
const SCROLL_WORDS =
  '"Each response carries scrollId. The next request passes that scrollId in the request body to obtain the next page."';

/** How many records an answer gave: an array (the blocked values) or an object's values (the scans). */
function recordsOf(x: TrafficExchange): number {
  if (x.status !== 200) return 0;
  const answer = parseJson(x.responseBody) as unknown;
  if (Array.isArray(answer)) return answer.length;
  const values = (answer as { values?: unknown } | undefined)?.values;
  return Array.isArray(values) ? values.length : 0;
}

const integer = (value: string | undefined) =>
  value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;

/** Every query parameter a lookup-data or autopilot request carried that its operation does not define
 *  (a scroll id carried in the query is the scroll rule's finding, not this one's), each marked when the
 *  caller paged by it: the request before, of the same operation and path with the same documented query
 *  (so the same page by the document's model: the same offset, or a scan opened again without a body),
 *  gave records, and the parameter moved the way a position moves: from nothing, 0 or 1 by one (a page
 *  number) or by the records that page gave (an offset under another name). A cache-buster (a time, a
 *  random value) moves neither way. */
export const undefinedParameters = oncePerTraffic((traffic: Traffic): UndefinedParameter[] => {
  // Most clients send only what the document defines: then nothing below can find anything.
  const any = traffic.exchanges.some((x) => {
    const operation = documented(x);
    return operation !== undefined && readQuery(operation, x).undefinedOnes.length > 0;
  });
  if (!any) return [];
  let scrollIds: Set<string> | undefined;
  const scrollIdsGiven = () => {
    if (scrollIds === undefined) {
      scrollIds = new Set();
      for (const x of traffic.exchanges) {
        const id = (parseJson(x.responseBody) as { scrollId?: unknown } | undefined)?.scrollId;
        if (typeof id === "string") scrollIds.add(id);
      }
    }
    return scrollIds;
  };
  const out: UndefinedParameter[] = [];
  /** Each parameter the caller paged by, with the path it paged: `name pathname`. */
  const pagedBy = new Set<string>();
  const last = new Map<string, { x: TrafficExchange; documented: string; query: URLSearchParams }>();
  for (const x of traffic.exchanges) {
    const operation = documented(x);
    if (operation === undefined) continue;
    const read = readQuery(operation, x);
    // A scan request with a body continues a scroll: its position is the body, not the query.
    const continuing = operation.operationId !== "listBlockedValues" && scrollIdSent(x.body).kind !== "none";
    const key = `${x.method} ${x.pathname}`;
    const before = continuing ? undefined : last.get(key);
    for (const [name, value] of read.undefinedOnes) {
      if (scrollIdsGiven().has(value)) continue;
      const found: UndefinedParameter = { x, operation, name, value };
      if (before && before.documented === read.documented) {
        const from = before.query.get(name) ?? undefined;
        const was = from === undefined ? 0 : integer(from);
        const now = integer(value);
        const step = was !== undefined && now !== undefined ? now - was : 0;
        const records = step > 0 ? recordsOf(before.x) : 0;
        const moved = step === 1 || (step > 0 && step === records);
        const fromStart = (was ?? 2) <= 1 || pagedBy.has(`${name} ${x.pathname}`);
        if (records > 0 && moved && fromStart) {
          found.paged = { from: from ?? "(none)", before: before.x, records };
          pagedBy.add(`${name} ${x.pathname}`);
        }
      }
      out.push(found);
    }
    if (!continuing) last.set(key, { x, documented: read.documented, query: read.query });
  }
  return out;
});

/** The finding of a caller that paged by a parameter its operation does not define. */
export function pagedMessage(p: UndefinedParameter & { paged: NonNullable<UndefinedParameter["paged"]> }) {
  const { x, operation, name, value, paged } = p;
  const how =
    operation.operationId === "listBlockedValues"
      ? `the listing's position is offset, so the same offset asks the same page again; the document: ${OFFSET_WORDS}. Ask the next page with offset=<this offset + ${paged.records}>`
      : `a scan request without a body opens the scan again at its first page; the document: ${SCROLL_WORDS}. Pass the last answer's scrollId in the body`;
  return `${x.method} ${x.pathname}${x.search} (${operation.operationId}) asked for the next page by ${name}=${value} (${paged.from} at #${paged.before.seq}, which gave ${plural(paged.records, "record")}), a query parameter ${operation.operationId} does not define (it defines ${definedOf(operation)}): ${how}`;
}

const definedOf = (operation: ContractOperation) =>
  operation.parameters
    .filter((p) => p.in === "query")
    .map((p) => p.name)
    .join(", ") || "none";

const QUERY_WORDS =
  '"Lookup scan query parameters: limit (integer; ...), filter (...), sort (...), order (asc or desc)"; "Scan query parameters (both autopilot scans): filter, limit, sort, order"; "Blocked values query parameters: offset (...); limit (...)"';

export const QUERY_PARAMETERS_DEFINED = callerRule({
  id: "client/query-parameters-defined",
  requirements: ["CALLER-QUERY-02"],
  title:
    "SHOULD send on each lookup-data and autopilot request only the query parameters the document defines for its operation",
  opportunity: "a lookup-data or autopilot request with a query string",
  breaks:
    "a query parameter the operation does not define (`size`, `page`, `scroll`, a misspelt `limt`): a provider may ignore it or refuse it, so the caller cannot rely on it; a cache-buster is harmless, hence SHOULD. Paging by one is `client/request-within-contract`'s MUST finding",
  exercisedBy: "any scan or blocked values listing with a query string",
  judge(traffic: Traffic) {
    let opportunities = 0;
    for (const x of traffic.exchanges) if (x.search.length > 1 && documented(x)) opportunities += 1;
    const violations: Violation[] = [];
    const reported = new Set<string>();
    const found = undefinedParameters(traffic);
    // A parameter the caller paged by is the MUST rule's finding, on its first request too.
    for (const p of found) if (p.paged) reported.add(`${p.operation.operationId} ${p.name}`);
    for (const p of found) {
      const key = `${p.operation.operationId} ${p.name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      violations.push({
        seq: p.x.seq,
        message: `${p.x.method} ${p.x.pathname} (${p.operation.operationId}) sent ${p.name}=${p.value}, a query parameter the operation does not define (it defines ${definedOf(p.operation)}); a provider may ignore it or refuse it, so nothing can rely on it; the document: ${QUERY_WORDS}`,
      });
    }
    return verdict(
      opportunities,
      violations,
      "your client sent no lookup-data or autopilot request with a query string; run the tests that scan or list blocked values",
    );
  },
});
