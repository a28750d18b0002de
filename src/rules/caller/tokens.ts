// The caller rules of tokens: a token reused while it is valid, the quota of active tokens kept, and a
// back-off after a refusal; the tokens each client held, read once from the traffic.

import { callerRule, plural, type Violation, verdict, where } from "./caller-rule.ts";
import type { Traffic, TrafficExchange } from "./traffic.ts";

/** A token request declined by the quota: the body says the limit is exceeded (any status: the status is
 *  not shown), and it is not a rate limit (a gateway's or the token endpoint's). */
export function isQuotaRefusal(x: TrafficExchange): boolean {
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
    if (anyCouldServe(client.held, x.at)) client.servedOpportunities += 1;
    holding.uses.push(x.at);
    if ((x.status === 401 || x.status === 403) && holding.refusedAt === undefined) holding.refusedAt = x.at;
  }
  return byClient;
}

/** One of the held tokens could serve a call at `at` (a loop, not a closure made per request). */
function anyCouldServe(held: readonly Holding[], at: number): boolean {
  for (const h of held) if (couldServe(h, at)) return true;
  return false;
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

export const tokenReuse = callerRule({
  id: "client/token-reuse",
  readsTime: true,
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
});

export const tokenQuota = callerRule({
  id: "client/token-quota",
  readsTime: true,
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
      // A refusal while other sessions held tokens of the client (world quota-held-elsewhere) is the
      // deployment's state, not this client's doing: its next step is client/token-waits-after-quota-refusal's.
      const othersHeld = (x: TrafficExchange) =>
        client?.heldElsewhere?.some((t) => t.expiresAt > x.at) ?? false;
      const refused = requests.find((x) => isQuotaRefusal(x) && !othersHeld(x));
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
});

export const backoffAfterRefusal = callerRule({
  id: "client/backoff-after-refusal",
  readsTime: true,
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
});
