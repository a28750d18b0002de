// What the interface document asks of a caller, as rules over a client's recorded traffic (lckit client
// check). Each rule is declared in the one shape of the kit's rules (defineRule, kind "caller"): a stable
// id, a title that starts with its level, and the catalogue requirements it traces to; it counts its
// opportunities (the moments the traffic gave it something to judge, not the requests it looked at) and
// returns its violations as data (the exchange at fault and what was wrong). A rule with no opportunity is
// not exercised, and says what would exercise it: never a pass.
import { defineRule, type Rule, type RuleDeclaration } from "../check/index.ts";
import { SCROLL_CONTINUED_BY_ITS_ID, SCROLL_ENDED, scrollIdSent } from "./caller-scroll-lifecycle.ts";
import { TOKEN_DROPPED_WHEN_OVER } from "./caller-token-lifecycle.ts";
import { type DeleteTaskReading, readDeleteTask } from "./delete-task-reading.ts";
import { REQUEST_WITHIN_CONTRACT } from "./request-contract.ts";
import { parseJson, type Traffic, type TrafficExchange } from "./traffic.ts";

export { scrollIdSent } from "./caller-scroll-lifecycle.ts";
export { type DeleteTaskReading, readDeleteTask } from "./delete-task-reading.ts";

export interface Violation {
  /** seq of the exchange at fault. */
  seq: number;
  message: string;
}

export type RuleVerdict =
  | { status: "passed"; opportunities: number }
  | { status: "failed"; opportunities: number; violations: Violation[] }
  /** The traffic gave the rule nothing to judge: said, with what would exercise it, never a pass. */
  | { status: "not-exercised"; reason: string };

/** A caller rule as declared: a rule of kind "caller" (src/check/rule.ts) whose judge reads the traffic. */
export interface CallerRuleDeclaration extends RuleDeclaration {
  /** What one opportunity of the rule is, in the team's terms (docs and reports). */
  opportunity: string;
  /** What breaks it, in the team's terms (Markdown: the table of docs/consumers.md). */
  breaks: string;
  /** What in a team's tests gives it an opportunity (Markdown: the table of docs/consumers.md). */
  exercisedBy: string;
  judge(traffic: Traffic): RuleVerdict;
}

export type CallerRule = Rule<"caller", CallerRuleDeclaration>;

const callerRule = (declaration: CallerRuleDeclaration): CallerRule => defineRule("caller", declaration);

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

/** The provider choice of the sweep whose lookups scan serves short pages (lckit serve --help-variants). */
export const SHORT_PAGES_VARIANT = "short-pages";

function verdict(opportunities: number, violations: Violation[], notExercised: string): RuleVerdict {
  if (opportunities === 0) return { status: "not-exercised", reason: notExercised };
  return violations.length > 0
    ? { status: "failed", opportunities, violations }
    : { status: "passed", opportunities };
}

const where = (x: TrafficExchange) => `${x.method} ${x.pathname}`;
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** The scan walk of one traffic, shared by the three scan rules. */
const scanWalks = new WeakMap<Traffic, ScanWalk>();
function scanWalk(traffic: Traffic): ScanWalk {
  let walk = scanWalks.get(traffic);
  if (!walk) {
    walk = walkScans(traffic);
    scanWalks.set(traffic, walk);
  }
  return walk;
}

interface ScanWalk {
  /** Requests that opened a scan (with or without the body they should not carry). */
  openings: number;
  /** Next-page requests: a body sent while an answer of that scan path had carried a scrollId. */
  nextPages: number;
  /** Answers that carried a scrollId. */
  scrollAnswers: number;
  /** Scrolls that ended after a next page: the client held an id whose end it was told. */
  ends: number;
  first: Violation[];
  next: Violation[];
  afterEnd: Violation[];
}

/** Walks the scans of the traffic once and sorts each request into the scan rule it gives an opportunity to. */
function walkScans(traffic: Traffic): ScanWalk {
  const open = new Map<string, Set<string>>();
  const ended = new Map<string, Set<string>>();
  const out: ScanWalk = {
    openings: 0,
    nextPages: 0,
    scrollAnswers: 0,
    ends: 0,
    first: [],
    next: [],
    afterEnd: [],
  };
  for (const x of traffic.exchanges) {
    if (!x.operation || !SCANS.has(x.operation)) continue;
    const key = x.pathname;
    const openIds = open.get(key) ?? new Set<string>();
    const endedIds = ended.get(key) ?? new Set<string>();
    open.set(key, openIds);
    ended.set(key, endedIds);
    const sent = scrollIdSent(x.body);
    let continued: string | undefined;
    if (sent.kind === "id" && openIds.has(sent.id)) {
      out.nextPages += 1;
      continued = sent.id;
    } else if (sent.kind === "id" && endedIds.has(sent.id)) {
      out.afterEnd.push({
        seq: x.seq,
        message: `${where(x)} asked for another page of a scroll whose end was already answered (no scrollId, or null)`,
      });
    } else if (sent.kind === "none") out.openings += 1;
    else if (openIds.size === 0) {
      out.openings += 1;
      out.first.push({
        seq: x.seq,
        message: `${where(x)} opened a scan with a body (${JSON.stringify((x.body ?? "").slice(0, 60))}); the first request has no body or a null body`,
      });
    } else {
      out.nextPages += 1;
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
    if (typeof next === "string" && next !== "") {
      out.scrollAnswers += 1;
      openIds.add(next);
    } else if (continued !== undefined) {
      out.ends += 1;
      endedIds.add(continued);
    }
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

/** One token as a client obtained it: the token request that issued it and the calls it served. */
interface Holding {
  value: string;
  issuedSeq: number;
  issuedAt: number;
  expiresAt: number;
  /** at of each call that carried it. */
  uses: number[];
  /** A call with it was answered 401 or 403: the client may well replace it. */
  refusedAt?: number;
}

/** What one client did with tokens. */
interface ClientTokens {
  held: Holding[];
  /** Calls that carried a token of the client. */
  calls: number;
  /** The client's token requests. */
  requests: TrafficExchange[];
  /** Calls made while a token of the client could serve them (before it). */
  servedOpportunities: number;
}

/** The tokens each client obtained, in issue order, with the calls each served. A call is credited to the
 *  latest issue of its token value at or before it (without multi-token support the same value returns). */
function holdingsOf(traffic: Traffic): Map<string, ClientTokens> {
  const byClient = new Map<string, ClientTokens>();
  const of = (clientId: string): ClientTokens => {
    let entry = byClient.get(clientId);
    if (!entry) {
      entry = { held: [], calls: 0, requests: [], servedOpportunities: 0 };
      byClient.set(clientId, entry);
    }
    return entry;
  };
  const byValue = new Map<string, Holding[]>();
  const issues = [...traffic.tokens].sort((a, b) => a.issuedAt - b.issuedAt);
  for (const t of issues) {
    const holding: Holding = {
      value: t.value,
      issuedSeq: t.seq,
      issuedAt: t.issuedAt,
      expiresAt: t.expiresAt,
      uses: [],
    };
    of(t.clientId).held.push(holding);
    const ofValue = byValue.get(t.value);
    if (ofValue) ofValue.push(holding);
    else byValue.set(t.value, [holding]);
  }
  for (const x of traffic.exchanges) {
    if (x.clientId === undefined) continue;
    if (x.operation === "issueToken") {
      of(x.clientId).requests.push(x);
      continue;
    }
    const bearer = x.bearer;
    if (bearer === undefined) continue;
    const candidates = byValue.get(bearer) ?? [];
    let holding: Holding | undefined;
    for (const h of candidates) if (h.issuedAt <= x.at) holding = h;
    if (!holding) continue;
    const client = of(x.clientId);
    client.calls += 1;
    if (client.held.some((h) => couldServe(h, x.at))) client.servedOpportunities += 1;
    holding.uses.push(x.at);
    if ((x.status === 401 || x.status === 403) && holding.refusedAt === undefined) holding.refusedAt = x.at;
  }
  return byClient;
}

/** A held token could serve a call at `at`: it served one already, no call with it was refused, and more
 *  than half of its validity is left (a client may renew ahead of expiry as it likes). */
function couldServe(h: Holding, at: number): boolean {
  return (
    h.issuedAt < at &&
    h.uses.length > 0 &&
    (h.uses[0] as number) < at &&
    (h.refusedAt === undefined || h.refusedAt > at) &&
    h.expiresAt - at > (h.expiresAt - h.issuedAt) / 2
  );
}

export const CALLER_RULES: readonly CallerRule[] = [
  callerRule({
    id: "client/bearer-on-every-request",
    requirements: ["CALLER-AUTH-01"],
    title: "MUST send Authorization: Bearer <access token> on every lookup-data and autopilot request",
    opportunity: "a lookup-data or autopilot request",
    breaks: "one without `Authorization: Bearer <token>`",
    exercisedBy: "any call",
    judge(traffic) {
      const judged = traffic.exchanges.filter(
        (x) => x.operation && LOOKUP_DATA_AND_AUTOPILOT.has(x.operation),
      );
      const violations = judged
        .filter((x) => x.bearer === undefined)
        .map((x) => ({
          seq: x.seq,
          message: `${where(x)} was sent ${x.headers.authorization === undefined ? "without an Authorization header" : `with Authorization "${x.headers.authorization.split(/\s/)[0]} ...", not Bearer <access token>`}`,
        }));
      return verdict(
        judged.length,
        violations,
        "your client sent no lookup-data or autopilot request; run the tests that call the interface",
      );
    },
  }),
  callerRule({
    id: "client/scan-first-request-without-body",
    requirements: ["CALLER-SCAN-01"],
    title: "MUST open a scan with no body or a null body",
    opportunity: "a request that opens a scan",
    breaks: "a body other than none or `null`",
    exercisedBy: "any scan",
    judge(traffic) {
      const { openings, first } = scanWalk(traffic);
      return verdict(
        openings,
        first,
        "your client opened no scan (POST .../_scan); run the tests that read lookups or autopilot statistics",
      );
    },
  }),
  // The scroll lifecycle, per scroll (caller-scroll-lifecycle.ts): replaces the hand rules of the same ids.
  SCROLL_CONTINUED_BY_ITS_ID,
  SCROLL_ENDED,
  // Derived from the contract: supersedes client/page-size-within-maximum and client/delete-task-body.
  REQUEST_WITHIN_CONTRACT,
  callerRule({
    id: "client/delete-task-whole-tenant",
    requirements: ["CALLER-TASK-02"],
    title:
      "SHOULD name what a delete task deletes (parameters.type or parameters.uris); a task with neither deletes every lookup of the tenant",
    opportunity: "a delete task of the documented shape",
    breaks:
      "neither `parameters.type` nor `parameters.uris` (or an empty `uris`): every lookup of the tenant goes",
    exercisedBy: "a delete task",
    judge(traffic) {
      let opportunities = 0;
      const tasks = deleteTasks(traffic);
      const violations: Violation[] = [];
      for (const { x, read } of tasks) {
        if (read.problem !== undefined) continue;
        opportunities += 1;
        if (read.wholeTenant) violations.push({ seq: x.seq, message: `${where(x)}: ${read.wholeTenant}` });
      }
      return verdict(opportunities, violations, tasks.length === 0 ? NO_TASK : MALFORMED_TASKS);
    },
  }),
  callerRule({
    id: "client/delete-task-uris-of-its-tenant",
    requirements: ["CALLER-TASK-03"],
    title: "SHOULD list in a delete task only lookup URIs of the task's own tenant (the path's)",
    opportunity: "a delete task with parameters.uris of the documented shape",
    breaks: "a URI of another tenant than the path's (the document does not say what a task does with it)",
    exercisedBy: "a delete by URIs",
    judge(traffic) {
      let opportunities = 0;
      const tasks = deleteTasks(traffic);
      const violations: Violation[] = [];
      for (const { x, read } of tasks) {
        if (read.problem !== undefined || read.uris === undefined || read.uris.length === 0) continue;
        opportunities += 1;
        const foreign = read.uris
          .map((uri, i) => ({ uri, i }))
          .filter(({ uri }) => !uri.startsWith(`${read.tenant}/`));
        const first = foreign[0];
        if (first)
          violations.push({
            seq: x.seq,
            message: `${where(x)}: parameters.uris[${first.i}] "${first.uri}" is a lookup of tenant "${first.uri.split("/")[0]}", but the task is for tenant "${read.tenant}"${foreign.length > 1 ? ` (${foreign.length} such URIs)` : ""}; the document does not say what a task does with another tenant's lookup (a provider may refuse the task or skip the URI): send it in a task of its own tenant, POST /tasks/${first.uri.split("/")[0]}`,
          });
      }
      return verdict(
        opportunities,
        violations,
        tasks.length > 0 && tasks.every(({ read }) => read.problem !== undefined)
          ? MALFORMED_TASKS
          : "your client sent no delete task with parameters.uris of the documented shape; a client that deletes by URIs exercises it",
      );
    },
  }),
  callerRule({
    id: "client/token-reuse",
    requirements: ["CALLER-TOKEN-01"],
    title:
      "SHOULD keep using a valid access token rather than request a new one while it holds one that could serve the call",
    opportunity: "a request your client made while it held a token that had already served a call",
    breaks:
      "a new token requested while a valid one could serve the call, at any quota, multi-token support on or off (a token still used by another worker is no finding; renewing with less than half the validity left is yours to choose)",
    exercisedBy: "two or more calls",
    judge(traffic) {
      const violations: Violation[] = [];
      let opportunities = 0;
      const holdings = holdingsOf(traffic);
      for (const [clientId, { held, calls, requests, servedOpportunities }] of holdings) {
        const multitoken = traffic.clients.get(clientId)?.multitoken ?? false;
        opportunities += servedOpportunities;
        for (const x of requests) if (held.some((h) => couldServe(h, x.at))) opportunities += 1;
        const replaced: { x: TrafficExchange; h: Holding }[] = [];
        for (const x of requests) {
          const serving = held.filter((h) => couldServe(h, x.at));
          if (serving.length === 0) continue;
          const issued = held.find((h) => h.issuedSeq === x.seq);
          // A held token still used after this request is held by another part of the client (a worker,
          // an instance): a token each is what multi-token support is for. One left unused was replaced.
          const distinct = serving.filter((h) => h.value !== issued?.value);
          const abandoned = distinct.find((h) => !h.uses.some((u) => u > x.at));
          const same = serving.find((h) => h.value === issued?.value);
          if (abandoned) replaced.push({ x, h: abandoned });
          else if (same && distinct.length === 0) replaced.push({ x, h: same });
        }
        // Without multi-token support the same token comes back, so parts of a client that share it cannot
        // be told apart: there the pattern is judged by its rate (a token request for at least every other call).
        const sameValue = replaced.filter(
          ({ x, h }) => held.find((i) => i.issuedSeq === x.seq)?.value === h.value,
        );
        const judgedReplaced =
          sameValue.length > 0 && requests.length * 2 < calls
            ? replaced.filter((r) => !sameValue.includes(r))
            : replaced;
        judgedReplaced.forEach(({ x, h }, i) => {
          const left = Math.round((h.expiresAt - x.at) / 1000);
          const what = `client ${clientId} requested a new token at #${x.seq} while it held a valid one that could serve the call (the token of #${h.issuedSeq}, ${left} s of validity left)`;
          violations.push({
            seq: x.seq,
            message:
              i > 0
                ? what
                : `${what}; ${plural(judgedReplaced.length, "such request")}, ${plural(held.length, "token")} for ${plural(calls, "call")}. ` +
                  (multitoken
                    ? "With multi-token support on, every token request takes one more of the client's maxActiveTokensAllowed until it expires"
                    : "The sandbox's customer has multi-token support off, so the same token came back; with it on (the customer's multitokenConfig) every such request takes one more of the client's maxActiveTokensAllowed") +
                  ": keep the token and use it until it nears expiry (or is refused)",
          });
        });
      }
      return verdict(
        opportunities,
        violations,
        "your client made no call while it held a token that had already served one (fewer than two calls per token); run the tests that make several calls",
      );
    },
  }),
  callerRule({
    id: "client/token-quota",
    requirements: ["CALLER-TOKEN-02"],
    title:
      "SHOULD not run into its token quota under multi-token support (a token request declined, limit exceeded)",
    opportunity: "a token request counted toward a quota (multi-token support on)",
    breaks:
      "a token request declined (limit exceeded), or the whole quota held at once: its own finding, stronger than token reuse, since the refusal is in the traffic",
    exercisedBy: "a customer with `multitokenConfig` in the data (as `examples/sandbox-data.yaml` has)",
    judge(traffic) {
      const violations: Violation[] = [];
      let opportunities = 0;
      const requestsOf = new Map<string, TrafficExchange[]>();
      const callsOf = new Map<string, number>();
      for (const x of traffic.exchanges) {
        if (x.clientId === undefined) continue;
        if (x.operation === "issueToken") {
          const list = requestsOf.get(x.clientId);
          if (list) list.push(x);
          else requestsOf.set(x.clientId, [x]);
        } else callsOf.set(x.clientId, (callsOf.get(x.clientId) ?? 0) + 1);
      }
      for (const [clientId, requests] of requestsOf) {
        const client = traffic.clients.get(clientId);
        const refused = requests.find(isQuotaRefusal);
        if (!client?.multitoken && !refused) continue;
        opportunities += requests.length;
        const max = client?.maxActiveTokensAllowed;
        const issued = traffic.tokens.filter((t) => t.clientId === clientId);
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
        const figures = `${plural(issued.length, "token")} for ${plural(callsOf.get(clientId) ?? 0, "API call")}, at most ${peak} active at once${max === undefined ? "" : ` (maxActiveTokensAllowed ${max})`}`;
        if (refused) {
          violations.push({
            seq: refused.seq,
            message: `client ${clientId} ran into its token quota: the token request at #${refused.seq} was declined (limit exceeded): ${figures}; keep a token and use it until it nears expiry, or give each part of the client fewer tokens`,
          });
        } else if (max !== undefined && peak >= max) {
          violations.push({
            seq: peakAt.seq,
            message: `client ${clientId} held its whole quota of tokens at once: ${figures}; the next token request would be declined`,
          });
        }
      }
      return verdict(
        opportunities,
        violations,
        "no token request of your client counted toward a quota: its customer in the sandbox's data has no multi-token support (give --data whose customer has multitokenConfig, as examples/sandbox-data.yaml has), or it requested no token",
      );
    },
  }),
  // The token's lifecycle (caller-token-lifecycle.ts): an expired or rejected token serves nothing more.
  TOKEN_DROPPED_WHEN_OVER,
  callerRule({
    id: "client/backoff-after-refusal",
    requirements: ["CALLER-BACKOFF-01"],
    title:
      "SHOULD wait (Retry-After, else a second) after a limit-exceeded refusal or a 429 instead of retrying at once",
    opportunity: "a 429 or limit-exceeded refusal your client got",
    breaks:
      "a retry sooner than `Retry-After` (else a second); after a quota refusal only a new token request counts as a retry",
    exercisedBy: "a rate limit your tests set (`PUT $LCKIT_CONTROL_URL/rate-limit`)",
    judge(traffic) {
      const violations: Violation[] = [];
      let judged = 0;
      const waiting = new Map<string, { x: TrafficExchange; until: number }>();
      for (const x of traffic.exchanges) {
        const key = x.clientId ?? "(unknown client)";
        const pending = waiting.get(key);
        // After a quota refusal only asking for a token again is asking again: a call with a token the
        // client already holds is no retry. After a 429 every request is.
        const retry = pending !== undefined && (!isQuotaRefusal(pending.x) || x.operation === "issueToken");
        if (pending && retry) {
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
        "no request of your client was refused with 429 or limit exceeded; in your tests, set a rate limit through the control interface (PUT $LCKIT_CONTROL_URL/rate-limit) to exercise it",
      );
    },
  }),
];

const NO_TASK =
  "your client sent no delete task (POST /tasks/{tenantId}); if it never deletes lookups, this rule does not apply to it";
const MALFORMED_TASKS =
  "no delete task your client sent was of the documented shape (client/request-within-contract says what is wrong); fix that, and this rule judges what the tasks delete";

/** The delete tasks of one traffic, each read once, shared by the three task rules. */
const taskReadings = new WeakMap<Traffic, { x: TrafficExchange; read: DeleteTaskReading }[]>();
function deleteTasks(traffic: Traffic): { x: TrafficExchange; read: DeleteTaskReading }[] {
  let tasks = taskReadings.get(traffic);
  if (!tasks) {
    tasks = traffic.exchanges
      .filter((x) => x.operation === "createTask")
      .map((x) => ({ x, read: readDeleteTask(x) }));
    taskReadings.set(traffic, tasks);
  }
  return tasks;
}
