// Opens a message source from a command-line spec: an NDJSON path, "-" for stdin, or an amqp(s):// URL.
import type { EnvelopeChoice } from "../envelopes/index.ts";
import type { MessageSource } from "../transport.ts";
import { openFileSource, SourceError } from "./file.ts";

export { defaultMaxLineBytes, SourceError } from "./file.ts";
export { linesAsMessages, memorySource } from "./memory.ts";

export interface OpenSourceOptions {
  /** Stream read for "-" (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** AMQP: exchange to bind a private queue to (default "lckit.events", as `lckit events publish`). */
  exchange?: string;
  /** AMQP: binding key (default "#": every message). */
  routingKey?: string;
  /** AMQP: stop after this many messages. */
  maxMessages?: number;
  /** AMQP: stop after this long without a message. */
  idleTimeoutMs?: number;
  /** AMQP: stop after this long in all. */
  durationMs?: number;
  /** File and stdin: longest line read, in bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** File and stdin: service envelopes to unwrap (default "auto", detected per line). */
  envelope?: EnvelopeChoice;
}

export function isBrokerSpec(spec: string): boolean {
  return /^amqps?:\/\//i.test(spec);
}

export async function openSource(spec: string, options: OpenSourceOptions = {}): Promise<MessageSource> {
  if (isBrokerSpec(spec)) {
    // Loaded only when a broker is asked for: file and stdin checks never pay for the AMQP client.
    const { openAmqpSource } = await import("./amqp.ts");
    return openAmqpSource(spec, {
      exchange: options.exchange ?? "lckit.events",
      routingKey: options.routingKey ?? "#",
      maxMessages: options.maxMessages,
      idleTimeoutMs: options.idleTimeoutMs,
      durationMs: options.durationMs,
    });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) {
    throw new SourceError(`unsupported source ${spec}: give an NDJSON file, "-" for stdin or an amqp:// URL`);
  }
  return openFileSource(spec, {
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(options.envelope === undefined ? {} : { envelope: options.envelope }),
  });
}
