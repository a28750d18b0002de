// The caller rule of a scan's first request: no body, or null. The scroll walk (scroll-lifecycle.ts) tells
// an opening from a next page by the scroll ids the answers gave: a body sent while no scroll of that scan
// and query is open opens one, whether it is an unknown value or the id of another, or an ended, scroll.

import { callerRule, verdict } from "./caller-rule.ts";
import { scrollWalk } from "./scroll-lifecycle.ts";

export const scanFirstRequestWithoutBody = callerRule({
  id: "client/scan-first-request-without-body",
  requirements: ["CALLER-SCAN-01"],
  title: "MUST open a scan with no body or a null body",
  opportunity: "a request that opens a scan (no scroll of that scan and query open)",
  breaks:
    "a body other than none or `null`: `{}`, or a stale scrollId (of a scroll already ended, of another query or another scan)",
  exercisedBy: "any scan; two scans one after the other for a stale scrollId",
  judge(traffic) {
    const { openings, withBody } = scrollWalk(traffic);
    return verdict(
      openings,
      withBody,
      "your client opened no scan (POST .../_scan); run the tests that read lookups or autopilot statistics",
    );
  },
});
