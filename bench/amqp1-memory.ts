// Memory of the AMQP 1.0 path over a long stream: the same generated messages are published again and again
// to an address of the kit's own while the checker drains it, and the heap (after a full GC when node runs
// with --expose-gc) is printed at every tenth of the run. Flat figures: the source holds at most its credit,
// the stream rules at most --max-tracked pairs (here the repeated messages are redeliveries of few objects).
//
//   node --expose-gc --import tsx bench/amqp1-memory.ts [--total N] [--distinct N]
//
// Broker: $LCKIT_AMQP1_URL, else amqp1:// on the local RabbitMQ of scripts/services.mjs (LCKIT_AMQP_PORT),
// which must be running (node scripts/services.mjs start).
import amqp from "amqplib";
import { generateStream } from "../src/events/generate/index.ts";
import { checkStream } from "../src/events/judge/event-stream.ts";
import { openAmqp1Sink } from "../src/events/transport/sinks/amqp1.ts";
import { openAmqp1Source } from "../src/events/transport/sources/amqp1.ts";
import type { MessageSource, RawMessage } from "../src/events/transport/transport.ts";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} expects a positive integer`);
  return value;
}

const total = option("--total", 1_000_000);
const distinct = option("--distinct", 20_000);
const port = process.env.LCKIT_AMQP_PORT || 5672;
const url = `amqp://guest:guest@127.0.0.1:${port}`;
const url1 = process.env.LCKIT_AMQP1_URL ?? url.replace(/^amqp:/, "amqp1:");
const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return Math.round(process.memoryUsage().heapUsed / 1024 / 1024);
};

const { messages } = generateStream({ seed: 3, count: distinct });
const exchange = `lckit.bench.memory.${process.pid}`;
const admin = await amqp.connect(url);
const channel = await admin.createChannel();
await channel.assertExchange(exchange, "topic", { durable: false });
const inner = await openAmqp1Source(url1, {
  address: `/exchange/${exchange}/#`,
  mode: "own",
  maxMessages: total,
  idleTimeoutMs: 60_000,
});
const samples: string[] = [];
const tenth = Math.ceil(total / 10);
const started = performance.now();
samples.push(`0: ${heapMb()} MB`);
const source: MessageSource = {
  description: inner.description,
  notices: () => inner.notices(),
  close: () => inner.close(),
  messages: () => ({
    async *[Symbol.asyncIterator](): AsyncGenerator<RawMessage> {
      let read = 0;
      for await (const message of inner.messages()) {
        yield message;
        read += 1;
        if (read % tenth === 0) samples.push(`${read}: ${heapMb()} MB`);
      }
    },
  }),
};
// The publisher keeps at most a few repetitions ahead of the checker, so RabbitMQ holds a bounded backlog.
const publishing = (async () => {
  const sink = await openAmqp1Sink(url1, { address: `/exchange/${exchange}/events.acme` });
  for (let sent = 0; sent < total; ) {
    for (const message of messages) {
      if (sent >= total) break;
      await sink.publish(message);
      sent += 1;
    }
  }
  await sink.close();
})();
const result = await checkStream(source, { maxProblems: 10 });
await publishing;
await channel.deleteExchange(exchange);
await admin.close();
const seconds = (performance.now() - started) / 1000;
console.log(
  `amqp1 memory bench: ${result.total} messages (${distinct} distinct, sent ${Math.round(total / distinct)} times) in ${seconds.toFixed(0)} s, ${Math.round(result.total / seconds)} msg/s; ${result.duplicates} counted as redeliveries`,
);
console.log(
  `  heap${gc ? " after GC" : " (run with --expose-gc for figures after GC)"} by messages read: ${samples.join(", ")}`,
);
if (result.total !== total) throw new Error(`read ${result.total} of ${total}`);
