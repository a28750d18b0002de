// What the interface document asks of the service, judged on traffic it served to others: every answer
// against the contract, refusals of requests without a token or with one the traffic saw expire, and the
// scrolls the clients walked (no record twice, order and filter kept, no page above its limit). Each rule
// counts the opportunities it judged; where the traffic cannot decide (a scroll abandoned before a repeat
// could show, a token whose expiry was never observed, a body the recorder cut) it says so, never a pass.

import type { Level } from "../check/index.ts";
import { type ContractOperation, isObject, loadContract } from "../contract/index.ts";
import { scrollIdSent } from "../rules/caller/caller-rules.ts";
import type { Traffic, TrafficExchange } from "../rules/caller/traffic.ts";
import { parseJson } from "../rules/caller/traffic.ts";

/** An exchange as the judge reads it: the caller rules' model, and what the recording could not keep. */
export interface ObservedExchange extends TrafficExchange {
  responseCut?: true;
  noAnswer?: true;
}

export interface ObservedTraffic extends Traffic {
  exchanges: ObservedExchange[];
}

export interface ServiceViolation {
  seq: number;
  message: string;
}

/** A service rule's verdict: judged opportunities and violations, and what the traffic left undecided. */
export interface ServiceVerdict {
  opportunities: number;
  violations: ServiceViolation[];
  /** Moments the rule met but could not decide, with why (counted, said, never passed). */
  undecided: { count: number; why: string };
  /** Why there was nothing to judge (used when opportunities and undecided are both 0). */
  notExercised: string;
}

export interface ServiceRule {
  id: string;
  title: string;
  level: Level;
  requirements: readonly string[];
  /** What one opportunity is, in the report's words. */
  opportunity: string;
  judge(traffic: ObservedTraffic): ServiceVerdict;
}

const SCANS = new Set(["scanLookups", "scanAutopilotStats", "scanAutopilotStatsByType"]);
/** Slack for clocks: a token used within this of its expiry is not judged as expired. */
const EXPIRY_SLACK_MS = 2_000;

const answered = (x: ObservedExchange) => x.noAnswer !== true;
const ok = (x: ObservedExchange) => x.status >= 200 && x.status < 300;

/** x-requirements of the schemas an operation's responses use, else the operation's own (as the schema
 *  suite traces them). */
function responseRequirements(operation: ContractOperation): string[] {
  const found = new Set<string>();
  const seen = new WeakSet<object>();
  const walk = (node: unknown) => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    const own = (node as Record<string, unknown>)["x-requirements"];
    if (Array.isArray(own)) for (const id of own) if (typeof id === "string") found.add(id);
    for (const value of Object.values(node)) walk(value);
  };
  walk(operation.raw.responses);
  return found.size > 0 ? [...found] : [...operation.requirements];
}

/** One rule per operation: every answer the traffic holds for it, against the contract's responses. */
function responseContractRule(operation: ContractOperation): ServiceRule {
  const contract = loadContract();
  const responses = isObject(operation.raw.responses) ? operation.raw.responses : {};
  return {
    id: `service/contract/${operation.operationId}`,
    // SHOULD, as the schema suite: the documents hold the kit's choices where the interface is silent.
    level: "SHOULD",
    title: `SHOULD answer ${operation.operationId} (${operation.method} ${operation.path}) as the contract declares: status, content type and body`,
    requirements: responseRequirements(operation),
    opportunity: `an answer to ${operation.operationId}`,
    judge(traffic) {
      const violations: ServiceViolation[] = [];
      let opportunities = 0;
      let cut = 0;
      for (const x of traffic.exchanges) {
        if (x.operation !== operation.operationId || !answered(x)) continue;
        // "Rate limits: not shown": a gateway's 429 the operation does not declare is the link's answer.
        if (x.status === 429 && !("429" in responses)) continue;
        if (x.responseCut) {
          cut += 1;
          continue;
        }
        opportunities += 1;
        const found = contract.validateResponse(
          operation.operationId,
          x.status,
          x.responseHeaders["content-type"],
          x.responseBody,
        );
        if (found.length > 0)
          violations.push({
            seq: x.seq,
            message: `${x.status} to ${x.method} ${x.pathname}: ${found
              .slice(0, 3)
              .map((v) => v.message)
              .join("; ")}`,
          });
      }
      return {
        opportunities,
        violations,
        undecided: { count: cut, why: "answers whose body the recording cut" },
        notExercised: `the traffic holds no answer to ${operation.operationId}`,
      };
    },
  };
}

const missingToken: ServiceRule = {
  id: "service/refuses-missing-token",
  level: "MUST",
  title: "MUST refuse a request without the Authorization header on every endpoint but the token endpoint",
  requirements: ["AUTH-01", "AUTH-02"],
  opportunity: "a request without Authorization",
  judge(traffic) {
    const contract = loadContract();
    const violations: ServiceViolation[] = [];
    let opportunities = 0;
    for (const x of traffic.exchanges) {
      if (x.operation === undefined || !answered(x)) continue;
      if (!contract.operation(x.operation).requiresBearer) continue;
      if (x.headers.authorization !== undefined) continue;
      opportunities += 1;
      if (ok(x))
        violations.push({
          seq: x.seq,
          message: `${x.method} ${x.pathname} without Authorization was answered ${x.status}, not refused`,
        });
    }
    return {
      opportunities,
      violations,
      undecided: { count: 0, why: "" },
      notExercised: "every request in the traffic carried an Authorization header",
    };
  },
};

/** An Authorization value that cannot be a bearer token: another scheme, none, or characters a token68
 *  cannot hold. A redacted value ([redacted]) is a token the recorder hid, not a malformed one. */
function malformedBearer(value: string): boolean {
  if (/\[redacted\]/i.test(value)) return false;
  const match = /^bearer(?:\s+(.*))?$/i.exec(value.trim());
  if (!match) return !/^bearer\b/i.test(value.trim());
  const credential = match[1] ?? "";
  return !/^[A-Za-z0-9._~+/-]+=*$/.test(credential);
}

const malformedToken: ServiceRule = {
  id: "service/refuses-malformed-token",
  level: "MUST",
  title: "MUST refuse a request whose Authorization is not Bearer and a well-formed token",
  requirements: ["AUTH-03"],
  opportunity: "a request with a malformed Authorization value",
  judge(traffic) {
    const contract = loadContract();
    const violations: ServiceViolation[] = [];
    let opportunities = 0;
    for (const x of traffic.exchanges) {
      if (x.operation === undefined || !answered(x)) continue;
      const value = x.headers.authorization;
      if (value === undefined || !contract.operation(x.operation).requiresBearer) continue;
      if (!malformedBearer(value)) continue;
      opportunities += 1;
      if (ok(x))
        violations.push({
          seq: x.seq,
          message: `${x.method} ${x.pathname} with a malformed Authorization value was answered ${x.status}, not refused`,
        });
    }
    return {
      opportunities,
      violations,
      undecided: { count: 0, why: "" },
      notExercised: "no request in the traffic carried a malformed Authorization value",
    };
  },
};

const expiredToken: ServiceRule = {
  id: "service/refuses-expired-token",
  level: "MUST",
  title: "MUST refuse a request whose bearer token has expired",
  requirements: ["AUTH-04"],
  opportunity: "a request with a token used past the expiry its token answer gave",
  judge(traffic) {
    const issued = new Map<string, number>();
    for (const t of traffic.tokens) issued.set(t.value, t.expiresAt);
    const violations: ServiceViolation[] = [];
    let opportunities = 0;
    let unknown = 0;
    for (const x of traffic.exchanges) {
      if (x.bearer === undefined || x.operation === undefined || x.operation === "issueToken") continue;
      if (!answered(x)) continue;
      if (/\[redacted\]/i.test(x.bearer)) continue;
      const expiresAt = issued.get(x.bearer);
      if (expiresAt === undefined) {
        // Issued before the recording began: its expiry was never observed.
        unknown += 1;
        continue;
      }
      if (x.at <= expiresAt + EXPIRY_SLACK_MS) continue;
      opportunities += 1;
      if (ok(x))
        violations.push({
          seq: x.seq,
          message: `${x.method} ${x.pathname} with a token ${Math.round((x.at - expiresAt) / 1000)} s past its expiry was answered ${x.status}, not refused`,
        });
    }
    return {
      opportunities,
      violations,
      undecided: {
        count: unknown > 0 && opportunities === 0 ? unknown : 0,
        why: "requests with tokens whose issue (and so expiry) the traffic never showed",
      },
      notExercised:
        "no token was used past its expiry in the traffic (a token's expiry is known from the token answer the traffic holds)",
    };
  },
};

/** One scroll as the traffic shows it: the first request's query, its pages, whether it ended. */
interface Scroll {
  scope: string;
  first: ObservedExchange;
  query: URLSearchParams;
  pages: { x: ObservedExchange; values: unknown[] }[];
  lastId: string | undefined;
  ended: boolean;
}

function pageOf(x: ObservedExchange): { values: unknown[]; scrollId: string | undefined } | undefined {
  if (!ok(x) || x.responseCut) return undefined;
  const body = parseJson(x.responseBody);
  if (!isObject(body) || !Array.isArray(body.values)) return undefined;
  return { values: body.values, scrollId: typeof body.scrollId === "string" ? body.scrollId : undefined };
}

/** Every scroll of the traffic, its pages chained by the scrollId each next request passed. */
export function scrollsOf(traffic: ObservedTraffic): Scroll[] {
  const scrolls: Scroll[] = [];
  const open = new Map<string, Scroll>();
  for (const x of traffic.exchanges) {
    if (x.operation === undefined || !SCANS.has(x.operation)) continue;
    const page = pageOf(x);
    const sent = scrollIdSent(x.body);
    let scroll: Scroll | undefined;
    if (sent.kind === "none") {
      if (page === undefined) continue;
      scroll = {
        scope: `${x.method} ${x.pathname}`,
        first: x,
        query: new URLSearchParams(x.search),
        pages: [],
        lastId: undefined,
        ended: false,
      };
      scrolls.push(scroll);
    } else if (sent.kind === "id") {
      scroll = open.get(`${x.method} ${x.pathname} ${sent.id}`);
      if (scroll === undefined || page === undefined) continue;
      open.delete(`${scroll.scope} ${sent.id}`);
    } else continue;
    scroll.pages.push({ x, values: page.values });
    // No scrollId, or an empty page, ends the scroll (deployments do both).
    if (page.scrollId === undefined || page.values.length === 0) scroll.ended = true;
    else {
      scroll.lastId = page.scrollId;
      open.set(`${scroll.scope} ${page.scrollId}`, scroll);
    }
  }
  return scrolls;
}

/** A record's identity: type and code for a lookup, else the record as a whole. */
function identityOf(record: unknown): string {
  if (isObject(record) && record.code !== undefined && record.type !== undefined && record.uri === undefined)
    return `${String(record.type).replace(/^.*\//, "")}/${String(record.code)}`;
  return JSON.stringify(record);
}

const everyRecordOnce: ServiceRule = {
  id: "service/scroll-every-record-once",
  level: "MUST",
  title: "MUST return no record twice across the pages of one scroll",
  requirements: ["SCAN-04"],
  opportunity: "a scroll the traffic followed past its first page",
  judge(traffic) {
    const violations: ServiceViolation[] = [];
    let opportunities = 0;
    let abandoned = 0;
    for (const scroll of scrollsOf(traffic)) {
      if (scroll.pages.length < 2) {
        if (!scroll.ended) abandoned += 1;
        continue;
      }
      const seen = new Map<string, number>();
      let repeat: ServiceViolation | undefined;
      scroll.pages.forEach(({ x, values }, page) => {
        for (const record of values) {
          const id = identityOf(record);
          const before = seen.get(id);
          if (before !== undefined && before !== page && repeat === undefined)
            repeat = {
              seq: x.seq,
              message: `${scroll.scope}: record ${id} came again on page ${page + 1} of the scroll, after page ${before + 1}`,
            };
          seen.set(id, page);
        }
      });
      // A repeat decides the scroll whether it ended or not; no repeat in a scroll that was left midway
      // cannot show that the rest would have held none.
      if (repeat) {
        opportunities += 1;
        violations.push(repeat);
      } else if (scroll.ended) opportunities += 1;
      else abandoned += 1;
    }
    return {
      opportunities,
      violations,
      undecided: { count: abandoned, why: "scrolls abandoned before their end without a repeat so far" },
      notExercised: "the traffic holds no scroll followed past its first page",
    };
  },
};

type Scalar = string | number | boolean;
const scalar = (v: unknown): v is Scalar =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const codeUnit = (a: Scalar, b: Scalar) => (a === b ? 0 : a < b ? -1 : 1);
const caseless = (a: Scalar, b: Scalar) =>
  typeof a === "string" && typeof b === "string"
    ? codeUnit(a.toLowerCase(), b.toLowerCase())
    : codeUnit(a, b);

function firstDisorder(values: Scalar[], sign: number, compare: (a: Scalar, b: Scalar) => number) {
  for (let i = 1; i < values.length; i++) {
    const a = values[i - 1] as Scalar;
    const b = values[i] as Scalar;
    if (typeof a === typeof b && sign * compare(a, b) > 0) return i;
  }
  return undefined;
}

const orderKept: ServiceRule = {
  id: "service/scroll-order-kept",
  level: "MUST",
  title: "MUST keep the order sort and order ask for across the pages of a scroll",
  requirements: ["SCAN-06"],
  opportunity: "a scroll asked with sort and order that returned two records or more",
  judge(traffic) {
    const violations: ServiceViolation[] = [];
    let opportunities = 0;
    for (const scroll of scrollsOf(traffic)) {
      const field = scroll.query.get("sort");
      const order = scroll.query.get("order")?.toLowerCase();
      // Without order the direction is not shown: not judged.
      if (!field || (order !== "asc" && order !== "desc")) continue;
      const records = scroll.pages.flatMap((p) => p.values.map((record) => ({ record, x: p.x })));
      const values = records
        .map(({ record, x }) => ({ v: isObject(record) ? record[field] : undefined, x }))
        .filter((r): r is { v: Scalar; x: ObservedExchange } => scalar(r.v));
      if (values.length < 2) continue;
      opportunities += 1;
      const sign = order === "asc" ? 1 : -1;
      const plain = values.map((r) => r.v);
      const at = firstDisorder(plain, sign, codeUnit);
      // Code-unit or case-insensitive order alike (the document leaves collation open).
      if (at === undefined || firstDisorder(plain, sign, caseless) === undefined) continue;
      const x = (values[at] as { x: ObservedExchange }).x;
      violations.push({
        seq: x.seq,
        message: `${scroll.scope}?sort=${field}&order=${order}: ${JSON.stringify(plain[at])} follows ${JSON.stringify(plain[at - 1])}`,
      });
    }
    return {
      opportunities,
      violations,
      undecided: { count: 0, why: "" },
      notExercised: "no scroll in the traffic was asked with both sort and order",
    };
  },
};

/** equals(field,'value') and equals(field,"value"): the document's sample; other grammar is not judged. */
const EQUALS = /^\s*equals\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*$/;

function sameValue(actual: unknown, wanted: string, field: string): boolean {
  if (!scalar(actual)) return false;
  const a = String(actual);
  if (a === wanted || a.toLowerCase() === wanted.toLowerCase()) return true;
  // A lookup type compares by its name: rdm/lookupTypes/Country and Country alike.
  return field === "type" && a.replace(/^.*\//, "") === wanted.replace(/^.*\//, "");
}

const filterKept: ServiceRule = {
  id: "service/scroll-filter-kept",
  level: "MUST",
  title: "MUST return only records whose field holds the value an equals filter names",
  requirements: ["SCAN-07"],
  opportunity: "a scroll asked with an equals(field,'value') filter that returned records",
  judge(traffic) {
    const violations: ServiceViolation[] = [];
    let opportunities = 0;
    for (const scroll of scrollsOf(traffic)) {
      const match = EQUALS.exec(scroll.query.get("filter") ?? "");
      if (!match) continue;
      const field = match[1] as string;
      const wanted = (match[2] ?? match[3]) as string;
      if (scroll.pages.every((p) => p.values.length === 0)) continue;
      opportunities += 1;
      for (const { x, values } of scroll.pages) {
        const other = values.find((r) => !sameValue(isObject(r) ? r[field] : undefined, wanted, field));
        if (other !== undefined) {
          violations.push({
            seq: x.seq,
            message: `${scroll.scope}?filter=equals(${field},'${wanted}') returned ${identityOf(other)} whose ${field} is ${JSON.stringify(isObject(other) ? other[field] : other)}`,
          });
          break;
        }
      }
    }
    return {
      opportunities,
      violations,
      undecided: { count: 0, why: "" },
      notExercised: "no scroll in the traffic was asked with an equals(field,'value') filter",
    };
  },
};

/** The limit a page answers to: its request's, else its scroll's first request's; the documented default
 *  (100) when none was given. */
const DEFAULT_LIMIT = 100;

const pageWithinLimit: ServiceRule = {
  id: "service/page-within-limit",
  level: "MUST",
  title: "MUST never return more records in a page than the limit asked for (100 when none)",
  requirements: ["LOOKUP-SCAN-03", "AUTOPILOT-03", "BLOCKED-03"],
  opportunity: "a page of a scan or of blocked values",
  judge(traffic) {
    const violations: ServiceViolation[] = [];
    let opportunities = 0;
    const limitOf = (search: string) => {
      const raw = new URLSearchParams(search).get("limit");
      return raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
    };
    for (const scroll of scrollsOf(traffic)) {
      const scrollLimit = limitOf(scroll.first.search);
      for (const { x, values } of scroll.pages) {
        const limit = limitOf(x.search) ?? scrollLimit;
        // The lookups scan's default is the kit's assumption (not shown): only an asked limit is judged.
        if (limit === undefined && x.operation === "scanLookups") continue;
        const bound = Math.min(limit ?? DEFAULT_LIMIT, DEFAULT_LIMIT);
        opportunities += 1;
        if (values.length > bound)
          violations.push({
            seq: x.seq,
            message: `${x.method} ${x.pathname}${x.search}: a page of ${values.length} records, above its limit ${bound}`,
          });
      }
    }
    for (const x of traffic.exchanges) {
      if (x.operation !== "listBlockedValues" || !ok(x) || x.responseCut) continue;
      const body = parseJson(x.responseBody);
      if (!Array.isArray(body)) continue;
      const bound = Math.min(limitOf(x.search) ?? DEFAULT_LIMIT, DEFAULT_LIMIT);
      opportunities += 1;
      if (body.length > bound)
        violations.push({
          seq: x.seq,
          message: `${x.method} ${x.pathname}${x.search}: ${body.length} blocked values, above the limit ${bound}`,
        });
    }
    return {
      opportunities,
      violations,
      undecided: { count: 0, why: "" },
      notExercised: "the traffic holds no page of a scan or of blocked values",
    };
  },
};

/** Every service rule, in report order: the refusals, the scrolls and limits, then one per operation. */
export function serviceRules(): ServiceRule[] {
  return [
    missingToken,
    malformedToken,
    expiredToken,
    everyRecordOnce,
    orderKept,
    filterKept,
    pageWithinLimit,
    ...loadContract().operations.map(responseContractRule),
  ];
}
