// Amazon SNS: the notification JSON SNS delivers to HTTP(S) endpoints and, without raw message delivery,
// to SQS queues: the payload in Message (a string), the headers in MessageAttributes as {Type, Value}.
import {
  decodeBase64,
  type EnvelopeName,
  fault,
  isRecord,
  segment,
  type Unwrapped,
  withTypedVersion,
} from "./envelope.ts";

const envelope: EnvelopeName = "sns";

export function looksLikeSns(value: Record<string, unknown>): boolean {
  // Type with a capital T is SNS's own key; no event payload has it.
  return (
    typeof value.Type === "string" && ("Message" in value || "TopicArn" in value || "MessageId" in value)
  );
}

/** SNS MessageAttributes ({name: {Type, Value}}) as headers. */
function snsAttributes(attributes: unknown, at: string): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  if (attributes === undefined || attributes === null) return headers;
  if (!isRecord(attributes)) fault(envelope, at, "an object of {Type, Value} attributes", attributes);
  for (const [name, attribute] of Object.entries(attributes)) {
    const where = `${at}${segment(name)}`;
    if (!isRecord(attribute)) fault(envelope, where, "an attribute {Type, Value}", attribute);
    const { Type: type, Value: value } = attribute;
    if (typeof value !== "string")
      fault(envelope, `${where}/Value`, "the attribute's value as a string", value);
    if (type === "String") headers[name] = value;
    else if (type === "Number") {
      const number = Number(value);
      if (value.trim() === "" || !Number.isFinite(number))
        fault(envelope, `${where}/Value`, "a number (the attribute's Type is Number)", value);
      headers[name] = number;
    } else if (type === "Binary") headers[name] = decodeBase64(envelope, `${where}/Value`, value);
    else if (type === "String.Array") {
      try {
        headers[name] = JSON.parse(value);
      } catch {
        fault(envelope, `${where}/Value`, "a JSON array (the attribute's Type is String.Array)", value);
      }
    } else fault(envelope, `${where}/Type`, "String, String.Array, Number or Binary", type);
  }
  return withTypedVersion(headers);
}

/** One SNS notification; `at` is its pointer in the line, `outer` headers (an SQS wrapper's) come first. */
export function unwrapSns(value: unknown, at = "", outer: Record<string, unknown> = {}): Unwrapped {
  if (!isRecord(value)) fault(envelope, at || "/", "an SNS notification object", value);
  if (value.Type !== "Notification")
    fault(
      envelope,
      `${at}/Type`,
      '"Notification" (a SubscriptionConfirmation or UnsubscribeConfirmation carries no event: confirm the subscription, then check the notifications)',
      value.Type,
    );
  if (typeof value.Message !== "string")
    fault(envelope, `${at}/Message`, "the payload as a JSON string", value.Message);
  const headers = { ...outer, ...snsAttributes(value.MessageAttributes, `${at}/MessageAttributes`) };
  return { headers, body: value.Message };
}
