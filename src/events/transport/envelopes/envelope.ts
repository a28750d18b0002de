// What the envelopes of messaging services share: the result of unwrapping one line, the fault of a broken
// envelope (which field, what was expected, what came), and the mapping of service attributes to headers.
import { describeValue } from "../../document/described-value.ts";

/** The envelopes the checker reads from files and stdin, by the service that writes them. */
export const envelopeNames = ["sns", "sqs", "pubsub", "kafka"] as const;
export type EnvelopeName = (typeof envelopeNames)[number];
/** `--envelope`: one service's form for every line, each line's form detected, or no unwrapping at all. */
export type EnvelopeChoice = EnvelopeName | "auto" | "none";

/** A broken envelope: where in the line (JSON pointer), what the service's format has there, what came. */
export interface EnvelopeFault {
  envelope: EnvelopeName;
  field: string;
  expected: string;
  got: string;
}

/** One message found in an envelope: the service's attributes as headers, the payload as text. */
export interface Unwrapped {
  headers: Record<string, unknown>;
  body: string;
}

export type UnwrapItem = Unwrapped | { fault: EnvelopeFault };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Thrown inside a decoder; the decoder's caller turns it into an UnwrapItem for its message. */
export class FaultSignal extends Error {
  constructor(readonly fault: EnvelopeFault) {
    super(`${fault.envelope} envelope: ${fault.field} must be ${fault.expected}`);
  }
}

export function fault(envelope: EnvelopeName, field: string, expected: string, got: unknown): never {
  throw new FaultSignal({ envelope, field, expected, got: describeValue(got) });
}

/** A JSON pointer segment. */
export function segment(key: string | number): string {
  return `/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;
const base64Url = /^[A-Za-z0-9_-]*={0,2}$/;

/** Base64 text as UTF-8; Buffer.from alone would skip stray characters and decode garbage. */
export function decodeBase64(
  envelope: EnvelopeName,
  field: string,
  value: unknown,
  what = "base64 text",
): string {
  if (typeof value !== "string" || !(base64.test(value) || base64Url.test(value)))
    fault(envelope, field, what, value);
  return Buffer.from(value, value.includes("-") || value.includes("_") ? "base64url" : "base64").toString(
    "utf8",
  );
}

const decimalInteger = /^-?\d{1,15}$/;

/**
 * Services whose attributes are text (Pub/Sub, Kafka, String-typed SNS and SQS attributes) can carry the
 * document's integer objectVersion only as its decimal digits: read so, it is the integer. Other text
 * stays text, so "3.5" is still reported as no integer.
 */
export function withTypedVersion(headers: Record<string, unknown>): Record<string, unknown> {
  const version = headers.objectVersion;
  if (typeof version === "string" && decimalInteger.test(version)) headers.objectVersion = Number(version);
  return headers;
}

/** Runs one decoder on one message, turning a broken envelope into its fault item. */
export function attempt(decode: () => Unwrapped): UnwrapItem {
  try {
    return decode();
  } catch (error) {
    if (error instanceof FaultSignal) return { fault: error.fault };
    throw error;
  }
}
