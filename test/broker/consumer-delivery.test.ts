// lckit events consumer check over a real RabbitMQ, through both protocols: AMQP 0-9-1 (the kit's own
// queue, filled in delivery order and deleted after) and AMQP 1.0 (an address of a queue, RabbitMQ's
// /amq/queue/NAME). The example consumer takes the stream and its view is judged like any other
// delivery's. The Python example has no AMQP client in its standard library and is not run here.
import amqp from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packagePath } from "../../src/package-root.ts";
import { consumerCheck } from "../../src/workbench/consumer-check.ts";
import { acquireBroker, type Broker, holdBroker } from "./broker.ts";

let broker: Broker;
let unavailable: unknown;
const consumer = [process.execPath, packagePath("examples", "consumers", "view-consumer.mjs")];

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

describe("the rabbitmq delivery", () => {
  it("the correct consumer passes, a broken one is caught, and the kit's queue is gone after", async () => {
    if (unavailable) throw unavailable;
    const release = await holdBroker();
    try {
      const run = await consumerCheck({
        argv: consumer,
        delivery: "rabbitmq",
        brokerUrl: broker.url,
        timeoutMs: 60_000,
      });
      expect(run.exitCode, run.result.verdictReason).toBe(0);
      expect(run.result.requestsSent).toBe(run.stream.messages.length);
      const broken = await consumerCheck({
        argv: consumer,
        delivery: "rabbitmq",
        brokerUrl: broker.url,
        timeoutMs: 60_000,
        env: { ...process.env, FAULT: "ignores-removals" },
      });
      expect(broken.result.checks.filter((c) => c.status === "failed").map((c) => c.id)).toEqual([
        "consumer/removal-not-live",
      ]);
      // The queue the kit declared (named in the consumer's environment) no longer exists.
      const connection = await amqp.connect(broker.url);
      connection.on("error", () => {});
      const channel = await connection.createChannel();
      channel.on("error", () => {});
      expect(run.queue).toMatch(/^lckit-consumer-check-/);
      await expect(channel.checkQueue(run.queue as string)).rejects.toThrow(/NOT_FOUND/);
      await connection.close().catch(() => {});
    } finally {
      release();
    }
  }, 180_000);

  it("without --broker: a clear error, nothing started", async () => {
    await expect(consumerCheck({ argv: consumer, delivery: "rabbitmq" })).rejects.toThrow(
      /needs a broker: give --broker/,
    );
  });
});

describe("the amqp1 delivery", () => {
  it("the correct consumer passes over an AMQP 1.0 address, a broken one is caught", async () => {
    if (unavailable) throw unavailable;
    const release = await holdBroker();
    const queue = `lckit-consumer-amqp1-${process.pid}-${Date.now()}`;
    const connection = await amqp.connect(broker.url);
    connection.on("error", () => {});
    const channel = await connection.createChannel();
    channel.on("error", () => {});
    try {
      await channel.assertQueue(queue, { durable: false });
      // RabbitMQ speaks AMQP 1.0 on its AMQP port; its address of a queue is /amq/queue/NAME.
      const url = `${broker.url.replace(/^amqp:/, "amqp1:")}/${encodeURIComponent(`/amq/queue/${queue}`)}`;
      const run = await consumerCheck({
        argv: consumer,
        delivery: "amqp1",
        brokerUrl: url,
        timeoutMs: 60_000,
      });
      expect(run.exitCode, run.result.verdictReason).toBe(0);
      expect(run.result.requestsSent).toBe(run.stream.messages.length);
      await channel.purgeQueue(queue);
      const broken = await consumerCheck({
        argv: consumer,
        delivery: "amqp1",
        brokerUrl: url,
        timeoutMs: 60_000,
        env: { ...process.env, FAULT: "last-arrival" },
      });
      expect(broken.result.checks.filter((c) => c.status === "failed").map((c) => c.id)).toEqual([
        "consumer/latest-by-object-version",
      ]);
    } finally {
      await channel.deleteQueue(queue).catch(() => {});
      await connection.close().catch(() => {});
      release();
    }
  }, 180_000);

  it("without an address: a clear error, nothing started", async () => {
    await expect(
      consumerCheck({ argv: consumer, delivery: "amqp1", brokerUrl: "amqp1://127.0.0.1:5672" }),
    ).rejects.toThrow(/needs an AMQP 1.0 address: give --broker amqp1:/);
  });
});
