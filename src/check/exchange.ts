// The transport's data a check and a report read: one exchange, and a retry the transport made.

/** One HTTP exchange kept as evidence; secrets are redacted by the runner before it stores this. */
export interface Exchange {
  /** Id of the check that sent it. */
  check?: string;
  /** Run-wide number of the exchange, in the order sent (from 0); evidence.har entries carry it as
   *  `_exchangeId`, so a report's evidence and citations point at exactly these entries. */
  id?: number;
  /** bodyTruncated: the body was cut (evidence keeps ~4 KB; the run's log keeps up to 256 KB). */
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
    bodyTruncated?: boolean;
  };
  response?: { status: number; headers: Record<string, string>; body: string; bodyTruncated?: boolean };
  /** Set when no complete answer came (timeout, reset, refused): what happened. */
  error?: string;
  /** What the transport did about this exchange: a retry (and why), a 429 waited out, a redirect not
   *  followed. */
  note?: string;
  durationMs: number;
}

/** Why the transport sent a request again: a connection reset, another connection-level failure before
 *  any answer, a 502/503/504 on an idempotent read, or a 429 whose Retry-After it waited out. */
export type RetryCause = "reset" | "connection" | "status" | "rate-limit";

/** A request the transport sent again for a check, as the transport saw it (no reader parses the note). */
export interface TransportRetry {
  /** Exchange.id of the attempt that was retried (evidence.har's _exchangeId); -1 when it had none. */
  exchange: number;
  cause: RetryCause;
  /** Method and URL of the request (redacted with the rest of the report). */
  request: string;
  /** The status answered (5xx, 429), when there was one. */
  status?: number;
  /** What went wrong before any answer (connection-level causes). */
  error?: string;
  /** Milliseconds waited before the next attempt. */
  waitMs: number;
  /** The same in one sentence, as the exchange's note says it. */
  note: string;
}
