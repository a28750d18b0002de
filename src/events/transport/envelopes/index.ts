// The envelopes of messaging services, read from files and stdin: each line is unwrapped as the chosen
// service's form, or (auto) as the form its structure shows, into messages with headers and a payload.
import {
  attempt,
  type EnvelopeChoice,
  type EnvelopeName,
  envelopeNames,
  fault,
  isRecord,
  type UnwrapItem,
} from "./envelope.ts";
import { looksLikeKafka, unwrapKafka } from "./kafka.ts";
import { looksLikePubsub, unwrapPubsub } from "./pubsub.ts";
import { looksLikeSns, unwrapSns } from "./sns.ts";
import { looksLikeSqs, unwrapSqs } from "./sqs.ts";

export type { EnvelopeChoice, EnvelopeFault, EnvelopeName, UnwrapItem, Unwrapped } from "./envelope.ts";
export { envelopeNames } from "./envelope.ts";
export const envelopeChoices: readonly EnvelopeChoice[] = ["auto", "none", ...envelopeNames];

/** The service form a parsed line shows, or undefined (the kit's own NDJSON: a payload or {headers, payload}). */
export function detectEnvelope(value: unknown): EnvelopeName | undefined {
  if (Array.isArray(value)) return looksLikePubsub(value) ? "pubsub" : undefined;
  if (!isRecord(value) || "type" in value) return undefined;
  if (looksLikeSns(value)) return "sns";
  if (looksLikeSqs(value)) return "sqs";
  if (looksLikePubsub(value)) return "pubsub";
  if (looksLikeKafka(value)) return "kafka";
  return undefined;
}

/** The kit's own line shapes start with one of these keys; such a line is never parsed twice. */
const kitLine = /^\s*\{\s*"(?:type|headers|payload)"\s*:/;

function unwrapAs(name: EnvelopeName, value: unknown): UnwrapItem[] {
  switch (name) {
    case "sns":
      return [attempt(() => unwrapSns(value))];
    case "sqs":
      return unwrapSqs(value);
    case "pubsub":
      return unwrapPubsub(value);
    case "kafka":
      return [attempt(() => unwrapKafka(value))];
  }
}

/**
 * The messages in one line, or undefined when the line is to be checked as it is (no envelope chosen or
 * detected; text that is no JSON is left to the checker, which reports it). A broken envelope gives a
 * fault item for its message, so the line is reported and the run goes on.
 */
export function unwrapLine(text: string, choice: EnvelopeChoice): UnwrapItem[] | undefined {
  if (choice === "none" || (choice === "auto" && kitLine.test(text))) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (choice === "auto") return undefined;
    const reason = error instanceof Error ? error.message : String(error);
    return [
      attempt(() =>
        fault(
          choice,
          "",
          `one JSON document (${reason}): one a line, or pretty-printed with its first line only { or [`,
          text,
        ),
      ),
    ];
  }
  const name = choice === "auto" ? detectEnvelope(value) : choice;
  return name === undefined ? undefined : unwrapAs(name, value);
}
