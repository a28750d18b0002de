// The access token's lifecycle as a caller sees it (States and transitions / Access token; Errors): issued,
// refused for the quota, expired, rejected. What each state allows next: an issued token serves calls (and
// a new request while it serves burns a quota slot: client/token-reuse); a quota refusal asks for a wait
// (client/token-quota, client/backoff-after-refusal); an expired or rejected token serves nothing more, so
// sending it again is a call that cannot succeed. This file holds that last rule.
import { defineRule } from "../../check/index.ts";
import type { CallerRule, CallerRuleDeclaration, RuleVerdict, Violation } from "./caller-rule.ts";
import { plural, verdict } from "./caller-rule.ts";
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
    'a call after the token\'s validity: `POST $LCKIT_CONTROL_URL/clock/advance` with `{"seconds": 3600}`, then a call',
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
      const since = told?.x.seq ?? Number.POSITIVE_INFINITY;
      if (traffic.tokens.some((t) => t.value === bearer && t.seq > since && t.seq < x.seq)) {
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
      "no answer told your client that its token had expired or was not accepted; in your tests, move the sandbox's clock past the token's validity (POST $LCKIT_CONTROL_URL/clock/advance {\"seconds\": 3600}) and make one more call",
    );
  },
});

const QUOTA_WORDS =
  '"token request when the number of active tokens of the client has reached maxActiveTokensAllowed | request declined with an error stating the limit is exceeded; the caller waits for a token to expire or raises the quota"';
/** The requests that can raise a client's quota: its customer's configuration (Customer configuration). */
const RAISES_QUOTA = new Set(["putCustomer", "postCustomer"]);

/** A quota refusal as the caller holds it: the client's tokens active then (their expiries, in order). */
interface Declined {
  x: TrafficExchange;
  expiries: number[];
}

/** After a token request declined at the quota the state is unchanged ("active token count at the limit |
 *  unchanged"): until one of the client's tokens expires or the quota is raised, asking again is declined
 *  again. The document states what the caller does: it waits for a token to expire or raises the quota. */
export const TOKEN_WAITS_AFTER_QUOTA_REFUSAL: CallerRule = defineRule<"caller", CallerRuleDeclaration>(
  "caller",
  {
    id: "client/token-waits-after-quota-refusal",
    readsTime: true,
    requirements: ["CALLER-TOKEN-04"],
    title:
      "MUST wait for one of its tokens to expire, or raise the quota, before it asks for a token again after a request declined at the quota (limit exceeded)",
    opportunity:
      "a token request of your client under a quota (multi-token support on, or after a refusal), judged against the state it was sent in",
    breaks:
      "the client's next token request sent before any token it held at the refusal expired and with no quota raised (PUT or POST of its customer) in between: asked again at once, or in a loop; a client that stops asking, or waits out an expiry, passes",
    exercisedBy:
      "any token request under multi-token support (the default world has it); a refusal to judge the wait: a small `maxActiveTokensAllowed` in `--data` and a client that holds that many tokens",
    judge(traffic: Traffic): RuleVerdict {
      const violations: Violation[] = [];
      let opportunities = 0;
      const pending = new Map<string, Declined>();
      const raised = new Map<string, number>();
      for (const x of traffic.exchanges) {
        if (x.operation !== undefined && RAISES_QUOTA.has(x.operation) && x.status < 300) {
          // Any client's change of a customer may raise the quota: the customer of a client is not in the
          // traffic, so every pending refusal counts it.
          for (const key of pending.keys()) raised.set(key, x.seq);
          continue;
        }
        if (x.operation !== "issueToken" || x.clientId === undefined) continue;
        const clientId = x.clientId;
        const declined = pending.get(clientId);
        // Every token request under a quota is judged against the state the caller was in: below the
        // limit (or a slot freed since a refusal) it may ask; declined and nothing freed, it may not.
        if (declined || traffic.clients.get(clientId)?.multitoken) opportunities += 1;
        if (declined) {
          pending.delete(clientId);
          const freed = declined.expiries.some((at) => at <= x.at);
          const raisedAt = raised.get(clientId);
          raised.delete(clientId);
          if (!freed && raisedAt === undefined) {
            const first = declined.expiries[0] as number;
            violations.push({
              seq: x.seq,
              message: `client ${clientId} asked for a token again at #${x.seq}, ${x.at - declined.x.at} ms after its token request at #${declined.x.seq} was declined at the quota (${declined.x.status}, limit exceeded), before any of the ${plural(declined.expiries.length, "token")} it held then expired (the first expires ${Math.round((first - declined.x.at) / 1000)} s after the refusal) and with no quota raised in between: the count stays at the limit, so the request is declined again; the document: ${QUOTA_WORDS}. Wait until a token expires (use the tokens you hold meanwhile), or raise maxActiveTokensAllowed`,
            });
          }
        }
        if (isQuotaRefusal(x)) {
          const expiries = traffic.tokens
            .filter((t) => t.clientId === clientId && t.issuedAt <= x.at && t.expiresAt > x.at)
            .map((t) => t.expiresAt)
            .sort((a, b) => a - b);
          // With no token of the client seen active, when one frees a slot cannot be told: not judged.
          if (expiries.length > 0) pending.set(clientId, { x, expiries });
        }
      }
      return verdict(
        opportunities,
        violations,
        "your client sent no token request under a quota: its customer in the sandbox's data has no multi-token support (give --data whose customer has multitokenConfig, as examples/sandbox-data.yaml has), or it requested no token",
      );
    },
  },
);
