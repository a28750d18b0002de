// What a generated stream is asked for (StreamOptions) and what it returns: the messages in sending
// order and the manifest that says what is in them.

import type { StreamingConfig } from "../streaming-config.ts";

/** The streaming configuration's payloadType; "mixed" draws per message (no single configuration fits). */
export type PayloadType = "snapshot" | "deltas" | "mixed";

export interface StreamOptions {
  seed: number;
  /** Messages in the stream, re-sends and invalid messages included. */
  count: number;
  tenantId?: string;
  /** payloadType of the stream (default snapshot); "mixed": a third of the messages deltas, the rest snapshots. */
  payloadType?: PayloadType;
  /** Share of messages sent as large-object fallbacks, 0 <= share <= 1 (default 0.05). */
  largeObjects?: number;
  /** Probability that a message is sent again, unchanged (at-least-once delivery). Default 0. */
  duplicates?: number;
  /** Messages may arrive up to this many places away from their order of creation. Default 0. */
  reorderWindow?: number;
  /** Inject this many invalid messages, each breaking one rule (chosen among `rules` when given). */
  invalid?: { count: number; rules?: string[] };
  /**
   * Legal variety (default true): deltas as the delta message, the bare {ovChanged, delta} collection or
   * another object; reference-attribute delta values without value and sources; fallbacks whose URI is
   * only in the sourceObjectUri header; event types in neither of the document's lists; re-sends
   * serialized again with other key order and spacing; deeply nested attribute values. false: only the
   * kit's preferred shapes.
   */
  variety?: boolean;
  /** An entity merge also merges the loser's live relations away, each with a RELATION_LOST_MERGE.
   *  Default false: the streams of recorded seeds stay as they were. */
  relationMerges?: boolean;
  /** Keep on each valid message the object its body serializes, for in-process readers that would
   *  otherwise parse every body again. Default false: a long stream then holds only its text. */
  payloads?: boolean;
}

export interface StreamMessage {
  headers: Record<string, unknown>;
  body: string;
  /** With the `payloads` option: the object `body` serializes (the same data as JSON.parse(body)). */
  payload?: Record<string, unknown>;
}

export interface InvalidEntry {
  /** 0-based index in `messages` (the order of sending). */
  index: number;
  rule: string;
  description: string;
}

export interface StreamManifest {
  seed: number;
  total: number;
  valid: number;
  invalid: number;
  /** The invalid messages, in sending order. */
  invalidMessages: InvalidEntry[];
  /** Invalid messages by rule id. */
  byRule: Record<string, number>;
  duplicates: number;
  /** Messages that arrive at another place than their order of creation. */
  displaced: number;
  byType: Record<string, number>;
  /**
   * The streaming configuration the stream was shaped by (objectVersion is a filtering field); check the
   * stream with it. Undefined for payloadType "mixed": no single configuration produces such a stream.
   */
  streamingConfig?: StreamingConfig;
}

export interface GeneratedStream {
  messages: StreamMessage[];
  manifest: StreamManifest;
}
