import { loadContract } from "../../contract/index.ts";
import type { Violation } from "./caller-rule.ts";
import { callerRule, plural, SCANS, TO_PAGE, verdict, where } from "./caller-rule.ts";
import { tokenOver } from "./token-lifecycle.ts";
import { oncePerTraffic, parseJson, remembered, type Traffic, type TrafficExchange } from "./traffic.ts";

const NEXT_PAGE_WORDS =
  '"Each response carries scrollId. The next request passes that scrollId in the request body to obtain the next page."';
const BODY_WORDS = '"The next request passes that scrollId in the request body to obtain the next page."';

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

/** One scroll as the caller holds it. */
interface Scroll {
  /** The scan it belongs to: method and path (tenant and lookup type included). */
  scope: string;
  /** What its opening asked for: the documented query parameters that select records (all but the page
   *  size), by name. A continuation that repeats one must repeat it unchanged; it may leave any out. */
  query: ReadonlyMap<string, string>;
  /** seq of the request that opened it. */
  openedAt: number;
  /** Every scrollId its answers gave, in order; the last is the one to pass next. */
  ids: string[];
  ended: boolean;
  /** The last answer of the scroll that carried a scrollId: its exchange and how many records it gave. */
  last?: { seq: number; records: number };
  /** A request tried to continue the scroll after its last answer (with the right id or not: a wrong one is
   *  client/scan-passes-previous-scroll-id's finding, not a scroll left). */
  askedAfterLast: boolean;
  /** A request continued it wrongly: that is the scroll-id rule's finding, and a scroll it leaves is its
   *  consequence, not a second finding (a team reads the rule that names its bug). */
  misContinued?: boolean;
}

export interface ScrollWalk {
  /** Next-page requests: a request that continued, or tried to continue, a scroll. */
  nextPages: number;
  /** Answers that carried a scrollId. */
  scrollAnswers: number;
  /** Scrolls that ended after a next page: the client held an id whose end it was told. */
  ends: number;
  next: Violation[];
  afterEnd: Violation[];
  /** Scrolls opened whose first answer carried a scrollId and records: the scans that had a next page. */
  paged: number;
  /** Of those, the scrolls left while their last answer still carried a scrollId and records. */
  left: Violation[];
  /** Requests that opened a scan (no scroll of that scan open, or no body), and those that carried a body. */
  openings: number;
  withBody: Violation[];
}

const short = (id: string) => (id.length > 40 ? `${id.slice(0, 40)}...` : id);
const FIRST_WORDS = '"The first request has no body, or a null body."';

/** The documented query parameters of a scan request that select its records: every one the operation
 *  defines but limit, the page size (a continuation may ask another page size; the records are the same). */
function selection(x: TrafficExchange): ReadonlyMap<string, string> {
  return selectionRead(x.operation as string, x.search, x);
}

/** A scan's method and path as one text, made once per distinct pair: every scroll of the scan holds the
 *  same string, so comparing and looking it up costs nothing per request. */
const scopeRead = remembered(where, 10_000);

/** A query string's parameters, read once per distinct query string (never changed). */
const queryRead = remembered(
  (search: string): readonly [string, string][] => [...new URLSearchParams(search)],
  10_000,
);

/** Read once per operation and query string; the maps are shared, never changed. */
const selectionRead = remembered((x: TrafficExchange): ReadonlyMap<string, string> => {
  const defined = new Set(
    loadContract()
      .operation(x.operation as string)
      .parameters.filter((p) => p.in === "query" && p.name !== "limit")
      .map((p) => p.name),
  );
  return new Map([...new URLSearchParams(x.search)].filter(([name]) => defined.has(name)));
}, 10_000);

/** A scroll of this scan (`scope`) and of the records this request asks for (`query`). */
const ofScan = (s: Scroll, scope: string, query: ReadonlyMap<string, string>) => {
  if (s.scope !== scope) return false;
  for (const [k, v] of query) if (s.query.get(k) !== v) return false;
  return true;
};

/** Where a scroll id came from, as a finding names it. */
function otherScroll(s: Scroll, scope: string): string {
  const asked = [...s.query].map(([k, v]) => `${k}=${v}`).join("&");
  const which =
    s.scope === scope
      ? `the scroll opened at #${s.openedAt}${asked === "" ? "" : ` with ${asked}`} (another query of this scan${s.ended ? ", already ended" : ""})`
      : `another scan (${s.scope}, opened at #${s.openedAt}${s.ended ? ", already ended" : ""})`;
  return s.ended && s.scope === scope && asked === ""
    ? `the scroll opened at #${s.openedAt}, already ended`
    : which;
}

/** The scroll id a request carries in its query string, when it does: a parameter named scrollId (any
 *  case, _ or -), or any value equal to an open scroll's id. */
function idInQuery(x: TrafficExchange, openIds: Set<string>): { name: string; id: string } | undefined {
  if (x.search === "") return undefined;
  for (const [name, value] of queryRead(x.search, x.search, x.search)) {
    if (/^scroll[_-]?id$/i.test(name) || openIds.has(value)) return { name, id: value };
  }
  return undefined;
}

/** An answer that refused a request before its scroll was looked at: an expired token (the caller gets a
 *  new one) or a 429 (it waits). Such a request continued nothing: the scroll is still the caller's to go on
 *  with, and one it leaves there is left. */
export const refusedBeforeTheScroll = (x: TrafficExchange): boolean =>
  x.status === 429 || tokenOver(x) === "expired";

export const scrollWalk = oncePerTraffic(walkScrolls);

function walkScrolls(traffic: Traffic): ScrollWalk {
  const out: ScrollWalk = {
    nextPages: 0,
    scrollAnswers: 0,
    ends: 0,
    next: [],
    afterEnd: [],
    paged: 0,
    left: [],
    openings: 0,
    withBody: [],
  };
  const scrolls: Scroll[] = [];
  // Indexes, so that a day of traffic is walked in linear time: the open scrolls of each scan, and the
  // scrolls each id was given by, both in the order the scrolls were opened (as the findings name them).
  const open = new Map<string, Set<Scroll>>();
  const byId = new Map<string, Scroll[]>();
  const openOrder = new Map<Scroll, number>();
  const gave = (s: Scroll, id: string) => {
    const list = byId.get(id);
    if (!list) byId.set(id, [s]);
    else if (!list.includes(s)) {
      list.push(s);
      list.sort((a, b) => (openOrder.get(a) ?? 0) - (openOrder.get(b) ?? 0));
    }
    let here = open.get(s.scope);
    if (!here) {
      here = new Set();
      open.set(s.scope, here);
    }
    here.add(s);
  };
  const current = (s: Scroll) => s.ids[s.ids.length - 1] as string;
  // Declared once, not per request: a closure made per request of a day of traffic costs more than its work.
  const fail = (x: TrafficExchange, scope: string, message: string) =>
    out.next.push({ seq: x.seq, message: `${scope} ${message}` });
  const opensWithBody = (x: TrafficExchange, scope: string, message: string) => {
    out.openings += 1;
    out.withBody.push({ seq: x.seq, message: `${scope} ${message}` });
  };
  for (const x of traffic.exchanges) {
    if (!x.operation || !SCANS.has(x.operation)) continue;
    const scope = scopeRead(x.method, x.pathname, x);
    const query = selection(x);
    // The scrolls this request may continue: of its scan, and of the records it asks for.
    const openHere: Scroll[] = [];
    for (const s of open.get(scope) ?? []) if (ofScan(s, scope, query)) openHere.push(s);
    const sent = scrollIdSent(x.body);
    let continued: Scroll | undefined;
    if (sent.kind === "none") out.openings += 1;
    if (sent.kind === "id") {
      const id = sent.id;
      const givenBy = byId.get(id) ?? [];
      const latest = openHere.find((s) => current(s) === id);
      const earlier = latest ? undefined : givenBy.find((s) => openHere.includes(s));
      // The end was answered to this id: asking that scroll again is past its end (SHOULD: the end-of-results
      // signal is not shown). Any other id of an ended scroll, or one of another scan or query, is stale.
      const ended = givenBy.find((s) => ofScan(s, scope, query) && s.ended && current(s) === id);
      const elsewhere = givenBy.find((s) => s !== latest && s !== earlier && s !== ended);
      if (latest) {
        out.nextPages += 1;
        continued = latest;
      } else if (earlier) {
        out.nextPages += 1;
        continued = earlier;
        earlier.misContinued = true;
        fail(
          x,
          scope,
          `passed scrollId "${short(id)}", which an earlier answer of that scroll gave, not the scrollId its last answer gave ("${short(current(earlier))}"); the document: ${BODY_WORDS}`,
        );
      } else if (ended && !elsewhere) {
        out.afterEnd.push({
          seq: x.seq,
          message: `${scope} asked for another page of a scroll whose end was already answered (no scrollId, or null)`,
        });
      } else if (elsewhere && openHere.length > 0) {
        out.nextPages += 1;
        const meant = openHere[openHere.length - 1] as Scroll;
        meant.askedAfterLast = true;
        meant.misContinued = true;
        fail(
          x,
          scope,
          `passed scrollId "${short(id)}" of ${otherScroll(elsewhere, scope)}; a scroll id continues only the scroll whose answer gave it`,
        );
      } else if (elsewhere) {
        // No scroll of this scan is open: the request opens one, with a body that is another scroll's id.
        opensWithBody(
          x,
          scope,
          `opened a scan with a body: scrollId "${short(id)}" of ${otherScroll(elsewhere, scope)}; the first request has no body or a null body, and a scroll id continues only the scroll whose answer gave it; the document: ${FIRST_WORDS}`,
        );
      } else if (openHere.length > 0) {
        out.nextPages += 1;
        const meant = openHere[openHere.length - 1] as Scroll;
        meant.askedAfterLast = true;
        meant.misContinued = true;
        fail(
          x,
          scope,
          `passed scrollId "${short(id)}", not the scrollId the previous answer gave ("${short(current(openHere[openHere.length - 1] as Scroll))}")`,
        );
      } else {
        opensWithBody(
          x,
          scope,
          `opened a scan with a body (${JSON.stringify((x.body ?? "").slice(0, 60))}); the first request has no body or a null body`,
        );
      }
    } else if (sent.kind === "other") {
      // A body that is no scroll id but holds an open scroll's id (e.g. {"scroll_id": ...}): a next page
      // the provider cannot read. Any other body opens a scan with one: the first-request rule's case.
      const body = x.body ?? "";
      const meant = openHere.find((s) => body.includes(current(s)));
      if (meant) {
        out.nextPages += 1;
        meant.askedAfterLast = true;
        meant.misContinued = true;
        fail(
          x,
          scope,
          `passed the body ${JSON.stringify(body.slice(0, 60))}, not the scrollId the previous answer gave ("${short(current(meant))}") as a raw id, a JSON string or {"scrollId": ...}`,
        );
      } else if (openHere.length === 0)
        opensWithBody(
          x,
          scope,
          `opened a scan with a body (${JSON.stringify(body.slice(0, 60))}); the first request has no body or a null body`,
        );
    } else {
      const inQuery = idInQuery(x, new Set(openHere.map(current)));
      if (inQuery) {
        out.nextPages += 1;
        continued = openHere.find((s) => current(s) === inQuery.id);
        if (continued) continued.misContinued = true;
        fail(
          x,
          scope,
          `passed the scroll id in the query string (${inQuery.name}=${short(inQuery.id)}) with no body: the provider reads a request without a body as the opening of a new scan; the document: ${BODY_WORDS}`,
        );
      }
    }
    if (continued && !refusedBeforeTheScroll(x)) continued.askedAfterLast = true;
    if (x.status !== 200) continue;
    const answer = parseJson(x.responseBody) as { scrollId?: unknown; values?: unknown } | undefined;
    if (answer === undefined || typeof answer !== "object" || answer === null) continue;
    const scroll: Scroll = continued ?? {
      scope,
      query,
      openedAt: x.seq,
      ids: [],
      ended: false,
      askedAfterLast: false,
    };
    if (!continued) {
      openOrder.set(scroll, scrolls.length);
      scrolls.push(scroll);
    }
    const next = answer.scrollId;
    const records = Array.isArray(answer.values) ? answer.values.length : 0;
    if (typeof next === "string" && next !== "") {
      out.scrollAnswers += 1;
      if (!continued && records > 0) out.paged += 1;
      scroll.ids.push(next);
      gave(scroll, next);
      scroll.last = { seq: x.seq, records };
      scroll.askedAfterLast = false;
    } else {
      scroll.ended = true;
      open.get(scope)?.delete(scroll);
      if (continued) out.ends += 1;
    }
  }
  // A scroll left: its last answer gave records and a scrollId the client never passed on (an empty page
  // that still carries one may be followed or not: end-empty-page-with-scroll-id).
  for (const s of scrolls) {
    if (s.ended || s.askedAfterLast || s.misContinued || s.last === undefined || s.last.records === 0)
      continue;
    const pages = s.ids.length;
    out.left.push({
      seq: s.last.seq,
      message: `${s.scope}: your client left the scroll after ${plural(pages, "page")}: the answer at #${s.last.seq} gave ${plural(s.last.records, "record")} and a scrollId ("${short(current(s))}") it never passed on, so it read less than the scan holds; the document: ${NEXT_PAGE_WORDS}, and only an answer without a scrollId (or a null one) is the end (the end-of-results signal is not shown: a page shorter than limit is no end)`,
    });
  }
  return out;
}

/** Replaces the hand-listed rule of the same id: judged per scroll, the id's place (body, not query) too. */
export const SCROLL_CONTINUED_BY_ITS_ID = callerRule({
  id: "client/scan-passes-previous-scroll-id",
  requirements: ["CALLER-SCAN-02"],
  title:
    "MUST continue a scroll by passing, in the request body, the scrollId the last answer of that scroll gave",
  opportunity: "a next-page request after an answer that carried a scrollId",
  breaks:
    "not the scrollId of that scroll's last answer (an earlier page's, another scan's, an unknown one), or the id in the query string without a body (raw, JSON string and `{\"scrollId\"}` bodies are all accepted)",
  exercisedBy: "a scan that pages: `--data` with more lookups than your `limit`, or `--variants short-pages`",
  judge(traffic) {
    const { nextPages, scrollAnswers, next } = scrollWalk(traffic);
    return verdict(
      nextPages,
      next,
      scrollAnswers === 0
        ? `no answer your client got carried a scrollId, so it never had a next page to ask for; ${TO_PAGE}`
        : `${plural(scrollAnswers, "answer")} your client got carried a scrollId, but it never asked for a next page (it stopped after the first page, or opened the scan again without a body); a client that reads every page passes the scrollId back`,
    );
  },
});

/** Replaces the hand-listed rule of the same id: an ended scroll is known per scroll, not per path. */
export const SCROLL_ENDED = callerRule({
  id: "client/scan-stops-at-end",
  requirements: ["CALLER-SCAN-03"],
  title: "SHOULD stop a scan at its end (an answer without a scrollId, or with a null one)",
  opportunity: "an answer that ended a scan your client had paged through",
  breaks:
    "asking that scroll for another page (an empty page that still carries a scrollId may be followed or not)",
  exercisedBy: "as above",
  judge(traffic) {
    const { ends, afterEnd } = scrollWalk(traffic);
    return verdict(
      ends,
      afterEnd,
      `no scan of your client reached its end through a next page (an answer without a scrollId after one that carried it); ${TO_PAGE}`,
    );
  },
});

/** A scan read to its end, per scroll: the model of the scan rules (opened, continued, ended). */
export const SCROLL_READ_TO_END = callerRule({
  id: "client/scan-read-to-end",
  requirements: ["CALLER-SCAN-04"],
  looksAhead: true,
  title:
    "SHOULD read every scan it opens to its end: continue each scroll until an answer without a scrollId (or with a null one)",
  opportunity:
    "a scan your client opened whose first answer carried records and a scrollId (a scan with a next page)",
  breaks:
    "a scroll left while its last answer still carried records and a scrollId the client never passed on (only the first page read, or a page shorter than `limit` taken for the end); SHOULD: the document says how to obtain the next page, not that a caller reads them all",
  exercisedBy: "a scan that pages: `--data` with more lookups than your `limit`, or `--variants short-pages`",
  judge(traffic) {
    const { paged, left } = scrollWalk(traffic);
    return verdict(
      paged,
      left,
      `no scan your client opened had a next page (a first answer with records and a scrollId); ${TO_PAGE}`,
    );
  },
});
