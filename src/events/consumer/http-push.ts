// HTTP push delivery: the kit POSTs each message to the team's endpoint as Google Cloud Pub/Sub push
// does ({"message": {data, attributes, messageId, publishTime}, "subscription"}) or as Amazon SNS
// delivers a notification to an HTTP endpoint ({"Type": "Notification", "Message", "MessageAttributes"}).
// An answer of 2xx acknowledges the message; any other answer, or none, is delivered again after a
// back-off that doubles, as those services do. One message is in flight at a time, so the endpoint gets
// them in delivery order (the order the truth's positions count).
import { Agent, type ClientRequest, request } from "node:http";
import type { DeliveredMessage } from "./consumer-stream.ts";

export type PushFormat = "pubsub" | "sns";

/** The first back-off after a refused push, and the longest. */
const FIRST_BACKOFF_MS = 10;
const LONGEST_BACKOFF_MS = 1_000;

export interface PushOutcome {
  /** Messages acknowledged (2xx). */
  delivered: number;
  /** Pushes answered with other than 2xx (or not answered) and sent again. */
  redelivered: number;
  /** The first refusal, for the report. */
  firstRefusal?: string;
}

function attributesOf(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = String(value);
  return out;
}

/** The body of one push request, in the service's form. */
export function pushBody(message: DeliveredMessage, index: number, format: PushFormat): string {
  const text = JSON.stringify(message.payload);
  const at = new Date(Date.UTC(2026, 0, 5, 9) + index).toISOString();
  if (format === "pubsub")
    return JSON.stringify({
      message: {
        data: Buffer.from(text, "utf8").toString("base64"),
        attributes: attributesOf(message.headers),
        messageId: String(index + 1),
        publishTime: at,
      },
      subscription: "projects/lckit/subscriptions/consumer-check",
    });
  const attributes: Record<string, { Type: string; Value: string }> = {};
  for (const [name, value] of Object.entries(message.headers))
    attributes[name] = { Type: typeof value === "number" ? "Number" : "String", Value: String(value) };
  return JSON.stringify({
    Type: "Notification",
    MessageId: `00000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`,
    TopicArn: "arn:aws:sns:us-east-1:000000000000:lckit-consumer-check",
    Message: text,
    Timestamp: at,
    SignatureVersion: "1",
    MessageAttributes: attributes,
  });
}

function post(
  agent: Agent,
  url: URL,
  body: string,
  format: PushFormat,
  started: (req: ClientRequest) => void,
): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = {
      "content-type": format === "sns" ? "text/plain; charset=UTF-8" : "application/json",
      "content-length": Buffer.byteLength(body),
    };
    if (format === "sns") headers["x-amz-sns-message-type"] = "Notification";
    const req = request(url, { method: "POST", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
      res.on("error", (error) => resolve({ error: error.message }));
    });
    req.on("error", (error) => resolve({ error: error.message }));
    started(req);
    req.end(body);
  });
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

/** Waits until something accepts connections at the URL (the consumer has started listening). */
export async function endpointReady(url: URL, signal: AbortSignal): Promise<boolean> {
  const { connect } = await import("node:net");
  while (!signal.aborted) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return true;
    await pause(25, signal);
  }
  return false;
}

/** Pushes every message in order, each until it is acknowledged, or until `signal` ends the delivery. */
export async function pushMessages(
  messages: readonly DeliveredMessage[],
  url: URL,
  format: PushFormat,
  signal: AbortSignal,
): Promise<PushOutcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const outcome: PushOutcome = { delivered: 0, redelivered: 0 };
  let current: ClientRequest | undefined;
  const cancel = () => current?.destroy();
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (let index = 0; index < messages.length && !signal.aborted; index += 1) {
      const body = pushBody(messages[index] as DeliveredMessage, index, format);
      let backoff = FIRST_BACKOFF_MS;
      for (;;) {
        const answer = await post(agent, url, body, format, (req) => {
          current = req;
        });
        if ("status" in answer && answer.status >= 200 && answer.status < 300) {
          outcome.delivered += 1;
          break;
        }
        if (signal.aborted) return outcome;
        outcome.redelivered += 1;
        outcome.firstRefusal ??=
          "status" in answer
            ? `message #${index + 1} answered ${answer.status}`
            : `message #${index + 1} not answered: ${answer.error}`;
        await pause(backoff, signal);
        backoff = Math.min(backoff * 2, LONGEST_BACKOFF_MS);
      }
    }
    return outcome;
  } finally {
    signal.removeEventListener("abort", cancel);
    agent.destroy();
  }
}
