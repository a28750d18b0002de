// The caller's reading model of the blocked values listing, from the document: offset is the starting
// offset into the list (default 0) and limit the page size (default 100, maximum 100), so the page after
// one that started at offset o and gave n records starts at o + n. Offset counts records, not pages. Judged
// per read: the requests of one listing (method and path: tenant and lookup type) that follow a page of
// records. A request at the same or a lower offset starts the read again (or retries), which is legal;
// one further on is the next page, and must start where the last page ended.

import { callerRule, plural, type Violation, verdict, where } from "./caller-rule.ts";
import { oncePerTraffic, parseJson, type Traffic, type TrafficExchange } from "./traffic.ts";

const OFFSET_WORDS = '"offset (integer, optional, default 0, starting offset)"';

/** The offset a request asks for: absent is the default 0; undefined when it is no whole number (the
 *  request rule's finding, not this one's). */
function offsetOf(x: TrafficExchange): number | undefined {
  const raw = new URLSearchParams(x.search).get("offset");
  if (raw === null || raw === "") return 0;
  return /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}

/** The records a page gave: the array of blocked values (or a values array, should a provider wrap it). */
function recordsOf(x: TrafficExchange): number | undefined {
  if (x.status !== 200) return undefined;
  const body = parseJson(x.responseBody);
  if (Array.isArray(body)) return body.length;
  const values = (body as { values?: unknown } | undefined)?.values;
  return Array.isArray(values) ? values.length : undefined;
}

export interface OffsetWalk {
  /** Reads: a listing's requests from one that starts a read (none before it, or at the same or a lower
   *  offset than the last page, or after a page without records) through the next pages it asked. */
  reads: number;
  /** Next-page requests: a request further on than a page that gave records. */
  nextPages: number;
  violations: Violation[];
}

export function walkOffsets(traffic: Traffic): OffsetWalk {
  const out: OffsetWalk = { reads: 0, nextPages: 0, violations: [] };
  const last = new Map<string, { offset: number; received: number; seq: number }>();
  for (const x of traffic.exchanges) {
    if (x.operation !== "listBlockedValues") continue;
    const scope = `${where(x)} (${x.clientId ?? "?"})`;
    const offset = offsetOf(x);
    if (offset === undefined) continue;
    const before = last.get(scope);
    if (!before || before.received === 0 || offset <= before.offset) out.reads += 1;
    else {
      out.nextPages += 1;
      const expected = before.offset + before.received;
      if (offset !== expected) {
        const asPage = offset === before.offset + 1 ? " (advanced by one, as a page number)" : "";
        const effect =
          offset < expected
            ? `reads ${plural(expected - offset, "record")} of that page again`
            : `skips ${plural(offset - expected, "record")}`;
        out.violations.push({
          seq: x.seq,
          message: `${where(x)} asked offset=${offset}${asPage} after the page at offset ${before.offset} gave ${plural(before.received, "record")}: the next page starts at offset ${expected}, so it ${effect}. Offset counts records, not pages; the document: ${OFFSET_WORDS}`,
        });
      }
    }
    const received = recordsOf(x);
    if (received === undefined) continue;
    last.set(scope, { offset, received, seq: x.seq });
  }
  return out;
}

const offsetWalk = oncePerTraffic(walkOffsets);

export const BLOCKED_VALUES_OFFSET_COUNTS_RECORDS = callerRule({
  id: "client/blocked-values-offset-counts-records",
  requirements: ["CALLER-OFFSET-01"],
  title:
    "MUST ask the blocked values listing's next page at the offset where the last page ended: its offset plus the records it gave (offset counts records, not pages)",
  opportunity:
    "a read of the blocked values listing: its first request and the next pages it asked (a read of one page follows the model too)",
  breaks:
    "an offset that advances by one per page (a page number), or by the limit after a page that gave fewer records, so that records are read twice or skipped (a request at the same or a lower offset starts the read again, which is legal; where a read stops is not judged, the end is not shown)",
  exercisedBy:
    "any blocked values listing; its paging with `--data` holding more blocked values than your `limit` (or a `limit` below their number)",
  judge(traffic) {
    const { reads, violations } = offsetWalk(traffic);
    return verdict(
      reads,
      violations,
      "your client never listed blocked values (GET .../autopilot/{lookupType}/blockedValues), so no read of it was judged; list them to exercise the rule",
    );
  },
});
