// Messages per second from a RabbitMQ broker through the event checker, over AMQP 0-9-1 (amqplib) and
// AMQP 1.0 (rhea, RabbitMQ's AMQP 1.0 plugin), beside the file checker's figure for the same messages in
// the same run, and their ratios; and the heap's peak while the AMQP 1.0 path drains.
//
//   node_modules/.bin/tsx bench/events-broker.ts [--count N] [--seed N]
//
// Broker: $LCKIT_AMQP_URL (and $LCKIT_AMQP1_URL for AMQP 1.0, else the same host and port), else the local RabbitMQ of scripts/services.mjs (started here when it is not
// running, and stopped again afterwards). The checker's queue is filled first and then drained, so the
// broker figure is delivery plus checking, not the publisher's pace (printed separately).
import { spawnSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import amqp from "amqplib";
import { generateStream } from "../src/events/generate/index.ts";
import { checkStream, type EventCheckResult } from "../src/events/judge/event-stream.ts";
import { openAmqpSink } from "../src/events/transport/sinks/amqp.ts";
import { openAmqp1Sink } from "../src/events/transport/sinks/amqp1.ts";
import { openFileSink } from "../src/events/transport/sinks/file.ts";
import { openAmqpSource } from "../src/events/transport/sources/amqp.ts";
import { openAmqp1Source } from "../src/events/transport/sources/amqp1.ts";
import { openSource } from "../src/events/transport/sources/index.ts";

const root = join(import.meta.dirname, "..");

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} expects a positive integer`);
  return value;
}

function services(action: "start" | "stop" | "status"): number {
  return (
    spawnSync(process.execPath, [join(root, "scripts", "services.mjs"), action], { stdio: "ignore" })
      .status ?? 1
  );
}

const count = option("--count", 50_000);
const seed = option("--seed", 1);
const external = process.env.LCKIT_AMQP_URL;
const url = external ?? `amqp://guest:guest@127.0.0.1:${process.env.LCKIT_AMQP_PORT || 5672}`;
const url1 = process.env.LCKIT_AMQP1_URL ?? url.replace(/^amqp:/, "amqp1:");
let startedHere = false;
if (!external && services("status") !== 0) {
  if (services("start") !== 0)
    throw new Error("scripts/services.mjs start failed; run it by hand to see why");
  startedHere = true;
}

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const summary = (r: EventCheckResult) => `${r.total} read, ${r.valid} valid, ${r.invalid} invalid`;

try {
  const { messages, manifest } = generateStream({
    seed,
    count,
    duplicates: 0.02,
    reorderWindow: 4,
    invalid: { count: Math.ceil(count / 250) },
  });
  const config = manifest.streamingConfig;

  // The file checker on the same messages.
  const dir = join(root, ".tmp", "bench");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "events-broker.ndjson");
  const sink = await openFileSink(file);
  for (const message of messages) await sink.publish(message);
  await sink.close();
  // One untimed pass first, so that both timed passes run warm (the broker's comes second anyway).
  await checkStream(await openSource(file), { config });
  let began = performance.now();
  const fromFile = await checkStream(await openSource(file), { config });
  const fileMs = performance.now() - began;

  // The broker: the checker's own queue bound first, filled, then drained through the checker.
  const exchange = `lckit.bench.${process.pid}`;
  const admin = await amqp.connect(url);
  const channel = await admin.createChannel();
  await channel.assertExchange(exchange, "topic", { durable: false, autoDelete: false });
  const source = await openAmqpSource(url, {
    exchange,
    routingKey: "#",
    maxMessages: count,
    idleTimeoutMs: 30_000,
  });
  began = performance.now();
  const publisher = await openAmqpSink(url, { exchange, routingKey: "events.acme" });
  for (const message of messages) await publisher.publish(message);
  await publisher.close();
  const publishMs = performance.now() - began;
  began = performance.now();
  let cpu = process.cpuUsage();
  const fromBroker = await checkStream(source, { config });
  const brokerMs = performance.now() - began;
  const brokerCpu = process.cpuUsage(cpu);

  // AMQP 1.0: a private queue of the kit's own (/exchange/X/#), filled by the AMQP 1.0 sink, then drained.
  const source1 = await openAmqp1Source(url1, {
    address: `/exchange/${exchange}/#`,
    mode: "own",
    maxMessages: count,
    idleTimeoutMs: 30_000,
  });
  began = performance.now();
  const publisher1 = await openAmqp1Sink(url1, { address: `/exchange/${exchange}/events.acme` });
  for (const message of messages) await publisher1.publish(message);
  await publisher1.close();
  const publish1Ms = performance.now() - began;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 50);
  const heapBefore = process.memoryUsage().heapUsed;
  began = performance.now();
  cpu = process.cpuUsage();
  const fromBroker1 = await checkStream(source1, { config });
  const broker1Ms = performance.now() - began;
  const broker1Cpu = process.cpuUsage(cpu);
  clearInterval(sampler);
  await channel.deleteExchange(exchange);
  await admin.close();
  if (fromBroker1.total !== count || fromBroker1.invalid !== manifest.invalid)
    throw new Error(`AMQP 1.0 counts differ: ${summary(fromBroker1)}; expected ${manifest.invalid} invalid`);

  if (fromBroker.total !== count || fromFile.total !== count || fromBroker.invalid !== manifest.invalid)
    throw new Error(
      `counts differ: broker ${summary(fromBroker)}; file ${summary(fromFile)}; expected ${manifest.invalid} invalid`,
    );

  const bytes = statSync(file).size;
  const brokerRate = rate(count, brokerMs);
  const fileRate = rate(count, fileMs);
  console.log(
    `events broker bench: ${count} messages (seed ${seed}, ${manifest.invalid} invalid, ${manifest.duplicates} re-sent), ${Math.round(bytes / count)} bytes per NDJSON line`,
  );
  console.log(`  publish to RabbitMQ (confirm channel): ${rate(count, publishMs)} msg/s`);
  console.log(`  broker -> checker (own queue, acked):  ${brokerRate} msg/s (${summary(fromBroker)})`);
  console.log(`  file -> checker (same messages):       ${fileRate} msg/s (${summary(fromFile)})`);
  console.log(`  ratio broker / file:                   ${(brokerRate / fileRate).toFixed(2)}`);
  const broker1Rate = rate(count, broker1Ms);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  console.log(`  publish over AMQP 1.0 (settled):       ${rate(count, publish1Ms)} msg/s`);
  console.log(`  AMQP 1.0 -> checker (own address):     ${broker1Rate} msg/s (${summary(fromBroker1)})`);
  console.log(`  ratio AMQP 1.0 / AMQP 0-9-1:           ${(broker1Rate / brokerRate).toFixed(2)}`);
  // The checker's own CPU per message: what the kit costs on each path, apart from the broker's pace.
  const perCpuSecond = (usage: NodeJS.CpuUsage) => Math.round((count / (usage.user + usage.system)) * 1e6);
  console.log(
    `  checker CPU, msg per CPU-second:       0-9-1 ${perCpuSecond(brokerCpu)}, AMQP 1.0 ${perCpuSecond(broker1Cpu)} (ratio ${(perCpuSecond(broker1Cpu) / perCpuSecond(brokerCpu)).toFixed(2)})`,
  );
  console.log(`  heap while AMQP 1.0 drains:            ${mb(heapBefore)} before, ${mb(peakHeap)} peak`);
} finally {
  if (startedHere) services("stop");
}
