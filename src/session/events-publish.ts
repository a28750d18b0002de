// lckit events publish below the CLI: the seeded stream generated (its manifest written when asked), the
// destination opened (an AMQP 0-9-1 exchange, an AMQP 1.0 address, an NDJSON file, or "-": the sink the
// caller gives for stdout) and every message published, paced by schedule when a rate is given. What went
// wrong is returned, not thrown: the CLI says it and exits 3.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { generateStream, type PayloadType, type StreamManifest } from "../events/generate/index.ts";
import { openAmqpSink } from "../events/transport/sinks/amqp.ts";
import { openFileSink } from "../events/transport/sinks/file.ts";
import type { MessageSink } from "../events/transport/transport.ts";

/** What lckit events publish is asked to do. Paths are relative to `cwd`. */
export interface PublishRequest {
  cwd: string;
  /** amqp(s)://, amqp1(s)://, an NDJSON file, or "-" (`stdout`). */
  to: string;
  exchange: string;
  routingKey?: string;
  tenant: string;
  payload: PayloadType;
  count: number;
  /** Messages per second; absent: as fast as the sink takes them. */
  rate?: number;
  seed: number;
  duplicates: number;
  reorder: number;
  invalid: number;
  /** Where the stream's manifest (what it holds, its known defects) is written. */
  manifest?: string;
  variety: boolean;
  address?: string;
  ca?: string;
  /** The sink of "-". */
  stdout?: MessageSink;
}

export type PublishOutcome =
  | { kind: "published"; manifest: StreamManifest; to: string; seconds: number }
  /** The destination could not be opened; nothing was published. */
  | { kind: "not-opened"; why: string }
  | { kind: "failed"; to: string; why: string };

export async function publishEvents(request: PublishRequest): Promise<PublishOutcome> {
  const { messages, manifest } = generateStream({
    seed: request.seed,
    count: request.count,
    tenantId: request.tenant,
    payloadType: request.payload,
    duplicates: request.duplicates,
    reorderWindow: request.reorder,
    invalid: { count: request.invalid },
    variety: request.variety,
  });
  if (request.manifest)
    writeFileSync(resolve(request.cwd, request.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  let sink: MessageSink;
  try {
    sink = await openSink(request);
  } catch (error) {
    return { kind: "not-opened", why: error instanceof Error ? error.message : String(error) };
  }
  const began = Date.now();
  try {
    for (const [index, message] of messages.entries()) {
      if (request.rate !== undefined) {
        // Pace by schedule, not by per-message sleeps, so the average rate holds.
        const due = began + (index / request.rate) * 1000;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await sink.publish(message);
    }
    await sink.close();
  } catch (error) {
    await sink.close().catch(() => {});
    return { kind: "failed", to: sink.description, why: String(error) };
  }
  return { kind: "published", manifest, to: sink.description, seconds: (Date.now() - began) / 1000 };
}

async function openSink(request: PublishRequest): Promise<MessageSink> {
  const { to } = request;
  if (/^amqp1s?:\/\//.test(to))
    // Loaded only for an AMQP 1.0 address: rhea is needed by no other command.
    return (await import("../events/transport/sinks/amqp1.ts")).openAmqp1Sink(to, {
      ...(request.address === undefined ? {} : { address: request.address }),
      ...(request.ca === undefined ? {} : { caFile: resolve(request.cwd, request.ca) }),
    });
  if (/^amqps?:\/\//.test(to))
    return openAmqpSink(to, {
      exchange: request.exchange,
      routingKey: request.routingKey ?? `events.${request.tenant}`,
      declare: { type: "topic", durable: true },
    });
  if (to === "-") {
    if (request.stdout === undefined) throw new Error('"-" needs the stdout sink of the caller');
    return request.stdout;
  }
  return openFileSink(resolve(request.cwd, to));
}
