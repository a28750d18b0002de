// The caller rules of authentication: a bearer token on every lookup-data and autopilot request, its scheme
// written as the document shows it.
import { callerRule, LOOKUP_DATA_AND_AUTOPILOT, verdict, where } from "./caller-rule.ts";

export const bearerOnEveryRequest = callerRule({
  id: "client/bearer-on-every-request",
  requirements: ["CALLER-AUTH-01"],
  title: "MUST send Authorization: Bearer <access token> on every lookup-data and autopilot request",
  opportunity: "a lookup-data or autopilot request",
  breaks: "one without `Authorization: Bearer <token>`",
  exercisedBy: "any call",
  judge(traffic) {
    const judged = traffic.exchanges.filter((x) => x.operation && LOOKUP_DATA_AND_AUTOPILOT.has(x.operation));
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
});

/** The scheme as the document writes it. HTTP takes an authentication scheme case-insensitively (RFC 9110,
 *  11.1), so "bearer" passes the MUST rule; a gateway that compares the header literally refuses it. */
export const bearerAsShown = callerRule({
  id: "client/bearer-scheme-as-shown",
  requirements: ["CALLER-AUTH-02"],
  title:
    "SHOULD write the scheme as the document shows it: Authorization: Bearer <access token>, not bearer or BEARER",
  opportunity: "a lookup-data or autopilot request with a bearer token",
  breaks: "`Authorization: bearer <token>` (the token answer's token_type copied; lower case is legal HTTP)",
  exercisedBy: "any call",
  judge(traffic) {
    const judged = traffic.exchanges.filter(
      (x) => x.operation && LOOKUP_DATA_AND_AUTOPILOT.has(x.operation) && x.bearer !== undefined,
    );
    const violations = judged
      .filter((x) => !(x.headers.authorization ?? "").startsWith("Bearer "))
      .map((x) => ({
        seq: x.seq,
        message: `${where(x)} was sent with Authorization "${(x.headers.authorization ?? "").split(/\s/)[0]} ...": HTTP reads the scheme in any case, but the document shows "Bearer <ACCESS_TOKEN>", and a gateway that compares it literally refuses another; write Bearer (token_type says the kind of token, not how to write the header)`,
      }));
    return verdict(
      judged.length,
      violations,
      "your client sent no lookup-data or autopilot request with a bearer token; run the tests that call the interface",
    );
  },
});
