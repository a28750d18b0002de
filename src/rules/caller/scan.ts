// The caller rule of a scan's first request: no body, or null. The walk tells an opening from a next page
// by the scroll ids the answers gave (the scroll's lifecycle rules are scroll-lifecycle.ts).

import { callerRule, SCANS, type Violation, verdict, where } from "./caller-rule.ts";
import { scrollIdSent } from "./scroll-lifecycle.ts";
import { parseJson, type Traffic } from "./traffic.ts";

/**
 * The scan openings of one traffic, and those that carried a body. A body is a next page, not an opening,
 * while an answer of that scan path has given a scrollId; an id of a scroll already ended opens nothing.
 */
function scanOpenings(traffic: Traffic): { openings: number; withBody: Violation[] } {
  const open = new Map<string, Set<string>>();
  const ended = new Map<string, Set<string>>();
  let openings = 0;
  const withBody: Violation[] = [];
  for (const x of traffic.exchanges) {
    if (!x.operation || !SCANS.has(x.operation)) continue;
    const openIds = open.get(x.pathname) ?? new Set<string>();
    const endedIds = ended.get(x.pathname) ?? new Set<string>();
    open.set(x.pathname, openIds);
    ended.set(x.pathname, endedIds);
    const sent = scrollIdSent(x.body);
    const continued = sent.kind === "id" && openIds.has(sent.id) ? sent.id : undefined;
    if (sent.kind === "none") openings += 1;
    else if (
      continued === undefined &&
      openIds.size === 0 &&
      !(sent.kind === "id" && endedIds.has(sent.id))
    ) {
      openings += 1;
      withBody.push({
        seq: x.seq,
        message: `${where(x)} opened a scan with a body (${JSON.stringify((x.body ?? "").slice(0, 60))}); the first request has no body or a null body`,
      });
    }
    if (x.status !== 200) continue;
    const answer = parseJson(x.responseBody) as { scrollId?: unknown } | undefined;
    if (answer === undefined || typeof answer !== "object" || answer === null) continue;
    if (continued !== undefined) openIds.delete(continued);
    if (typeof answer.scrollId === "string" && answer.scrollId !== "") openIds.add(answer.scrollId);
    else if (continued !== undefined) endedIds.add(continued);
  }
  return { openings, withBody };
}

export const scanFirstRequestWithoutBody = callerRule({
  id: "client/scan-first-request-without-body",
  requirements: ["CALLER-SCAN-01"],
  title: "MUST open a scan with no body or a null body",
  opportunity: "a request that opens a scan",
  breaks: "a body other than none or `null`",
  exercisedBy: "any scan",
  judge(traffic) {
    const { openings, withBody } = scanOpenings(traffic);
    return verdict(
      openings,
      withBody,
      "your client opened no scan (POST .../_scan); run the tests that read lookups or autopilot statistics",
    );
  },
});
