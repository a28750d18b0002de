// The caller rules of the lookup scan: its first request without a body, the previous page's scroll id
// passed on, the scan stopped at its end; the scan walk of one traffic, shared by the three.
import { parseJson, type Traffic } from "../traffic.ts";
import { callerRule, plural, SCANS, TO_PAGE, type Violation, verdict, where } from "./caller-rule.ts";

/** A scan request body as a scroll id (raw, JSON string, or {"scrollId": ...}), none, or something else. */
export function scrollIdSent(
  body: string | undefined,
): { kind: "none" } | { kind: "id"; id: string } | { kind: "other" } {
  if (body === undefined || body.trim() === "" || body.trim() === "null") return { kind: "none" };
  const parsed = parseJson(body);
  if (parsed === undefined) return { kind: "id", id: body.trim() };
  if (typeof parsed === "string") return { kind: "id", id: parsed };
  if (
    parsed !== null &&
    typeof parsed === "object" &&
    typeof (parsed as { scrollId?: unknown }).scrollId === "string"
  )
    return { kind: "id", id: (parsed as { scrollId: string }).scrollId };
  return { kind: "other" };
}

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

export const scanPassesPreviousScrollId = callerRule({
  id: "client/scan-passes-previous-scroll-id",
  requirements: ["CALLER-SCAN-02"],
  title: "MUST pass the scrollId of the previous answer to get the next page",
  opportunity: "a next-page request after an answer that carried a scrollId",
  breaks: 'not the scrollId of the previous answer (raw, JSON string and `{"scrollId"}` are all accepted)',
  exercisedBy: "a scan that pages: `--data` with more lookups than your `limit`, or `--variants short-pages`",
  judge(traffic) {
    const { nextPages, scrollAnswers, next } = scanWalk(traffic);
    return verdict(
      nextPages,
      next,
      scrollAnswers === 0
        ? `no answer your client got carried a scrollId, so it never had a next page to ask for; ${TO_PAGE}`
        : `${plural(scrollAnswers, "answer")} your client got carried a scrollId, but it never asked for a next page (it stopped after the first page, or opened the scan again without a body); a client that reads every page passes the scrollId back`,
    );
  },
});

export const scanStopsAtEnd = callerRule({
  id: "client/scan-stops-at-end",
  requirements: ["CALLER-SCAN-03"],
  title: "SHOULD stop a scan at its end (an answer without a scrollId, or with a null one)",
  opportunity: "an answer that ended a scan your client had paged through",
  breaks:
    "asking that scroll for another page (an empty page that still carries a scrollId may be followed or not)",
  exercisedBy: "as above",
  judge(traffic) {
    const { ends, afterEnd } = scanWalk(traffic);
    return verdict(
      ends,
      afterEnd,
      `no scan of your client reached its end through a next page (an answer without a scrollId after one that carried it); ${TO_PAGE}`,
    );
  },
});
