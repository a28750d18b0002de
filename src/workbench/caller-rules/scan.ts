// The caller rule of a scan's first request: no body, or null. The walk tells an opening from a next page
// by the scroll ids the answers gave (the scroll's lifecycle rules are scroll-lifecycle.ts).
import { parseJson, type Traffic } from "../traffic.ts";
import { callerRule, SCANS, type Violation, verdict, where } from "./caller-rule.ts";
import { scrollIdSent } from "./scroll-lifecycle.ts";

/** The scan walk of one traffic. */
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

export const scanFirstRequestWithoutBody = callerRule({
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
});
