// lckit events consumer check over a real RabbitMQ, through both protocols: AMQP 0-9-1 (the kit's own
// queue, filled in delivery order and deleted after) and AMQP 1.0 (an address of a queue, RabbitMQ's
// /amq/queue/NAME). Both example consumers take the stream, each with its own clients (Node: amqplib and
// rhea; Python: Debian's python3-pika and python3-qpid-proton, installed by scripts/services.mjs), and
// their views are judged like any other delivery's: the correct one passes, a broken one is caught by its
// rule alone. Without --broker the kit starts a node of its own: test/broker/rabbitmq-node.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerCheck } from "../../src/commands/consumer/check.ts";
import type { ConsumerCheckOptions } from "../../src/commands/consumer/request.ts";
import { packagePath } from "../../src/package-root.ts";
import { acquireBroker, type Broker, holdBroker, withChannel } from "./broker.ts";

let broker: Broker;
let unavailable: unknown;
const CONSUMERS = {
  node: [process.execPath, packagePath("examples", "consumers", "view-consumer.mjs")],
  python: ["/usr/bin/python3", packagePath("examples", "consumers", "view_consumer.py")],
};
// The Python runs are kept short: the Node runs already take the default stream.
const MESSAGES = { node: undefined, python: 300 };

// A missing broker must FAIL every test with the reason (a throwing beforeAll would only mark them skipped).
beforeAll(async () => {
  try {
    broker = await acquireBroker();
  } catch (error) {
    unavailable = error;
  }
}, 180_000);

afterAll(async () => {
  await broker?.release();
}, 60_000);

/** The rules a run broke (the command and view passed). */
const broken = (run: Awaited<ReturnType<typeof consumerCheck>>) =>
  run.result.checks.filter((c) => c.status === "failed").map((c) => c.id);

type Language = keyof typeof CONSUMERS;
const LANGUAGES = Object.keys(CONSUMERS) as Language[];

function options(language: Language, extra: Partial<ConsumerCheckOptions>): ConsumerCheckOptions {
  const count = MESSAGES[language];
  return { argv: CONSUMERS[language], timeoutMs: 60_000, ...(count ? { count } : {}), ...extra };
}

/** The correct consumer passes and takes every message; then, after `between`, the consumer with `fault`
 *  breaks `rule` and no other. Returns the correct run. */
async function passesThenCaught(
  language: Language,
  delivery: Partial<ConsumerCheckOptions>,
  fault: { FAULT: string; rule: string },
  between: () => Promise<unknown> = async () => {},
) {
  const run = await consumerCheck(options(language, delivery));
  expect(run.exitCode, run.result.verdictReason).toBe(0);
  expect(run.result.subject).toMatchObject({ kind: "consumer", delivered: run.stream.messages.length });
  expect(run.result.requestsSent).toBe(0);
  await between();
  const env = { ...process.env, FAULT: fault.FAULT };
  expect(broken(await consumerCheck(options(language, { ...delivery, env })))).toEqual([fault.rule]);
  return run;
}

/** A test body run while the broker is held; a missing broker fails it with the reason. */
function onBroker(body: (language: Language) => Promise<void>) {
  return async (language: Language) => {
    if (unavailable) throw unavailable;
    const release = await holdBroker();
    try {
      await body(language);
    } finally {
      release();
    }
  };
}

describe("the rabbitmq delivery", () => {
  it.each(LANGUAGES)(
    "the correct %s consumer passes, a broken one is caught, and the kit's queue is gone after",
    onBroker(async (language) => {
      const run = await passesThenCaught(
        language,
        { delivery: "rabbitmq", brokerUrl: broker.url },
        { FAULT: "ignores-removals", rule: "consumer/removal-not-live" },
      );
      // The queue the kit declared (named in the consumer's environment) no longer exists.
      expect(run.queue).toMatch(/^lckit-consumer-check-/);
      await withChannel(broker.url, (channel) =>
        expect(channel.checkQueue(run.queue as string)).rejects.toThrow(/NOT_FOUND/),
      );
    }),
    180_000,
  );
});

describe("the amqp1 delivery", () => {
  it.each(LANGUAGES)(
    "the correct %s consumer passes over an AMQP 1.0 address, a broken one is caught",
    onBroker(async (language) => {
      const queue = `lckit-consumer-amqp1-${language}-${process.pid}-${Date.now()}`;
      await withChannel(broker.url, async (channel) => {
        await channel.assertQueue(queue, { durable: false });
        // RabbitMQ speaks AMQP 1.0 on its AMQP port; its address of a queue is /amq/queue/NAME.
        const url = `${broker.url.replace(/^amqp:/, "amqp1:")}/${encodeURIComponent(`/amq/queue/${queue}`)}`;
        try {
          await passesThenCaught(
            language,
            { delivery: "amqp1", brokerUrl: url },
            { FAULT: "last-arrival", rule: "consumer/latest-by-object-version" },
            () => channel.purgeQueue(queue),
          );
        } finally {
          await channel.deleteQueue(queue).catch(() => {});
        }
      });
    }),
    180_000,
  );

  it("without an address: a clear error, nothing started", async () => {
    await expect(
      consumerCheck({ argv: CONSUMERS.node, delivery: "amqp1", brokerUrl: "amqp1://127.0.0.1:5672" }),
    ).rejects.toThrow(/needs an AMQP 1.0 address: give --broker amqp1:/);
  });
});
