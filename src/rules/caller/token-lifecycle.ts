// The access token's lifecycle as a caller sees it (States and transitions / Access token; Errors): issued,
// refused for the quota, expired, rejected. What each state allows next: an issued token serves calls (and
// a new request while it serves burns a quota slot: client/token-reuse); a quota refusal asks for a wait
// (client/token-quota, client/backoff-after-refusal); an expired or rejected token serves nothing more, so
// sending it again is a call that cannot succeed. This file holds that last rule.
import { defineRule } from "../../check/index.ts";
import { outcomeOf } from "../judge.ts";
import type { CallerRule, CallerRuleDeclaration, RuleVerdict, Violation } from "./caller-rule.ts";
import { foundAt, plural, verdict } from "./caller-rule.ts";
import { isQuotaRefusal } from "./tokens.ts";
import type { Traffic, TrafficExchange } from "./traffic.ts";

const DOCUMENT_WORDS =
  '"use of the token yields an expired-token error; it no longer counts toward the quota"';

/** An answer that says the token it was sent with is over: an expired-token error (any status: the status
 *  is not shown, 401 and 403 are both seen), or a 401 (the token was not accepted at all). A 403 that does
 *  not speak of expiry is a role refusal: the token still serves other calls. */
export function tokenOver(x: TrafficExchange): "expired" | "rejected" | undefined {
  if (x.operation === "issueToken" || x.bearer === undefined || x.status < 400) return undefined;
  const said = `${x.responseBody} ${x.responseHeaders["www-authenticate"] ?? ""}`;
  if ((x.status === 401 || x.status === 403) && /expired/i.test(said)) return "expired";
  if (x.status === 401) return "rejected";
  return undefined;
}

export const TOKEN_DROPPED_WHEN_OVER: CallerRule = defineRule<"caller", CallerRuleDeclaration>("caller", {
  id: "client/token-dropped-when-expired",
  readsTime: true,
  requirements: ["CALLER-TOKEN-03"],
  title:
    "SHOULD not send a token again after the service answered that it expired (or did not accept it); request a new one",
  opportunity: "an answer that said your client's token expired, or a 401 to a call with it",
  breaks:
    "the same token sent again after that answer (a retry with a new token, or no further call, passes)",
  exercisedBy:
    '`--variants all` (its world `tokens-expire-in-use`: tokens of 1 s, answers of 200 ms), or in your tests a call after the token\'s validity: `POST $LCKIT_CONTROL_URL/clock/advance` with `{"seconds": 3600}`, then a call',
  judge(traffic: Traffic): RuleVerdict {
    const violations: Violation[] = [];
    const over = new Map<string, { x: TrafficExchange; how: "expired" | "rejected" }>();
    const reported = new Set<string>();
    let opportunities = 0;
    for (const x of traffic.exchanges) {
      const bearer = x.bearer;
      if (bearer === undefined || x.operation === "issueToken") continue;
      let told = over.get(bearer);
      // Issued again after the answer (the same value can come back from a new token request): served anew.
      // Only a token already answered over is looked for among the issues (not every request's).
      const since = told?.x.seq ?? Number.POSITIVE_INFINITY;
      if (
        told !== undefined &&
        traffic.tokens.some((t) => t.value === bearer && t.seq > since && t.seq < x.seq)
      ) {
        over.delete(bearer);
        told = undefined;
      }
      if (told && !reported.has(bearer)) {
        reported.add(bearer);
        violations.push({
          seq: x.seq,
          message: `${x.method} ${x.pathname} at #${x.seq} carried a token the service had answered at #${told.x.seq} ${told.how === "expired" ? "had expired" : "was not accepted (401)"}; the document: ${DOCUMENT_WORDS}. Request a new token (POST /oauth/token) and send that one`,
        });
      }
      const how = tokenOver(x);
      if (how && !over.has(bearer)) {
        over.set(bearer, { x, how });
        opportunities += 1;
      }
    }
    return verdict(
      opportunities,
      violations,
      "no answer told your client that its token had expired or was not accepted; run the sweep (`--variants all`, or `--variants default,tokens-expire-in-use`), whose world tokens-expire-in-use lets a token expire while your client uses it, or in your tests move the sandbox's clock past the token's validity (POST $LCKIT_CONTROL_URL/clock/advance {\"seconds\": 3600}) and make one more call",
    );
  },
});

const QUOTA_WORDS =
  '"token request when the number of active tokens of the client has reached maxActiveTokensAllowed | request declined with an error stating the limit is exceeded; the caller waits for a token to expire or raises the quota"';
/** The requests that can raise a client's quota: its customer's configuration (Customer configuration). */
const RAISES_QUOTA = new Set(["putCustomer", "postCustomer"]);

/** The longest gap between a quota refusal's answer and the next token request that is still no wait: a
 *  request sent again in a loop follows within a round trip; a client that waits sleeps longer. */
export const AT_ONCE_MS = 100;

/** The client's state after a token request declined at the quota ("active token count at the limit |
 *  unchanged"): the tokens that filled the quota then, its own (their expiries it was told) and those other
 *  sessions held (world quota-held-elsewhere), whose expiries it cannot know. */
interface Declined {
  x: TrafficExchange;
  own: number[];
  elsewhere: number[];
  /** A PUT or POST of a customer answered 2xx since: the quota may be raised. */
  raisedAt?: number;
}

/** The state after a quota refusal, or undefined when no token active then is known (its traffic shows
 *  none of the client's and no world held any): when a slot frees cannot be told, so it is not judged. */
function declinedState(traffic: Traffic, x: TrafficExchange, clientId: string): Declined | undefined {
  const own = traffic.tokens
    .filter((t) => t.clientId === clientId && t.issuedAt <= x.at && t.expiresAt > x.at)
    .map((t) => t.expiresAt);
  // Held by other sessions from before the client's first request.
  const elsewhere = (traffic.clients.get(clientId)?.heldElsewhere ?? [])
    .map((t) => t.expiresAt)
    .filter((at) => at > x.at);
  if (own.length + elsewhere.length === 0) return undefined;
  return { x, own: own.sort((a, b) => a - b), elsewhere: elsewhere.sort((a, b) => a - b) };
}

/** How many token requests in a row, each sent at once after a refusal while other sessions held the
 *  quota, make a loop. One or two can be the first requests of other workers of the same client (a pool
 *  whose workers each ask once and learn of the refusal only by their own): each of them asked once, as
 *  a worker that has not met the refusal may. A loop asks again and again. */
export const LOOP_AT_ONCE = 3;

/** What the token request `y` sent in the declined state `d` did wrong, or undefined when it was legal: a
 *  slot freed (a token active at the refusal expired) or the quota raised. Otherwise the count is still at
 *  the limit. Its own tokens the client knows the expiries of (expires_in), so it asked before any could
 *  free a slot; tokens other sessions hold it cannot see, so there the document's wait is a wait: asking
 *  again at once (within AT_ONCE_MS of the answer) is judged as a loop (LOOP_AT_ONCE in a row), and how
 *  long it waits is client/backoff-after-refusal's (Retry-After, else a second). */
function askedTooSoon(
  d: Declined,
  y: TrafficExchange,
  clientId: string,
): { message: string; atOnce: boolean } | undefined {
  const expiries = [...d.own, ...d.elsewhere];
  if (d.raisedAt !== undefined || expiries.some((at) => at <= y.at)) return undefined;
  const since = y.at - d.x.at;
  const gap = since - d.x.durationMs;
  const asked = `client ${clientId} asked for a token again at #${y.seq}, ${since} ms after its token request at #${d.x.seq} was declined at the quota (${d.x.status}, limit exceeded)`;
  const first = Math.round((Math.min(...expiries) - d.x.at) / 1000);
  const fix = `; the document: ${QUOTA_WORDS}. Wait until a token expires (use the tokens you hold meanwhile), or raise maxActiveTokensAllowed`;
  if (d.elsewhere.length === 0)
    return {
      atOnce: false,
      message: `${asked}, before any of the ${plural(d.own.length, "token")} it held then expired (the first expires ${first} s after the refusal) and with no quota raised in between: the count stays at the limit, so the request is declined again${fix}`,
    };
  if (gap < AT_ONCE_MS)
    return {
      atOnce: true,
      message: `${asked}: at once (${Math.max(0, Math.round(gap))} ms after the answer), while other sessions of the client held ${plural(d.elsewhere.length, "token")} of its quota (the first expires ${first} s after the refusal${retryAfterOf(d.x)}) and no quota was raised: the count stays at the limit, so the request is declined again${fix}`,
    };
  return undefined;
}

const retryAfterOf = (x: TrafficExchange) => {
  const header = x.responseHeaders["retry-after"];
  return header === undefined ? "" : `; the answer said Retry-After: ${header}`;
};

/** After a token request declined at the quota the state is unchanged ("active token count at the limit |
 *  unchanged"): until one of the client's tokens expires or the quota is raised, asking again is declined
 *  again. The document states what the caller does: it waits for a token to expire or raises the quota. The
 *  rule walks each client through the token's states (issued, declined at the quota, freed by an expiry or
 *  a raised quota) and judges every declined state by the client's next step. */
export const TOKEN_WAITS_AFTER_QUOTA_REFUSAL: CallerRule = defineRule<"caller", CallerRuleDeclaration>(
  "caller",
  {
    id: "client/token-waits-after-quota-refusal",
    readsTime: true,
    requirements: ["CALLER-TOKEN-04"],
    title:
      "MUST wait for one of its tokens to expire, or raise the quota, before it asks for a token again after a request declined at the quota (limit exceeded)",
    opportunity:
      "a token request of your client under a quota (multi-token support on, or after a refusal), judged against the state it was sent in: below the limit it may ask; declined at the quota (its own tokens, or those other sessions held: `--variants quota-held-elsewhere`), its next step is judged",
    breaks:
      "the client's next token request sent while the count was still at the limit (no token active at the refusal expired, no quota raised by a PUT or POST of its customer): before any of its own tokens expired, or, while other sessions held the quota, at once in a loop (three requests in a row, each within 100 ms of the refusal before it: one or two can be other workers' first requests); a client that stops asking, waits and asks again, or waits out an expiry, passes",
    exercisedBy:
      "`--variants all` (its world `quota-held-elsewhere`: other sessions of your client hold its whole quota for a few seconds when it first asks), or a small `maxActiveTokensAllowed` in `--data` and a client that holds that many tokens",
    judge(traffic: Traffic): RuleVerdict {
      const violations: Violation[] = [];
      let opportunities = 0;
      // Declined states judged by the client's next step (a token request, or none: it stopped asking).
      let declinedJudged = 0;
      const declined = new Map<string, Declined>();
      // Per client, the requests sent at once in a row after refusals while others held the quota: judged
      // once they make a loop (LOOP_AT_ONCE), each then a finding.
      const atOnce = new Map<string, Violation[]>();
      for (const x of traffic.exchanges) {
        if (x.operation !== undefined && RAISES_QUOTA.has(x.operation) && x.status < 300) {
          // Any client's change of a customer may raise the quota: the customer of a client is not in the
          // traffic, so every declined state counts it.
          for (const d of declined.values()) d.raisedAt ??= x.seq;
          continue;
        }
        if (x.operation !== "issueToken" || x.clientId === undefined) continue;
        const clientId = x.clientId;
        const state = declined.get(clientId);
        // Every token request under a quota is a transition of the table, judged from the state it was sent
        // in: below the limit a token is issued (the client may ask); declined and nothing freed, it may not.
        if (state || traffic.clients.get(clientId)?.multitoken) opportunities += 1;
        if (state) {
          declined.delete(clientId);
          declinedJudged += 1;
          const wrong = askedTooSoon(state, x, clientId);
          const run = atOnce.get(clientId) ?? [];
          if (wrong?.atOnce) {
            run.push({ seq: x.seq, message: wrong.message });
            atOnce.set(clientId, run);
            if (run.length === LOOP_AT_ONCE) violations.push(...run);
            else if (run.length > LOOP_AT_ONCE) violations.push(run[run.length - 1] as Violation);
          } else {
            atOnce.delete(clientId);
            if (wrong !== undefined) violations.push({ seq: x.seq, message: wrong.message });
          }
        } else atOnce.delete(clientId);
        const next = isQuotaRefusal(x) ? declinedState(traffic, x, clientId) : undefined;
        if (next) declined.set(clientId, next);
      }
      // A declined state the traffic ends in: the client stopped asking, which is waiting.
      declinedJudged += declined.size;
      return outcomeOf(
        opportunities,
        violations.map(foundAt),
        "no token request of your client was under a quota: its customer in the sandbox's data has no multi-token support (give --data whose customer has multitokenConfig, as examples/sandbox-data.yaml has), or it requested no token",
        declinedJudged > 0
          ? undefined
          : "no token request of your client was declined at the quota, so its next step after a refusal (what this rule is about) was not seen: run the sweep (`--variants all`, or `--variants quota-held-elsewhere`), whose world quota-held-elsewhere starts your client at its quota",
      );
    },
  },
);
