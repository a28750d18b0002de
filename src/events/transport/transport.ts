// Where event messages come from: one small interface, so that files and stdin (NDJSON, or SNS, SQS,
// Pub/Sub and kcat envelopes), AMQP 0-9-1 and AMQP 1.0 feed the same checker without touching the checks.

/** One message as it arrived: headers as the transport carried them, the body as text. */
export interface RawMessage {
  /** Human-readable position for reports: "line 12", "line 3 message 2", "amqp delivery 4031", "amqp1 delivery 7". */
  position: string;
  /** Transport headers (AMQP headers, application properties, a service's attributes); undefined when the
   *  transport has none (NDJSON lines). */
  headers?: Record<string, unknown>;
  body: string;
  /** Where the source can find this message again (MessageSource.recall): a file's byte offset, a list's
   *  index. Absent when the source cannot read a message twice (a broker, stdin). */
  ref?: number;
  /** Set when the message is larger than the source reads (a line past --max-line-bytes): its size and
   *  the limit, in bytes. Its body is then empty; the checker reports it for its position and goes on. */
  tooLarge?: { bytes: number; limit: number };
  /** Set when the service envelope the message came in is broken (an SNS notification without Message, an
   *  SQS attribute without its value, Pub/Sub data that is not base64): the field as a JSON pointer into the
   *  envelope, what the service's format has there, what came. Its body is then the envelope as it came
   *  (evidence), not a payload; the checker reports
   *  it for its position and goes on. */
  envelopeFault?: { envelope: string; field: string; expected: string; got: string };
}

/** A gap or fault of the transport itself (broker restart, reconnect), reported beside message results. */
export interface TransportNotice {
  /** memory-bound: the checker forgot state to keep within --max-tracked (what it could no longer compare). */
  kind: "disconnected" | "reconnected" | "gap" | "stopped" | "memory-bound";
  message: string;
  at: number;
}

export interface MessageSource {
  readonly description: string;
  messages(): AsyncIterable<RawMessage>;
  /**
   * The body of an earlier message again, by its ref; undefined when it can no longer be read. Sources
   * that can (files, lists) let the stream rules keep a ref instead of a fingerprint of every payload:
   * a payload is then fingerprinted only when another message with its (uri, objectVersion) arrives.
   */
  recall?(ref: number): string | undefined;
  /** Notices collected so far; read after iteration ends. */
  notices(): TransportNotice[];
  close(): Promise<void>;
}

export interface MessageSink {
  readonly description: string;
  publish(message: { headers: Record<string, unknown>; body: string }): Promise<void>;
  close(): Promise<void>;
}
