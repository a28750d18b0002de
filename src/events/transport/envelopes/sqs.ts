// Amazon SQS: the output of ReceiveMessage (`aws sqs receive-message --output json`, the API's JSON),
// {"Messages": [{MessageId, ReceiptHandle, MD5OfBody, Body, MessageAttributes}]}, or one element of it.
// The Body is the payload (raw message delivery) or an SNS notification (SNS subscription without raw
// delivery), which is unwrapped in turn. MessageAttributes are {DataType, StringValue | BinaryValue}.
import { createHash } from "node:crypto";
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
import { looksLikeSns, unwrapSns } from "./sns.ts";

const envelope: EnvelopeName = "sqs";

export function looksLikeSqs(value: Record<string, unknown>): boolean {
  return (
    Array.isArray(value.Messages) || ("Body" in value && ("ReceiptHandle" in value || "MessageId" in value))
  );
}

function sqsAttributes(attributes: unknown, at: string): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  if (attributes === undefined || attributes === null) return headers;
  if (!isRecord(attributes))
    fault(envelope, at, "an object of {DataType, StringValue} attributes", attributes);
  for (const [name, attribute] of Object.entries(attributes)) {
    const where = `${at}${segment(name)}`;
    if (!isRecord(attribute))
      fault(envelope, where, "an attribute {DataType, StringValue | BinaryValue}", attribute);
    const type = attribute.DataType;
    if (typeof type !== "string")
      fault(envelope, `${where}/DataType`, "String, Number or Binary (with an optional .suffix)", type);
    // A custom type adds a suffix: Number.int, String.json, Binary.gzip.
    const base = type.split(".")[0];
    if (base === "String" || base === "Number") {
      const value = attribute.StringValue;
      if (typeof value !== "string")
        fault(
          envelope,
          `${where}/StringValue`,
          `the attribute's value as a string (DataType ${type})`,
          value,
        );
      if (base === "String") headers[name] = value;
      else {
        const number = Number(value);
        if (value.trim() === "" || !Number.isFinite(number))
          fault(envelope, `${where}/StringValue`, `a number (DataType ${type})`, value);
        headers[name] = number;
      }
    } else if (base === "Binary")
      headers[name] = decodeBase64(envelope, `${where}/BinaryValue`, attribute.BinaryValue);
    else fault(envelope, `${where}/DataType`, "String, Number or Binary (with an optional .suffix)", type);
  }
  return withTypedVersion(headers);
}

/** One SQS message; an SNS notification in its Body is unwrapped, the SQS attributes beneath its own. */
export function unwrapSqsMessage(value: unknown, at: string): Unwrapped {
  if (!isRecord(value))
    fault(envelope, at || "/", "an SQS message {MessageId, Body, MessageAttributes}", value);
  const body = value.Body;
  if (typeof body !== "string") fault(envelope, `${at}/Body`, "the message body as a string", body);
  if (typeof value.MD5OfBody === "string") {
    const digest = createHash("md5").update(body, "utf8").digest("hex");
    if (digest !== value.MD5OfBody.toLowerCase())
      fault(
        envelope,
        `${at}/MD5OfBody`,
        `the MD5 of Body (${digest}); the body was changed after SQS sent it: keep the receive-message output as it came`,
        value.MD5OfBody,
      );
  }
  const headers = sqsAttributes(value.MessageAttributes, `${at}/MessageAttributes`);
  // Without raw message delivery the body is SNS's notification; the event is its Message.
  if (body.startsWith("{") && body.includes('"TopicArn"')) {
    let inner: unknown;
    try {
      inner = JSON.parse(body);
    } catch {
      inner = undefined;
    }
    if (isRecord(inner) && looksLikeSns(inner)) {
      const wrapped = attempt(() => unwrapSns(inner, "", headers));
      if ("fault" in wrapped)
        fault("sns", `${at}/Body${wrapped.fault.field}`, wrapped.fault.expected, wrapped.fault.got);
      return wrapped;
    }
  }
  return { headers, body };
}

/** A ReceiveMessage output (every message of it) or a single SQS message. */
export function unwrapSqs(value: unknown): UnwrapItem[] {
  if (isRecord(value) && Array.isArray(value.Messages))
    return value.Messages.map((message, index) =>
      attempt(() => unwrapSqsMessage(message, `/Messages${segment(index)}`)),
    );
  if (isRecord(value) && !("Messages" in value)) return [attempt(() => unwrapSqsMessage(value, ""))];
  return [
    attempt(() =>
      fault(
        envelope,
        isRecord(value) ? "/Messages" : "/",
        'the output of ReceiveMessage {"Messages": [...]} or one SQS message {MessageId, Body, ...}',
        isRecord(value) ? value.Messages : value,
      ),
    ),
  ];
}
