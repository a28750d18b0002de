// What the stream rules keep of a read message: the message judge (../judge/event-message.ts) fills it in,
// the stream rules and the reference companions read it, so it sits below both.
import type { FoundPayloadKind } from "./read-message.ts";

/** What the stream rules need from a message (no copy of the message is kept). */
export interface MessageFacts {
  type?: string;
  uri?: string;
  objectVersion?: number;
  kind?: FoundPayloadKind;
  /** The parsed payload (the stream rules fingerprint it at once and keep nothing else). */
  payload?: unknown;
  /** The payload's fingerprint, when inspectMessage was asked for it (the stream rules then use it). */
  fingerprint?: number;
}
