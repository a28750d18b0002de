// Opens a message source from a command-line spec: an NDJSON path, "-" for stdin, an amqp(s):// URL
// (AMQP 0-9-1) or an amqp1(s):// URL (AMQP 1.0).
import type { EnvelopeChoice } from "../envelopes/index.ts";
import type { MessageSource } from "../transport.ts";
import { openFileSource, SourceError } from "./file.ts";

export { defaultMaxLineBytes, SourceError } from "./file.ts";
export { linesAsMessages, memorySource } from "./memory.ts";

export interface OpenSourceOptions {
  /** Stream read for "-" (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** The folder a relative file path is read from (default: the process's). */
  cwd?: string;
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
  /** AMQP 1.0: the queue, topic subscription or address (default: the URL's path). */
  address?: string;
  /** AMQP 1.0: browse (default; copies, the queue keeps its messages) or own (the address is the kit's own). */
  amqp1Mode?: "browse" | "own";
  /** AMQP 1.0 over TLS: PEM file of the broker's CA, beside the system's. */
  caFile?: string;
  /** File and stdin: service envelopes to unwrap (default "auto", detected per line). */
  envelope?: EnvelopeChoice;
}

export function isBrokerSpec(spec: string): boolean {
  return /^amqps?:\/\//i.test(spec) || /^amqp1s?:\/\//i.test(spec);
}

export async function openSource(spec: string, options: OpenSourceOptions = {}): Promise<MessageSource> {
  if (/^amqp1s?:\/\//i.test(spec)) {
    const { openAmqp1Source } = await import("./amqp1.ts");
    return openAmqp1Source(spec, {
      ...(options.address === undefined ? {} : { address: options.address }),
      ...(options.amqp1Mode === undefined ? {} : { mode: options.amqp1Mode }),
      ...(options.caFile === undefined ? {} : { caFile: options.caFile }),
      ...(options.maxMessages === undefined ? {} : { maxMessages: options.maxMessages }),
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
      ...(options.durationMs === undefined ? {} : { durationMs: options.durationMs }),
    });
  }
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
    throw new SourceError(
      `unsupported source ${spec}: give an NDJSON file, "-" for stdin, an amqp:// (AMQP 0-9-1) or amqp1:// / amqp1s:// (AMQP 1.0) URL`,
    );
  }
  return openFileSource(spec, {
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(options.envelope === undefined ? {} : { envelope: options.envelope }),
  });
}
