// Google Cloud Pub/Sub: a message in its push form ({"message": {data, attributes, messageId, ...},
// "subscription": ...}), its pull forms (the REST response {"receivedMessages": [{ackId, message}]}, the
// list `gcloud pubsub subscriptions pull --format=json` prints, one {ackId, message}) or a bare
// PubsubMessage. data is the payload, base64-encoded; attributes (text to text) are the headers.
import {
  attempt,
  decodeBase64,
  type EnvelopeName,
  fault,
  isRecord,
  segment,
  type UnwrapItem,
  type Unwrapped,
  withTypedVersion,
} from "./envelope.ts";

const envelope: EnvelopeName = "pubsub";

const receivedMessage = (value: unknown): boolean =>
  isRecord(value) && isRecord(value.message) && "ackId" in value;
const bareMessage = (value: Record<string, unknown>): boolean =>
  "data" in value &&
  ("messageId" in value || "message_id" in value || "attributes" in value) &&
  !("type" in value);

export function looksLikePubsub(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(receivedMessage);
  if (!isRecord(value)) return false;
  return (
    Array.isArray(value.receivedMessages) ||
    (isRecord(value.message) && ("subscription" in value || "ackId" in value)) ||
    bareMessage(value)
  );
}

function pubsubMessage(value: unknown, at: string): Unwrapped {
  if (!isRecord(value)) fault(envelope, at || "/", "a Pub/Sub message {data, attributes, messageId}", value);
  const headers: Record<string, unknown> = {};
  const attributes = value.attributes;
  if (attributes !== undefined && attributes !== null) {
    if (!isRecord(attributes))
      fault(envelope, `${at}/attributes`, "an object of text attributes", attributes);
    for (const [name, text] of Object.entries(attributes)) {
      if (typeof text !== "string")
        fault(envelope, `${at}/attributes${segment(name)}`, "text (Pub/Sub attributes are strings)", text);
      headers[name] = text;
    }
  }
  if (value.data === undefined || value.data === null)
    fault(
      envelope,
      `${at}/data`,
      "the payload, base64-encoded (this message has attributes only)",
      value.data,
    );
  // A tool that prints the message decoded (data already JSON text) is read as it is: base64 text never
  // starts with { or [.
  const data = value.data;
  const body =
    typeof data === "string" && /^\s*[[{]/.test(data)
      ? data
      : decodeBase64(envelope, `${at}/data`, data, "the payload, base64-encoded (or its JSON text)");
  return { headers: withTypedVersion(headers), body };
}

export function unwrapPubsub(value: unknown): UnwrapItem[] {
  const received = (items: unknown[], at: string): UnwrapItem[] =>
    items.map((item, index) =>
      attempt(() => {
        if (!isRecord(item))
          fault(envelope, `${at}${segment(index)}`, "a received message {ackId, message}", item);
        return pubsubMessage(item.message, `${at}${segment(index)}/message`);
      }),
    );
  if (Array.isArray(value)) return received(value, "");
  if (isRecord(value) && Array.isArray(value.receivedMessages))
    return received(value.receivedMessages, "/receivedMessages");
  if (isRecord(value) && "message" in value) return [attempt(() => pubsubMessage(value.message, "/message"))];
  return [attempt(() => pubsubMessage(value, ""))];
}
