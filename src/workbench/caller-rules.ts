// What the interface document asks of a caller, as rules over a client's recorded traffic (lckit client
// check). Each rule has a stable id, a level and the catalogue requirement it traces to; it returns its
// violations as data (the exchange at fault and what was wrong), or says it had nothing to judge.
import type { Level } from "../check/index.ts";
import { bearerOf, parseJson, type Traffic, type TrafficExchange } from "./traffic.ts";

export interface Violation {
  /** seq of the exchange at fault. */
  seq: number;
  message: string;
}

export type RuleVerdict =
  | { status: "passed"; judged: number }
  | { status: "failed"; judged: number; violations: Violation[] }
  /** Nothing in the traffic this rule judges: said, never a pass. */
  | { status: "skipped"; reason: string };

export interface CallerRule {
  /** Stable check id (reports and allow-lists key on it). */
  id: string;
  requirement: string;
  level: Level;
  title: string;
  judge(traffic: Traffic): RuleVerdict;
}

const LOOKUP_DATA_AND_AUTOPILOT = new Set([
  "getHealthcheck",
  "getStatus",
  "getVersion",
  "createTask",
  "getTask",
  "scanLookups",
  "scanAutopilotStats",
  "scanAutopilotStatsByType",
  "listBlockedValues",
]);
const SCANS = new Set(["scanLookups", "scanAutopilotStats", "scanAutopilotStatsByType"]);
/** The operations whose page size the document bounds ("default 100, maximum 100"). */
const BOUNDED_PAGES = new Set(["scanAutopilotStats", "scanAutopilotStatsByType", "listBlockedValues"]);
export const MAX_PAGE_SIZE = 100;

function verdict(judged: number, violations: Violation[], nothing: string): RuleVerdict {
  if (judged === 0) return { status: "skipped", reason: nothing };
  return violations.length > 0 ? { status: "failed", judged, violations } : { status: "passed", judged };
}

const where = (x: TrafficExchange) => `${x.method} ${x.pathname}`;

/** A scan request body as a scroll id (raw, JSON string, or {"scrollId": ...}), none, or something else. */
export function scrollIdSent(
  body: string | undefined,
): { kind: "none" } | { kind: "id"; id: string } | { kind: "other" } {
  if (body === undefined || body.trim() === "" || body.trim() === "null") return { kind: "none" };
  const parsed = parseJson(body);
  if (parsed === undefined) return { kind: "id", id: body.trim() };
  if (typeof parsed === "string") return { kind: "id", id: parsed };
  if (
    parsed !== null &&
    typeof parsed === "object" &&
    typeof (parsed as { scrollId?: unknown }).scrollId === "string"
  )
    return { kind: "id", id: (parsed as { scrollId: string }).scrollId };
  return { kind: "other" };
}

/** The scan walk of one traffic, shared by the three scan rules. */
const scanWalks = new WeakMap<Traffic, ReturnType<typeof walkScans>>();
function scanViolations(traffic: Traffic): ReturnType<typeof walkScans> {
  let walk = scanWalks.get(traffic);
  if (!walk) {
    walk = walkScans(traffic);
    scanWalks.set(traffic, walk);
  }
  return walk;
}

/** Walks the scans of the traffic once and sorts each continuation request into the scan rule it breaks. */
function walkScans(traffic: Traffic): {
  judged: number;
  first: Violation[];
  next: Violation[];
  afterEnd: Violation[];
} {
  const open = new Map<string, Set<string>>();
  const ended = new Map<string, Set<string>>();
  const out = { judged: 0, first: [] as Violation[], next: [] as Violation[], afterEnd: [] as Violation[] };
  for (const x of traffic.exchanges) {
    if (!x.operation || !SCANS.has(x.operation)) continue;
    out.judged += 1;
    const key = x.pathname;
    const openIds = open.get(key) ?? new Set<string>();
    const endedIds = ended.get(key) ?? new Set<string>();
    open.set(key, openIds);
    ended.set(key, endedIds);
    const sent = scrollIdSent(x.body);
    let continued: string | undefined;
    if (sent.kind === "id" && openIds.has(sent.id)) continued = sent.id;
    else if (sent.kind === "id" && endedIds.has(sent.id)) {
      out.afterEnd.push({
        seq: x.seq,
        message: `${where(x)} asked for another page of a scroll whose end was already answered (no scrollId, or null)`,
      });
    } else if (sent.kind !== "none" && openIds.size === 0) {
      out.first.push({
        seq: x.seq,
        message: `${where(x)} opened a scan with a body (${JSON.stringify((x.body ?? "").slice(0, 60))}); the first request has no body or a null body`,
      });
    } else if (sent.kind !== "none") {
      const expected = [...openIds].slice(-1)[0] ?? "";
      const got =
        sent.kind === "id"
          ? `scrollId "${sent.id.slice(0, 40)}"`
          : `the body ${JSON.stringify((x.body ?? "").slice(0, 60))}`;
      out.next.push({
        seq: x.seq,
        message: `${where(x)} passed ${got}, not the scrollId the previous answer gave ("${expected.slice(0, 40)}")`,
      });
    }
    if (x.status !== 200) continue;
    const answer = parseJson(x.responseBody) as { scrollId?: unknown } | undefined;
    if (answer === undefined || typeof answer !== "object" || answer === null) continue;
    const next = answer.scrollId;
    if (continued !== undefined) openIds.delete(continued);
    if (typeof next === "string" && next !== "") openIds.add(next);
    else if (continued !== undefined) endedIds.add(continued);
  }
  return out;
}

/** A token request declined by the quota: the body says the limit is exceeded (any status: the status is
 *  not shown), and it is not a rate limit (a gateway's or the token endpoint's). */
function isQuotaRefusal(x: TrafficExchange): boolean {
  const body = x.responseBody;
  return (
    x.operation === "issueToken" &&
    x.status >= 400 &&
    /limit/i.test(body) &&
    /exceed/i.test(body) &&
    !/rate.?limit/i.test(body)
  );
}

/** A refusal the caller should wait after: any 429, or a token quota refusal under another status. */
function refusalWaitMs(x: TrafficExchange): number | undefined {
  if (x.status !== 429 && !isQuotaRefusal(x)) return undefined;
  const header = x.responseHeaders["retry-after"];
  const seconds = header !== undefined && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
  return (seconds ?? 1) * 1000;
}

/** Slack for the clock's granularity and the time between the client's send and the sandbox's arrival. */
const BACKOFF_SLACK_MS = 50;

export const CALLER_RULES: readonly CallerRule[] = [
  {
    id: "client/bearer-on-every-request",
    requirement: "CALLER-AUTH-01",
    level: "MUST",
    title: "MUST send Authorization: Bearer <access token> on every lookup-data and autopilot request",
    judge(traffic) {
      const judged = traffic.exchanges.filter(
        (x) => x.operation && LOOKUP_DATA_AND_AUTOPILOT.has(x.operation),
      );
      const violations = judged
        .filter((x) => bearerOf(x.headers) === undefined)
        .map((x) => ({
          seq: x.seq,
          message: `${where(x)} was sent ${x.headers.authorization === undefined ? "without an Authorization header" : `with Authorization "${x.headers.authorization.split(/\s/)[0]} ...", not Bearer <access token>`}`,
        }));
      return verdict(judged.length, violations, "the client sent no lookup-data or autopilot request");
    },
  },
  {
    id: "client/scan-first-request-without-body",
    requirement: "CALLER-SCAN-01",
    level: "MUST",
    title: "MUST open a scan with no body or a null body",
    judge(traffic) {
      const { judged, first } = scanViolations(traffic);
      return verdict(judged, first, "the client sent no scan request");
    },
  },
  {
    id: "client/scan-passes-previous-scroll-id",
    requirement: "CALLER-SCAN-02",
    level: "MUST",
    title: "MUST pass the scrollId of the previous answer to get the next page",
    judge(traffic) {
      const { judged, next } = scanViolations(traffic);
      return verdict(judged, next, "the client sent no scan request");
    },
  },
  {
    id: "client/scan-stops-at-end",
    requirement: "CALLER-SCAN-03",
    level: "SHOULD",
    title: "SHOULD stop a scan at its end (an answer without a scrollId, or with a null one)",
    judge(traffic) {
      const { judged, afterEnd } = scanViolations(traffic);
      return verdict(judged, afterEnd, "the client sent no scan request");
    },
  },
  {
    id: "client/page-size-within-maximum",
    requirement: "CALLER-LIMIT-01",
    level: "MUST",
    title: `MUST ask the autopilot scans and blocked values for at most ${MAX_PAGE_SIZE} records per page`,
    judge(traffic) {
      const judged = traffic.exchanges.filter((x) => x.operation && BOUNDED_PAGES.has(x.operation));
      const violations: Violation[] = [];
      for (const x of judged) {
        const limit = new URLSearchParams(x.search).get("limit");
        if (limit !== null && Number(limit) > MAX_PAGE_SIZE)
          violations.push({
            seq: x.seq,
            message: `${where(x)} asked for limit=${limit}; the maximum is ${MAX_PAGE_SIZE}`,
          });
      }
      return verdict(
        judged.length,
        violations,
        "the client sent no autopilot scan or blocked values request",
      );
    },
  },
  {
    id: "client/delete-task-body",
    requirement: "CALLER-TASK-01",
    level: "MUST",
    title:
      "MUST send a delete task body of the documented shape (type delete; parameters.type a string, parameters.uris strings)",
    judge(traffic) {
      const judged = traffic.exchanges.filter((x) => x.operation === "createTask");
      const violations: Violation[] = [];
      for (const x of judged) {
        const problem = deleteTaskProblem(x.body);
        if (problem) violations.push({ seq: x.seq, message: `${where(x)}: ${problem}` });
      }
      return verdict(judged.length, violations, "the client sent no delete task");
    },
  },
  {
    id: "client/token-reuse",
    requirement: "CALLER-TOKEN-01",
    level: "SHOULD",
    title:
      "SHOULD reuse a valid access token rather than request one per call when multi-token support is on",
    judge(traffic) {
      const violations: Violation[] = [];
      let judged = 0;
      const tokenRequests = new Map<string, TrafficExchange[]>();
      const apiCalls = new Map<string, number>();
      for (const x of traffic.exchanges) {
        if (x.clientId === undefined) continue;
        if (x.operation === "issueToken") {
          const list = tokenRequests.get(x.clientId);
          if (list) list.push(x);
          else tokenRequests.set(x.clientId, [x]);
        } else apiCalls.set(x.clientId, (apiCalls.get(x.clientId) ?? 0) + 1);
      }
      for (const client of traffic.clients.values()) {
        if (!client.multitoken) continue;
        const requests = tokenRequests.get(client.clientId) ?? [];
        if (requests.length === 0) continue;
        judged += requests.length;
        const max = client.maxActiveTokensAllowed;
        const issued = traffic.tokens.filter((t) => t.clientId === client.clientId);
        const calls = apiCalls.get(client.clientId) ?? 0;
        const refused = requests.find(isQuotaRefusal);
        // Active tokens at each token request: issued before it minus expired before it (both in time order).
        const expiries = issued.map((t) => t.expiresAt).sort((a, b) => a - b);
        let peak = 0;
        let peakAt = requests[0] as TrafficExchange;
        let issuedBefore = 0;
        let expiredBefore = 0;
        for (const x of requests) {
          while (
            issuedBefore < issued.length &&
            (issued[issuedBefore] as { issuedAt: number }).issuedAt <= x.at
          )
            issuedBefore++;
          while (expiredBefore < expiries.length && (expiries[expiredBefore] as number) <= x.at)
            expiredBefore++;
          const active = issuedBefore - expiredBefore;
          if (active > peak) {
            peak = active;
            peakAt = x;
          }
        }
        const figures = `${issued.length} tokens for ${calls} API calls, at most ${peak} active at once${max === undefined ? "" : ` (maxActiveTokensAllowed ${max})`}`;
        if (refused) {
          violations.push({
            seq: refused.seq,
            message: `client ${client.clientId} ran into its token quota (limit exceeded): ${figures}; keep a token and use it until it nears expiry`,
          });
        } else if (max !== undefined && peak >= max) {
          violations.push({
            seq: peakAt.seq,
            message: `client ${client.clientId} held its whole quota of tokens at once: ${figures}; the next token request would be refused`,
          });
        }
      }
      return verdict(judged, violations, "no client with multi-token support on requested a token");
    },
  },
  {
    id: "client/backoff-after-refusal",
    requirement: "CALLER-BACKOFF-01",
    level: "SHOULD",
    title:
      "SHOULD wait (Retry-After, else a second) after a limit-exceeded refusal or a 429 instead of retrying at once",
    judge(traffic) {
      const violations: Violation[] = [];
      let judged = 0;
      const waiting = new Map<string, { x: TrafficExchange; until: number }>();
      for (const x of traffic.exchanges) {
        const key = x.clientId ?? "(unknown client)";
        const pending = waiting.get(key);
        if (pending) {
          waiting.delete(key);
          judged += 1;
          if (x.at < pending.until - BACKOFF_SLACK_MS) {
            violations.push({
              seq: x.seq,
              message: `${where(x)} came ${x.at - pending.x.at} ms after ${pending.x.status} to ${where(pending.x)}; it should have waited ${pending.until - pending.x.at} ms`,
            });
          }
        }
        const wait = refusalWaitMs(x);
        if (wait !== undefined) waiting.set(key, { x, until: x.at + wait });
      }
      // A refusal after which the client sent nothing more: it stopped, which is waiting.
      judged += waiting.size;
      return verdict(
        judged,
        violations,
        "no request was refused with 429 or limit exceeded; set a rate limit through the control interface (PUT /rate-limit) to judge back-off",
      );
    },
  },
];

function deleteTaskProblem(body: string | undefined): string | undefined {
  if (body === undefined) return 'no body; send {"type": "delete"}';
  const parsed = parseJson(body) as Record<string, unknown> | undefined;
  if (parsed === undefined || parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    return `the body is not a JSON object (${JSON.stringify(body.slice(0, 60))}); send {"type": "delete", ...}`;
  if (parsed.type !== "delete") return `type is ${JSON.stringify(parsed.type)}, expected "delete"`;
  const parameters = parsed.parameters;
  if (parameters === undefined || parameters === null) return undefined;
  if (typeof parameters !== "object" || Array.isArray(parameters))
    return `parameters is ${JSON.stringify(parameters)}, expected an object`;
  const { type, uris } = parameters as Record<string, unknown>;
  if (type !== undefined && typeof type !== "string")
    return `parameters.type is ${JSON.stringify(type)}, expected a lookup type URI string`;
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((u) => typeof u === "string")))
    return `parameters.uris is ${JSON.stringify(uris).slice(0, 60)}, expected an array of lookup URI strings`;
  return undefined;
}
