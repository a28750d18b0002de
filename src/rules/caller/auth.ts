// The caller rule of authentication: a bearer token on every lookup-data and autopilot request.
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
