// Writes a transport message ({headers, body}) in the form each messaging service delivers it, after the
// services' documented formats: what a deployment's events look like when read from SNS, SQS, Pub/Sub and
// Kafka. Used to prove that each envelope gives the verdict of the NDJSON line it came from.
import { createHash } from "node:crypto";

export interface TransportMessage {
  headers: Record<string, unknown>;
  body: string;
}

const stamp = (index: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + index * 1000).toISOString();
const id = (index: number) =>
  `${index.toString(16).padStart(8, "0")}-4f1c-5a2b-9d3e-${(index * 7919).toString(16).padStart(12, "0")}`;

/** A header value as text, for services whose attributes are text only. */
const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

export function snsAttributes(headers: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      typeof value === "number"
        ? { Type: "Number", Value: String(value) }
        : { Type: "String", Value: asText(value) },
    ]),
  );
}

export function snsNotification(message: TransportMessage, index = 0) {
  return {
    Type: "Notification",
    MessageId: id(index),
    TopicArn: "arn:aws:sns:eu-west-1:123456789012:lckit-events",
    Message: message.body,
    Timestamp: stamp(index),
    SignatureVersion: "1",
    Signature:
      "EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=",
    SigningCertURL:
      "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem",
    UnsubscribeURL: `https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:eu-west-1:123456789012:lckit-events:${id(1)}`,
    MessageAttributes: snsAttributes(message.headers),
  };
}

export function sqsAttributes(headers: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      typeof value === "number"
        ? { StringValue: String(value), DataType: "Number" }
        : { StringValue: asText(value), DataType: "String" },
    ]),
  );
}

const md5 = (text: string) => createHash("md5").update(text, "utf8").digest("hex");

/** One message of ReceiveMessage's output; `wrapped`: SNS delivered it without raw message delivery. */
export function sqsMessage(message: TransportMessage, index = 0, wrapped = false) {
  const body = wrapped ? JSON.stringify(snsNotification(message, index)) : message.body;
  return {
    MessageId: id(index),
    ReceiptHandle: `AQEB${Buffer.from(`receipt-${index}`).toString("base64")}`,
    MD5OfBody: md5(body),
    Body: body,
    Attributes: {
      SenderId: "AIDAEXAMPLE123",
      ApproximateFirstReceiveTimestamp: "1767323045000",
      ApproximateReceiveCount: "1",
      SentTimestamp: "1767323044000",
    },
    ...(wrapped ? {} : { MD5OfMessageAttributes: md5(JSON.stringify(message.headers)) }),
    ...(wrapped ? {} : { MessageAttributes: sqsAttributes(message.headers) }),
  };
}

export function pubsubMessage(message: TransportMessage, index = 0) {
  return {
    attributes: Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, asText(v)])),
    data: Buffer.from(message.body, "utf8").toString("base64"),
    messageId: String(9_000_000_000_000 + index),
    message_id: String(9_000_000_000_000 + index),
    publishTime: stamp(index),
    publish_time: stamp(index),
  };
}

export function kcatRecord(message: TransportMessage, index = 0) {
  return {
    topic: "lckit-events",
    partition: index % 3,
    offset: index,
    tstype: "create",
    ts: Date.parse(stamp(index)),
    broker: 1,
    headers: Object.entries(message.headers).flatMap(([k, v]) => [k, asText(v)]),
    key: asText(message.headers.sourceObjectUri ?? null),
    payload: message.body,
  };
}

/** Every form, as one line per message (the forms whose services batch hold one message a line). */
export const envelopeForms = {
  sns: (m: TransportMessage, i: number) => snsNotification(m, i),
  "sqs raw": (m: TransportMessage, i: number) => ({ Messages: [sqsMessage(m, i)] }),
  "sqs sns-wrapped": (m: TransportMessage, i: number) => ({ Messages: [sqsMessage(m, i, true)] }),
  "sqs one message": (m: TransportMessage, i: number) => sqsMessage(m, i),
  "pubsub push": (m: TransportMessage, i: number) => ({
    message: pubsubMessage(m, i),
    subscription: "projects/lckit-demo/subscriptions/lckit-check",
  }),
  "pubsub pull": (m: TransportMessage, i: number) => ({
    receivedMessages: [{ ackId: `ack-${i}`, message: pubsubMessage(m, i) }],
  }),
  "pubsub gcloud": (m: TransportMessage, i: number) => [{ ackId: `ack-${i}`, message: pubsubMessage(m, i) }],
  kafka: (m: TransportMessage, i: number) => kcatRecord(m, i),
} as const;

export const envelopeOfForm = {
  sns: "sns",
  "sqs raw": "sqs",
  "sqs sns-wrapped": "sqs",
  "sqs one message": "sqs",
  "pubsub push": "pubsub",
  "pubsub pull": "pubsub",
  "pubsub gcloud": "pubsub",
  kafka: "kafka",
} as const;
