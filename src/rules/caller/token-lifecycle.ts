// The access token's lifecycle as a caller sees it (States and transitions / Access token; Errors): issued,
// refused for the quota, expired, rejected. What each state allows next: an issued token serves calls (and
// a new request while it serves burns a quota slot: client/token-reuse); a quota refusal asks for a wait
// (client/token-quota, client/backoff-after-refusal); an expired or rejected token serves nothing more, so
// sending it again is a call that cannot succeed. This file holds that last rule.
import { defineRule } from "../../check/index.ts";
import type { CallerRule, CallerRuleDeclaration, RuleVerdict, Violation } from "./caller-rule.ts";
import { verdict } from "./caller-rule.ts";
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
