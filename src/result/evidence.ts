// Which exchanges of a failed check a report keeps as evidence: the last few (what led to the failure) and,
// before them, those its failure detail points at, so a record that repeated on page 3 and page 7 of a scan
// shows both pages even when the scan went on for many more.
import { type Exchange, type FailureDetail, requestOf } from "../check/index.ts";

/** Exchanges kept as evidence of a failed or broken check (the last ones). */
export const EVIDENCE_EXCHANGES = 5;

/** The last `max` exchanges, preceded by at most `max` earlier ones the detail cites (see citation), in the
 *  order they were sent. */
export function pickEvidence<T extends Exchange>(
  exchanges: readonly T[],
  detail: FailureDetail | undefined,
  max = EVIDENCE_EXCHANGES,
): T[] {
  const last = exchanges.slice(-max);
  if (detail === undefined) return last;
  const earlier = exchanges
    .slice(0, Math.max(0, exchanges.length - max))
    .filter((x) => citation(detail, x) !== undefined);
  return [...earlier.slice(-max), ...last];
}

/** Why the detail points at this exchange. With a record at fault, the answers that hold it ("record": a
 *  scan's pages where it came); else the request it names ("request"), since all pages of a scan may share
 *  one method and path. */
export function citation(detail: FailureDetail, x: Exchange): "record" | "request" | undefined {
  if (detail.record !== undefined && detail.record !== "")
    return x.response?.body.includes(detail.record) ? "record" : undefined;
  if (detail.request === undefined) return undefined;
  const sent = requestOf(x.request.method, x.request.url);
  return sent.method === detail.request.method.toUpperCase() && sent.path === detail.request.path
    ? "request"
    : undefined;
}

/** The evidence files of a report folder that citations point into: every exchange of a run (HAR 1.2,
 *  gzip-compressed, written by src/evidence/har.ts: a certified run's exchanges are tens of MB as text) and every event message of an event check (src/evidence/event-evidence.ts). */
export const HAR_FILE = "evidence.har.gz";
/** The HAR as runs before the gzip wrote it, plain: still read by lckit report verify. */
export const PLAIN_HAR_FILE = "evidence.har";
export const EVENTS_FILE = "events.ndjson";
