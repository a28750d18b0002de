// Events over AMQP 1.0, against RabbitMQ's AMQP 1.0 plugin and, as an independent second implementation,
// Qpid Proton (Debian's python3-qpid-proton): the same generated stream through each path gives the verdict
// of the NDJSON file it came from, problem for problem; the checker never takes another consumer's
// messages; a wrong password, a missing queue, an unknown TLS CA and a broker gone mid-stream each give a
// clear error naming the fix, and what was read before the loss is judged.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { generateStream, type StreamMessage } from "../../src/events/generate/index.ts";
import { checkStream, type EventCheckResult } from "../../src/events/judge/event-stream.ts";
import type { StreamingConfig } from "../../src/events/streaming-config.ts";
import { openAmqp1Sink } from "../../src/events/transport/sinks/amqp1.ts";
import { ndjsonLine } from "../../src/events/transport/sinks/file.ts";
import { openAmqp1Source } from "../../src/events/transport/sources/amqp1.ts";
import { openSource } from "../../src/events/transport/sources/index.ts";
import type { MessageSource, RawMessage } from "../../src/events/transport/transport.ts";
import { captureIo } from "../cli/capture-io.ts";
import { acquireBroker, type Broker, CuttableRelay, holdBroker, uniqueName, withChannel } from "./broker.ts";

const python = "/usr/bin/python3";
const peerScript = join(import.meta.dirname, "amqp1_peer.py");
const dir = mkdtempSync(join(tmpdir(), "lckit-amqp1-"));

let broker: Broker;
/** RabbitMQ 3 speaks AMQP 1.0 on its AMQP port (LCKIT_AMQP1_URL names another AMQP 1.0 endpoint). */
let url1: string;
let unavailable: unknown;
const exchanges: string[] = [];
const queues: string[] = [];

beforeAll(async () => {
  try {
    broker = await acquireBroker();
    url1 = process.env.LCKIT_AMQP1_URL ?? broker.url.replace(/^amqp:/, "amqp1:");
    execFileSync(python, ["-c", "import proton"]);
  } catch (error) {
    unavailable = error;
  }
}, 120_000);

let release: (() => void) | undefined;
beforeEach(async () => {
  if (unavailable) throw unavailable;
  // Another file may restart the broker: not during one of these tests.
  release = await holdBroker();
});
afterEach(() => release?.());

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (unavailable) return;
  await withChannel(broker.url, async (channel) => {
    for (const exchange of exchanges) await channel.deleteExchange(exchange);
    for (const queue of queues) await channel.deleteQueue(queue);
  }).catch(() => {});
  await broker.release();
}, 120_000);

async function exchange(): Promise<string> {
  const name = uniqueName("lckit.amqp1");
  exchanges.push(name);
  await withChannel(broker.url, (channel) => channel.assertExchange(name, "topic", { durable: false }));
  return name;
}

async function queue(bindTo?: string): Promise<string> {
  const name = uniqueName("lckit.amqp1.q");
  queues.push(name);
  await withChannel(broker.url, async (channel) => {
    await channel.assertQueue(name, { durable: false });
    if (bindTo) await channel.bindQueue(name, bindTo, "#");
  });
  return name;
}

const messageCount = (name: string) =>
  withChannel(broker.url, async (channel) => (await channel.checkQueue(name)).messageCount);

/** The verdict with positions numbered alike, whatever the transport calls them. */
function verdict(result: EventCheckResult) {
  return {
    total: result.total,
    valid: result.valid,
    invalid: result.invalid,
    duplicates: result.duplicates,
    byRule: result.byRule,
    problems: result.problems.map((p) => {
      const position = p.evidence.position.replace(/^.*?(\d+)$/, "#$1");
      return {
        ...p,
        where: `${position}${p.where.slice(p.evidence.position.length)}`,
        evidence: { ...p.evidence, position },
      };
    }),
  };
}

async function ndjsonVerdict(messages: StreamMessage[], config: StreamingConfig | undefined) {
  const path = join(dir, `${uniqueName("stream")}.ndjson`);
  writeFileSync(path, `${messages.map((m) => ndjsonLine(m)).join("\n")}\n`);
  return verdict(await checkStream(await openSource(path, { envelope: "none" }), { config }));
}

function stream(seed: number, count = 300) {
  return generateStream({
    seed,
    count,
    duplicates: 0.05,
    reorderWindow: 3,
    invalid: { count: Math.min(25, Math.floor(count / 8)) },
  });
}

async function publish(address: string, messages: StreamMessage[], url = url1): Promise<void> {
  const sink = await openAmqp1Sink(url, { address });
  for (const message of messages) await sink.publish(message);
  await sink.close();
}

function runPeer(args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [peerScript, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`peer ${args[0]} exited ${code}: ${err}`)),
    );
    child.stdin.end(input ?? "");
  });
}

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Proton's small broker (amqp1_peer.py serve), stopped by its PID. */
async function startProtonBroker(): Promise<{ url: string; stop(): Promise<string> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(python, [peerScript, "serve", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (chunk) => {
    out += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`proton peer did not start: ${out}`)), 15_000);
    child.stdout?.on("data", () => {
      if (out.includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => reject(new Error(`proton peer exited ${code}`)));
  });
  return {
    url: `amqp1://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.on("close", () => resolve(out));
        if (child.pid) process.kill(child.pid, "SIGTERM");
      }),
  };
}

/** A source that runs `after` once it has handed out `count` messages (to cut a connection mid-stream). */
function cutAfter(inner: MessageSource, count: number, after: () => Promise<void>): MessageSource {
  return {
    description: inner.description,
    notices: () => inner.notices(),
    close: () => inner.close(),
    messages: () => ({
      async *[Symbol.asyncIterator](): AsyncGenerator<RawMessage> {
        let read = 0;
        for await (const message of inner.messages()) {
          yield message;
          read += 1;
          if (read === count) await after();
        }
      },
    }),
  };
}

async function relayToBroker(): Promise<{ relay: CuttableRelay; url: string }> {
  const target = new URL(broker.url);
  const relay = new CuttableRelay({ host: target.hostname, port: Number(target.port || 5672) });
  await relay.listen();
  return { relay, url: url1.replace(/@[^/]*/, `@127.0.0.1:${relay.port}`) };
}

describe("AMQP 1.0 with RabbitMQ", () => {
  it("the kit's sink and source give the NDJSON file's verdict, problem for problem, and take nothing from a bound queue", async () => {
    const { messages, manifest } = stream(31);
    const name = await exchange();
    const theirs = await queue(name);
    const source = await openAmqp1Source(url1, {
      address: `/exchange/${name}/#`,
      mode: "own",
      maxMessages: messages.length,
      idleTimeoutMs: 20_000,
    });
    await publish(`/exchange/${name}/events.acme`, messages);
    const result = await checkStream(source, { config: manifest.streamingConfig });
    expect(verdict(result)).toEqual(await ndjsonVerdict(messages, manifest.streamingConfig));
    expect(result.invalid).toBe(manifest.invalid);
    // The header rules were judged: the headers travelled as application properties.
    expect(Object.keys(result.byRule).filter((id) => id.startsWith("EVENT-HEADERS"))).not.toEqual([]);
    // The deployment's own queue, bound to the same exchange, still holds every message.
    expect(await messageCount(theirs)).toBe(messages.length);
  }, 60_000);

  it("lckit events publish --to amqp1:// and lckit events check amqp1:// agree with the manifest (exit 1)", async () => {
    const name = await exchange();
    // A queue of the test's own, bound before anything is published: the check reads it afterwards.
    const ours = await queue(name);
    const manifestFile = join(dir, `${name}.manifest.json`);
    const publishIo = captureIo();
    const published = await main(
      [
        "events",
        "publish",
        "--to",
        url1,
        "--address",
        `/exchange/${name}/events.acme`,
        "--count",
        "150",
        "--invalid",
        "12",
        "--seed",
        "9",
        "--manifest",
        manifestFile,
      ],
      publishIo,
    );
    expect(published, publishIo.stderr()).toBe(0);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    const configFile = join(dir, `${name}.config.json`);
    writeFileSync(configFile, JSON.stringify(manifest.streamingConfig));
    const checkIo = captureIo();
    const checked = await main(
      [
        "events",
        "check",
        url1,
        "--address",
        `/amq/queue/${ours}`,
        "--amqp1-mode",
        "own",
        "--max-messages",
        "150",
        "--idle-timeout",
        "20s",
        "--format",
        "json",
        "--config",
        configFile,
      ],
      checkIo,
    );
    expect(checked, checkIo.stderr()).toBe(1);
    const result = JSON.parse(checkIo.stdout());
    expect({ total: result.total, invalid: result.invalid, byRule: result.byRule }).toMatchObject({
      total: 150,
      invalid: manifest.invalid,
      byRule: manifest.byRule,
    });
  }, 60_000);

  it("Qpid Proton publishes (data sections and string values), the kit reads: the NDJSON verdict", async () => {
    const { messages, manifest } = stream(32, 200);
    for (const form of [[], ["--string-body"]]) {
      const name = await exchange();
      const source = await openAmqp1Source(url1, {
        address: `/exchange/${name}/#`,
        mode: "own",
        maxMessages: messages.length,
        idleTimeoutMs: 20_000,
      });
      const lines = messages.map((m) => JSON.stringify({ headers: m.headers, body: m.body })).join("\n");
      const sent = await runPeer(
        ["send", url1.replace(/^amqp1:/, "amqp:"), `/exchange/${name}/events.acme`, ...form],
        lines,
      );
      expect(sent.trim()).toBe(`sent ${messages.length}`);
      const result = await checkStream(source, { config: manifest.streamingConfig });
      expect(verdict(result), form.join(" ") || "data sections").toEqual(
        await ndjsonVerdict(messages, manifest.streamingConfig),
      );
    }
  }, 60_000);

  it("the kit publishes, Qpid Proton receives the same headers and bodies", async () => {
    const { messages } = stream(33, 60);
    const target = await queue();
    await publish(`/amq/queue/${target}`, messages);
    const out = await runPeer([
      "receive",
      url1.replace(/^amqp1:/, "amqp:"),
      `/amq/queue/${target}`,
      String(messages.length),
      "20",
    ]);
    const received = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(received).toEqual(messages.map((m) => ({ headers: m.headers, body: m.body })));
  }, 60_000);

  it("refuses to browse where RabbitMQ 3 would hand the messages over, and the queue keeps them", async () => {
    const { messages } = stream(34, 20);
    const target = await queue();
    await publish(`/amq/queue/${target}`, messages);
    await expect(openAmqp1Source(url1, { address: `/amq/queue/${target}` })).rejects.toThrow(
      /cannot browse.*--amqp1-mode own/s,
    );
    expect(await messageCount(target)).toBe(messages.length);
  }, 60_000);

  it.each([
    [
      "a wrong password",
      () =>
        openAmqp1Source(url1.replace(/:[^:@/]*@/, ":wrong-password@"), {
          address: "/exchange/amq.topic/#",
          mode: "own",
        }),
      /refused the credentials.*user name and password/s,
    ],
    [
      "a missing queue",
      () => openAmqp1Source(url1, { address: "/amq/queue/lckit.no.such.queue", mode: "own" }),
      /does not exist.*never creates it/s,
    ],
    [
      "an address left out",
      () => openAmqp1Source(url1.replace(/\/*$/, ""), {}),
      /no AMQP 1.0 address.*--address/s,
    ],
    [
      "a closed port",
      async () => openAmqp1Source(`amqp1://127.0.0.1:${await freePort()}/q`, {}),
      /nothing accepts connections/,
    ],
  ])(
    "%s: a clear error naming the fix",
    async (_name, open, message) => {
      await expect(open()).rejects.toThrow(message);
    },
    30_000,
  );

  it("SASL ANONYMOUS: a URL without credentials connects (RabbitMQ maps it to its default user)", async () => {
    const name = await exchange();
    const anonymous = url1.replace(/\/\/[^@/]*@/, "//");
    const source = await openAmqp1Source(anonymous, {
      address: `/exchange/${name}/#`,
      mode: "own",
      maxMessages: 5,
      idleTimeoutMs: 20_000,
    });
    const { messages } = stream(35, 5);
    await publish(`/exchange/${name}/k`, messages, anonymous);
    expect((await checkStream(source)).total).toBe(5);
  }, 30_000);

  it("a broker gone mid-stream for good: the messages read are judged, the loss and the give-up reported", async () => {
    const { messages, manifest } = stream(36, 200);
    const name = await exchange();
    const { relay, url } = await relayToBroker();
    const inner = await openAmqp1Source(url, {
      address: `/exchange/${name}/#`,
      mode: "own",
      idleTimeoutMs: 20_000,
      reconnect: { attempts: 3, initialDelayMs: 100, maxDelayMs: 200 },
    });
    const first = messages.slice(0, 120);
    await publish(`/exchange/${name}/k`, first);
    // The relay is cut once the 120th message has been read: the rest are published into the void.
    const source = cutAfter(inner, first.length, async () => {
      await relay.cut();
      await publish(`/exchange/${name}/k`, messages.slice(120));
    });
    const result = await checkStream(source, { config: manifest.streamingConfig });
    expect(verdict(result)).toEqual(await ndjsonVerdict(first, manifest.streamingConfig));
    expect(result.notices.map((n) => n.kind)).toEqual(["disconnected", "stopped"]);
    expect(result.notices[1]?.message).toMatch(
      /gave up reconnecting.*nothing accepts connections.*messages read were checked/s,
    );
  }, 60_000);

  it("a connection lost and back: an own address is attached again, the gap is reported, the stream read on", async () => {
    const { messages, manifest } = stream(38, 200);
    const name = await exchange();
    const { relay, url } = await relayToBroker();
    const inner = await openAmqp1Source(url, {
      address: `/exchange/${name}/#`,
      mode: "own",
      maxMessages: messages.length,
      idleTimeoutMs: 20_000,
      reconnect: { attempts: 40, initialDelayMs: 100, maxDelayMs: 500 },
    });
    await publish(`/exchange/${name}/k`, messages.slice(0, 120));
    const source = cutAfter(inner, 120, async () => {
      await relay.cut();
      await relay.listen(relay.port);
      const deadline = Date.now() + 20_000;
      while (!inner.notices().some((n) => n.kind === "reconnected") && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      await publish(`/exchange/${name}/k`, messages.slice(120));
    });
    try {
      const result = await checkStream(source, { config: manifest.streamingConfig });
      expect(verdict(result)).toEqual(await ndjsonVerdict(messages, manifest.streamingConfig));
      expect(result.notices.map((n) => n.kind)).toEqual(["disconnected", "reconnected", "gap", "stopped"]);
      expect(result.notices[2]?.message).toMatch(
        /between \d{4}-\d\d-\d\dT[\d:.]+Z and \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ ms\)/,
      );
    } finally {
      await relay.close();
    }
  }, 60_000);

  describe("TLS", () => {
    let tls: TlsServer;
    let ca: string;
    let tlsPort: number;
    beforeAll(async () => {
      if (unavailable) return;
      const key = join(dir, "key.pem");
      ca = join(dir, "cert.pem");
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          key,
          "-out",
          ca,
          "-days",
          "2",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        { stdio: "ignore" },
      );
      const target = new URL(broker.url);
      // TLS in front of the broker's plain AMQP port: what a TLS listener does, with a certificate of ours.
      tls = createTlsServer({ key: readFileSync(key), cert: readFileSync(ca) }, (client) => {
        const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5672) });
        client.pipe(upstream).pipe(client);
        client.on("error", () => upstream.destroy());
        upstream.on("error", () => client.destroy());
      });
      await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
      const address = tls.address();
      tlsPort = typeof address === "object" && address ? address.port : 0;
    });
    afterAll(() => tls?.close());

    const tlsUrl = () => url1.replace(/^amqp1:/, "amqp1s:").replace(/@[^/]*/, `@localhost:${tlsPort}`);

    it("an unknown CA: a clear error naming --ca", async () => {
      await expect(
        openAmqp1Source(tlsUrl(), { address: "/exchange/amq.topic/#", mode: "own" }),
      ).rejects.toThrow(/not signed by a CA this machine trusts.*--ca/s);
    });

    it("with --ca the stream is published and read over TLS", async () => {
      const name = await exchange();
      const source = await openAmqp1Source(tlsUrl(), {
        address: `/exchange/${name}/#`,
        mode: "own",
        caFile: ca,
        maxMessages: 10,
        idleTimeoutMs: 20_000,
      });
      const { messages, manifest } = stream(37, 10);
      const sink = await openAmqp1Sink(tlsUrl(), { address: `/exchange/${name}/k`, caFile: ca });
      for (const message of messages) await sink.publish(message);
      await sink.close();
      const result = await checkStream(source, { config: manifest.streamingConfig });
      expect(verdict(result)).toEqual(await ndjsonVerdict(messages, manifest.streamingConfig));
    }, 30_000);
  });
});

describe("AMQP 1.0 with Qpid Proton as the broker", () => {
  it("a browse that loses its broker ends with what it read judged, and says a new browse starts again", async () => {
    const peer = await startProtonBroker();
    const relay = new CuttableRelay({ host: "127.0.0.1", port: Number(new URL(peer.url).port) });
    try {
      await relay.listen();
      const { messages, manifest } = stream(43, 200);
      await publish("lost", messages, peer.url);
      const inner = await openAmqp1Source(`amqp1://127.0.0.1:${relay.port}/lost`, {
        idleTimeoutMs: 20_000,
        credit: 50,
      });
      const source = cutAfter(inner, 100, () => relay.cut());
      const result = await checkStream(source, { config: manifest.streamingConfig });
      // What had arrived before the cut is judged; no reconnection (a browse would begin at the head again).
      expect(result.total).toBeGreaterThanOrEqual(100);
      expect(result.total).toBeLessThan(200);
      expect(verdict(result)).toEqual(
        await ndjsonVerdict(messages.slice(0, result.total), manifest.streamingConfig),
      );
      expect(result.notices.map((n) => n.kind)).toEqual(["disconnected", "stopped"]);
      expect(result.notices[1]?.message).toMatch(/browse starts from the head/);
    } finally {
      await relay.close();
      await peer.stop();
    }
  }, 60_000);

  it("Qpid Proton publishes headers as message annotations (x-opt-NAME), the kit browses: the NDJSON verdict", async () => {
    const peer = await startProtonBroker();
    try {
      const { messages, manifest } = stream(42, 150);
      const lines = messages.map((m) => JSON.stringify({ headers: m.headers, body: m.body })).join("\n");
      const sent = await runPeer(
        ["send", peer.url.replace(/^amqp1:/, "amqp:"), "annotated", "--annotations"],
        lines,
      );
      expect(sent.trim()).toBe(`sent ${messages.length}`);
      const source = await openAmqp1Source(`${peer.url}/annotated`, {
        maxMessages: messages.length,
        idleTimeoutMs: 20_000,
      });
      const result = await checkStream(source, { config: manifest.streamingConfig });
      // Header rules judged from annotations alone: the x-opt- copies are extra headers, which are allowed.
      expect(verdict(result)).toEqual(await ndjsonVerdict(messages, manifest.streamingConfig));
    } finally {
      await peer.stop();
    }
  }, 60_000);

  it("browses: two runs read the same messages, the queue keeps them all; the verdict is the NDJSON file's", async () => {
    const peer = await startProtonBroker();
    try {
      const { messages, manifest } = stream(41, 250);
      await publish("events", messages, peer.url);
      const expected = await ndjsonVerdict(messages, manifest.streamingConfig);
      for (let run = 0; run < 2; run += 1) {
        const source = await openAmqp1Source(`${peer.url}/events`, {
          maxMessages: messages.length,
          idleTimeoutMs: 20_000,
        });
        expect(verdict(await checkStream(source, { config: manifest.streamingConfig }))).toEqual(expected);
      }
    } finally {
      expect(await peer.stop()).toMatch(/stored events 250/);
    }
  }, 60_000);
});
