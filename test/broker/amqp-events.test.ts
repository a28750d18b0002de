// Events through a real RabbitMQ: a seeded stream with a known set of invalid messages is published to an
// exchange, read back by the checker's own queue, and the checker's counts and rule ids must match the
// stream's manifest exactly. Also: the checker takes nothing from another consumer, a malformed message is
// reported and the run goes on, and a connection loss mid-run is survived with the gap reported.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { EventProblem } from "../../src/events/check/event-problem.ts";
import { rule } from "../../src/events/document/requirements.ts";
import { generateStream, type StreamManifest, type StreamMessage } from "../../src/events/generate/index.ts";
import { checkStream } from "../../src/events/judge/event-stream.ts";
import { openAmqpSink } from "../../src/events/transport/sinks/amqp.ts";
import { AmqpExchangeMissingError, openAmqpSource } from "../../src/events/transport/sources/amqp.ts";
import type { MessageSource, RawMessage } from "../../src/events/transport/transport.ts";
import { captureIo } from "../cli/capture-io.ts";
import {
  acquireBroker,
  type Broker,
  CuttableRelay,
  restartExclusively,
  runServices,
  uniqueName,
  withChannel,
} from "./broker.ts";

let broker: Broker;
let unavailable: unknown;
const exchanges: string[] = [];

// A missing broker must FAIL every test with the reason (a throwing beforeAll would only mark them skipped).
beforeAll(async () => {
  try {
    broker = await acquireBroker();
  } catch (error) {
    unavailable = error;
  }
}, 120_000);

beforeEach(() => {
  if (unavailable) throw unavailable;
});

afterAll(async () => {
  if (unavailable) return;
  await withChannel(broker.url, async (channel) => {
    for (const exchange of exchanges) await channel.deleteExchange(exchange);
  }).catch(() => {});
  await broker.release();
}, 120_000);

async function declaredExchange(durable = false): Promise<string> {
  const exchange = uniqueName("lckit.test.events");
  exchanges.push(exchange);
  await withChannel(broker.url, (channel) => channel.assertExchange(exchange, "topic", { durable }));
  return exchange;
}

async function publish(exchange: string, messages: StreamMessage[], url = broker.url): Promise<void> {
  const sink = await openAmqpSink(url, { exchange, routingKey: "events.acme" });
  for (const message of messages) await sink.publish(message);
  await sink.close();
}

/** Rule ids by position, as the manifest predicts them for deliveries numbered from `first`. */
function expectedRules(manifest: StreamManifest, first = 1): Record<string, string[]> {
  const expected: Record<string, string[]> = {};
  for (const entry of manifest.invalidMessages)
    expected[`amqp delivery ${entry.index + first}`] = [entry.rule];
  return expected;
}

/** SHOULD-level ids the generator's legal variety may warn about (a type in neither list, other deltas shapes). */
const varietyWarnings = new Set(["EVENT-TYPES-06", "EVENT-DELTA-01", "EVENT-DELTA-02"]);

function errorsByRule(byRule: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(byRule).filter(([id]) => !varietyWarnings.has(id)));
}

function rulesByPosition(problems: readonly EventProblem[]): Record<string, string[]> {
  const found: Record<string, Set<string>> = {};
  for (const problem of problems) {
    if (problem.evidence.severity !== "error") continue;
    const rules = found[problem.evidence.position] ?? new Set<string>();
    rules.add(problem.requirement);
    found[problem.evidence.position] = rules;
  }
  return Object.fromEntries(Object.entries(found).map(([position, rules]) => [position, [...rules].sort()]));
}

/** Counts what passes through, so a test can act after the first N messages were read. */
function counting(source: MessageSource): MessageSource & { read: () => number } {
  let read = 0;
  return {
    description: source.description,
    notices: () => source.notices(),
    close: () => source.close(),
    read: () => read,
    async *messages(): AsyncIterable<RawMessage> {
      for await (const message of source.messages()) {
        read += 1;
        yield message;
      }
    },
  };
}

async function until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("events over a real broker", () => {
  it("counts valid and invalid messages and names exactly the rules of the stream's manifest", async () => {
    const exchange = await declaredExchange();
    const { messages, manifest } = generateStream({
      seed: 20_260_105,
      count: 1500,
      duplicates: 0.05,
      reorderWindow: 5,
      invalid: { count: 30 },
    });
    const source = await openAmqpSource(broker.url, {
      exchange,
      routingKey: "#",
      maxMessages: manifest.total,
      idleTimeoutMs: 10_000,
    });
    const checking = checkStream(source, { config: manifest.streamingConfig });
    await publish(exchange, messages);
    const result = await checking;

    expect({ total: result.total, valid: result.valid, invalid: result.invalid }).toEqual({
      total: manifest.total,
      valid: manifest.valid,
      invalid: manifest.invalid,
    });
    expect(errorsByRule(result.byRule)).toEqual(manifest.byRule);
    expect(rulesByPosition(result.problems)).toEqual(expectedRules(manifest));
    expect(result.duplicates).toBe(manifest.duplicates);
    expect(result.notices.map((n) => n.kind)).toEqual(["stopped"]);
  });

  it("takes nothing from another consumer's queue bound to the same exchange", async () => {
    const exchange = await declaredExchange();
    const queue = uniqueName("lckit.test.deployment-consumer");
    const { messages, manifest } = generateStream({ seed: 7, count: 400 });
    // The deployment's consumer: a queue of its own, bound to the exchange and consumed while the checker reads.
    const received: string[] = [];
    const result = await withChannel(broker.url, async (channel) => {
      await channel.assertQueue(queue, { exclusive: true });
      await channel.bindQueue(queue, exchange, "#");
      await channel.consume(queue, (message) => {
        if (!message) return;
        received.push(message.content.toString("utf8"));
        channel.ack(message);
      });
      const source = await openAmqpSource(broker.url, {
        exchange,
        routingKey: "#",
        maxMessages: manifest.total,
        idleTimeoutMs: 10_000,
      });
      const checking = checkStream(source, { config: manifest.streamingConfig });
      await publish(exchange, messages);
      const checked = await checking;
      await until(() => received.length >= manifest.total, "the other consumer's messages", 30_000);
      return checked;
    });

    expect(result.total).toBe(manifest.total);
    expect(result.invalid).toBe(0);
    expect(received).toEqual(messages.map((m) => m.body));
  });

  it("reports a malformed message and goes on with the run", async () => {
    const exchange = await declaredExchange();
    const { messages, manifest } = generateStream({
      seed: 99,
      count: 40,
      invalid: { count: 2, rules: [rule.json] },
    });
    const source = await openAmqpSource(broker.url, {
      exchange,
      routingKey: "#",
      maxMessages: manifest.total,
      idleTimeoutMs: 10_000,
    });
    const checking = checkStream(source, { config: manifest.streamingConfig });
    await publish(exchange, messages);
    const result = await checking;

    expect(result.total).toBe(40);
    expect(errorsByRule(result.byRule)).toEqual({ [rule.json]: 2 });
    expect(rulesByPosition(result.problems)).toEqual(expectedRules(manifest));
    expect(result.valid).toBe(38);
  });

  it("survives a connection loss mid-run: reconnects, re-binds, and reports the gap with timestamps", async () => {
    const exchange = await declaredExchange(true); // durable: it must outlive a broker restart
    const { messages, manifest } = generateStream({ seed: 31, count: 200, invalid: { count: 4 } });
    const before = messages.slice(0, 120);
    const after = messages.slice(120);
    const target = new URL(broker.url);
    // On our own RabbitMQ the broker really restarts; on someone else's, a relay cuts the connection.
    const relay = broker.restartable
      ? undefined
      : new CuttableRelay({ host: target.hostname, port: Number(target.port || 5672) });
    await relay?.listen();
    const sourceUrl = relay
      ? Object.assign(new URL(broker.url), { port: String(relay.port) }).toString()
      : broker.url;
    const source = counting(
      await openAmqpSource(sourceUrl, {
        exchange,
        routingKey: "#",
        maxMessages: manifest.total,
        idleTimeoutMs: 20_000,
        reconnect: { attempts: 40, initialDelayMs: 200, maxDelayMs: 2000 },
      }),
    );
    const checking = checkStream(source, { config: manifest.streamingConfig });
    try {
      await publish(exchange, before);
      await until(() => source.read() >= before.length, "the first messages", 20_000);

      if (relay) {
        await relay.cut();
        await new Promise((r) => setTimeout(r, 1000));
        await relay.listen(relay.port);
      } else {
        // Other test files using the broker finish their test first, and wait for the restart.
        const [stopped, started] = await restartExclusively(async () => {
          const down = await runServices("stop");
          return [down, await runServices("start")] as const;
        });
        expect(stopped.code, stopped.output).toBe(0);
        expect(started.code, started.output).toBe(0);
      }
      await until(
        () => source.notices().some((n) => n.kind === "reconnected"),
        "the source to reconnect",
        60_000,
      );
      await publish(exchange, after);
      const result = await checking;

      expect(result.total).toBe(manifest.total);
      expect({ valid: result.valid, invalid: result.invalid }).toEqual({
        valid: manifest.valid,
        invalid: manifest.invalid,
      });
      expect(rulesByPosition(result.problems)).toEqual(expectedRules(manifest));
      const kinds = result.notices.map((n) => n.kind);
      expect(kinds).toEqual(["disconnected", "reconnected", "gap", "stopped"]);
      const gap = result.notices.find((n) => n.kind === "gap");
      expect(gap?.message).toMatch(
        /between \d{4}-\d\d-\d\dT[\d:.]+Z and \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ ms\) were not seen/,
      );
    } finally {
      await source.close();
      await relay?.close();
    }
  }, 120_000);

  it("refuses an exchange that does not exist, with a clear error, and creates nothing", async () => {
    const exchange = uniqueName("lckit.test.missing");
    await expect(openAmqpSource(broker.url, { exchange, routingKey: "#" })).rejects.toThrow(
      AmqpExchangeMissingError,
    );
    await expect(openAmqpSource(broker.url, { exchange, routingKey: "#" })).rejects.toThrow(
      /does not exist.*never creates it/,
    );
    const exists = await withChannel(broker.url, async (channel) => {
      try {
        await channel.checkExchange(exchange);
        return true;
      } catch {
        return false;
      }
    });
    expect(exists).toBe(false);
  });

  it("lckit events publish sends the seeded stream to the exchange with its headers", async () => {
    const exchange = await declaredExchange();
    const expected = generateStream({ seed: 5, count: 60, invalid: { count: 3 } });
    const source = await openAmqpSource(broker.url, {
      exchange,
      routingKey: "#",
      maxMessages: 60,
      idleTimeoutMs: 10_000,
    });
    const io = captureIo();
    const code = await main(
      [
        "events",
        "publish",
        "--to",
        broker.url,
        "--exchange",
        exchange,
        "--count",
        "60",
        "--seed",
        "5",
        "--invalid",
        "3",
      ],
      io,
    );
    expect(code, io.stderr()).toBe(0);
    expect(io.stdout()).toMatch(/60 message\(s\): 57 valid, 3 invalid/);
    const received: RawMessage[] = [];
    for await (const message of source.messages()) received.push(message);
    expect(received.map((m) => ({ headers: m.headers, body: m.body }))).toEqual(expected.messages);
  });
});
