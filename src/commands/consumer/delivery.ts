// The delivery of the stream to the consumer: published to a broker or written to a file before the
// command starts, piped to its stdin, or pushed over HTTP while it runs.
import { once } from "node:events";
import { createReadStream } from "node:fs";
import type { Writable } from "node:stream";
import { type DeliveryQueue, openDeliveryQueue } from "../../events/consumer/amqp-queue.ts";
import {
  type DeliveredMessage,
  messageLine,
  writeStreamFile,
} from "../../events/consumer/consumer-stream.ts";
import { parseAmqp1Url } from "../../events/transport/amqp1-connection.ts";
import { openAmqp1Sink } from "../../events/transport/sinks/amqp1.ts";
import { freePort } from "../../http/free-port.ts";
import type { ConsumerCheckRequest } from "./request.ts";

/** Writes the stream to a pipe, waiting whenever the pipe is full. */
export async function pipeStream(messages: readonly DeliveredMessage[], input: Writable): Promise<number> {
  let written = 0;
  try {
    for (const message of messages) {
      if (input.destroyed) break;
      if (!input.write(messageLine(message))) await once(input, "drain");
      written += 1;
    }
  } catch {
    // The consumer closed its stdin early: what it read is what it got.
  }
  input.end();
  return written;
}

/** Writes a kept stream's file to a pipe; the count is of the lines written whole. */
export async function pipeFile(path: string, input: Writable): Promise<number> {
  let lines = 0;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      if (input.destroyed) break;
      if (!input.write(chunk)) await once(input, "drain");
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
    }
  } catch {
    // The consumer closed its stdin early: what it read is what it got.
  }
  input.end();
  return lines;
}

/** What the delivery set up before the command starts; filled in as it goes, so that what was opened is
 *  closed even when a later step fails. */
export interface OpenedDelivery {
  /** Messages handed over (acknowledged, written, piped), as far as known. */
  delivered: number;
  /** The rabbitmq delivery's queue. */
  queue?: DeliveryQueue;
  /** The amqp1 delivery on the kit's node: a queue of the run's own, its AMQP 1.0 address /amq/queue/NAME. */
  amqp1Queue?: DeliveryQueue;
  /** Where the push deliveries post, on a free port of the loopback. */
  pushUrl?: URL;
}

/** Delivers what goes before the command starts (a broker's queue or address holds the stream until the
 *  consumer takes it; a file is written unless kept) and sets the delivery's LCKIT_* variables. */
export async function openDelivery(
  request: ConsumerCheckRequest,
  messages: () => readonly DeliveredMessage[],
  file: { path: string; kept: number | undefined },
  env: NodeJS.ProcessEnv,
  opened: OpenedDelivery,
): Promise<void> {
  const { delivery, options } = request;
  if (delivery === "rabbitmq") {
    const url = options.brokerUrl ?? (options.kitBroker?.url as string);
    opened.queue = await openDeliveryQueue(url);
    opened.delivered = await opened.queue.publish(messages());
    env.LCKIT_AMQP_URL = url;
    env.LCKIT_AMQP_QUEUE = opened.queue.name;
  }
  if (delivery === "amqp1") {
    let url = options.brokerUrl;
    if (url === undefined) {
      const node = options.kitBroker?.url as string;
      opened.amqp1Queue = await openDeliveryQueue(node);
      url = `${node.replace(/^amqp:/, "amqp1:")}/${encodeURIComponent(`/amq/queue/${opened.amqp1Queue.name}`)}`;
    }
    // Published before the command starts: the address holds the stream until the consumer takes it.
    const sink = await openAmqp1Sink(url);
    try {
      for (const message of messages())
        await sink.publish({ headers: message.headers, body: JSON.stringify(message.payload) });
    } finally {
      await sink.close();
    }
    opened.delivered = messages().length;
    env.LCKIT_AMQP1_URL = url;
    env.LCKIT_AMQP1_ADDRESS = parseAmqp1Url(url).address;
  }
  if (delivery === "file") {
    if (file.kept === undefined) {
      writeStreamFile(file.path, messages());
    }
    env.LCKIT_EVENTS_FILE = file.path;
    opened.delivered = file.kept ?? messages().length;
  }
  if (delivery === "pubsub-push" || delivery === "sns-push") {
    const port = await freePort();
    opened.pushUrl = new URL(`http://127.0.0.1:${port}/`);
    env.LCKIT_PUSH_PORT = String(port);
    env.LCKIT_PUSH_URL = opened.pushUrl.href;
  }
}
