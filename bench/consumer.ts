// The event consumer check's figures, printed, never asserted: how fast the judge compares a view of
// 100,000 objects with the truth (against JSON.parse of the same view's lines), how fast the stream
// generator writes messages to a file, how fast HTTP push delivers to a loopback endpoint that answers at
// once (against plain keep-alive POSTs of the same bodies), and what the consumer check adds to a
// consumer's own run time on a 10,000-message file stream, with the stream kept from an earlier run and
// made for the run. Run: npm run bench:consumer
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consumerCheck } from "../src/commands/consumer/check.ts";
import { judgeView } from "../src/events/consumer/consumer-judge.ts";
import { consumerStream, type TruthObject, writeStreamFile } from "../src/events/consumer/consumer-stream.ts";
import { readView } from "../src/events/consumer/consumer-view.ts";
import { pushBody, pushMessages } from "../src/events/consumer/http-push.ts";
import { DEFAULT_CHOICE } from "../src/events/consumer/producer-choices.ts";
import { packagePath } from "../src/package-root.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });
const work = mkdtempSync(join(tmpdir(), "lckit-bench-consumer-"));
const line = (label: string, value: string) => console.log(`${label.padEnd(62)} ${value}`);

/** A view line as a consumer writes it: the latest state with its attributes as sent, and every tenth
 *  object one state older (so the judge's explaining path is timed too). */
function viewLine(object: TruthObject, index: number): string {
  const older =
    index % 10 === 0 ? object.entries.find((e) => e.listed && e.version < object.winner.version) : undefined;
  const entry = older ?? object.winner;
  const attributes =
    entry.removes || entry.attributesText === undefined || entry.attributesText === null
      ? undefined
      : JSON.parse(entry.attributesText);
  return JSON.stringify({
    uri: object.uri,
    removed: entry.removes,
    objectVersion: entry.version,
    attributes,
  });
}

async function judgeFigure(): Promise<void> {
  // One stream's objects copied under other URIs until there are 100,000: the judge's work per object is
  // that of a real stream's objects, without generating half a million messages first.
  const stream = consumerStream(DEFAULT_CHOICE, 100, 20_000);
  const originals = [...stream.objects.values()];
  for (let copy = 1; stream.objects.size < 100_000; copy += 1)
    for (const object of originals) {
      if (stream.objects.size >= 100_000) break;
      const uri = `${object.uri}-${copy}`;
      stream.objects.set(uri, { ...object, uri });
    }
  const objects = [...stream.objects.values()];
  const path = join(work, "view.ndjson");
  writeFileSync(path, `${objects.map(viewLine).join("\n")}\n`);
  const parseMs: number[] = [];
  const readMs: number[] = [];
  const judgeMs: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    let started = performance.now();
    for (const text of readFileSync(path, "utf8").split("\n")) if (text) JSON.parse(text);
    parseMs.push(performance.now() - started);
    started = performance.now();
    const view = await readView(path, { maxLines: 300_000 });
    readMs.push(performance.now() - started);
    started = performance.now();
    judgeView(stream, view);
    judgeMs.push(performance.now() - started);
  }
  const perSecond = (ms: number) => fmt((objects.length / ms) * 1000);
  line(
    `judge a view of ${fmt(objects.length)} objects (truth of ${fmt(stream.objects.size)})`,
    `${perSecond(median(judgeMs))} objects/s (${fmt(median(judgeMs))} ms)`,
  );
  line(
    "  read the view (stream, parse, check each line)",
    `${perSecond(median(readMs))} objects/s (${fmt(median(readMs))} ms)`,
  );
  line(
    "  baseline: JSON.parse of the same lines",
    `${perSecond(median(parseMs))} objects/s (${fmt(median(parseMs))} ms)`,
  );
}

async function generatorFigure(): Promise<void> {
  const times: number[] = [];
  const writeOnly: number[] = [];
  let messages = 0;
  for (let i = 0; i < 5; i += 1) {
    // A new file each time: truncating the last run's 80 MB is the file system's work, not the generator's.
    const file = join(work, `events-${i}.ndjson`);
    let started = performance.now();
    const stream = consumerStream(DEFAULT_CHOICE, 11 + (i % 3), 50_000);
    void stream.objects; // the truth is made on first use: made here, as the figure's label says
    writeStreamFile(file, stream.messages);
    times.push(performance.now() - started);
    messages = stream.messages.length;
    rmSync(file);
    // Baseline: serializing and writing the same messages, made already.
    started = performance.now();
    writeStreamFile(file, stream.messages);
    writeOnly.push(performance.now() - started);
    rmSync(file);
  }
  line(
    `generate a stream with its truth and write it to a file (${fmt(messages)} messages)`,
    `${fmt((messages / median(times)) * 1000)} messages/s`,
  );
  line(
    "  baseline: serialize and write the same messages, made already",
    `${fmt((messages / median(writeOnly)) * 1000)} messages/s`,
  );
}

async function pushFigure(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume().once("end", () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const url = new URL(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`);
  const stream = consumerStream(DEFAULT_CHOICE, 3, 10_000);
  const pushMs: number[] = [];
  const plainMs: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    let started = performance.now();
    await pushMessages(stream.messages, url, "pubsub", new AbortController().signal);
    pushMs.push(performance.now() - started);
    // Baseline: the same bodies POSTed one at a time on one keep-alive connection, nothing else.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    started = performance.now();
    for (let index = 0; index < stream.messages.length; index += 1) {
      const body = pushBody(stream.messages[index] as never, index, "pubsub");
      await new Promise<void>((resolve, reject) => {
        const req = request(
          url,
          { method: "POST", agent, headers: { "content-length": Buffer.byteLength(body) } },
          (res) => {
            res.resume().once("end", resolve);
          },
        );
        req.once("error", reject);
        req.end(body);
      });
    }
    plainMs.push(performance.now() - started);
    agent.destroy();
  }
  server.close();
  const n = stream.messages.length;
  line(
    `HTTP push (Pub/Sub form) to a loopback endpoint (${fmt(n)} messages)`,
    `${fmt((n / median(pushMs)) * 1000)} messages/s`,
  );
  line(
    "  baseline: plain keep-alive POSTs of the same bodies",
    `${fmt((n / median(plainMs)) * 1000)} messages/s`,
  );
}

async function overheadFigure(): Promise<void> {
  const consumer = packagePath("examples", "consumers", "view-consumer.mjs");
  const count = 10_000;
  const stream = consumerStream(DEFAULT_CHOICE, 1, count);
  const events = join(work, "overhead-events.ndjson");
  writeStreamFile(events, stream.messages);
  const cache = join(work, "stream-cache");
  const own: number[] = [];
  const fresh: number[] = [];
  const kept: number[] = [];
  const checked = async (streamCache?: string) => {
    const started = performance.now();
    const run = await consumerCheck({
      argv: [process.execPath, consumer],
      count,
      seed: 1,
      ...(streamCache ? { streamCache } : {}),
    });
    if (run.exitCode !== 0) throw new Error(`the example consumer did not pass: ${run.result.verdictReason}`);
    return performance.now() - started;
  };
  await checked(cache); // keeps the stream for the runs below
  // The consumer alone and checked on the kept stream, alternating; the runs that make their stream
  // apart, so that what they leave to collect does not land in the others' time.
  for (let i = 0; i < 9; i += 1) {
    const started = performance.now();
    execFileSync(process.execPath, [consumer], {
      env: { ...process.env, LCKIT_EVENTS_FILE: events, LCKIT_VIEW_FILE: join(work, "own-view.ndjson") },
    });
    own.push(performance.now() - started);
    kept.push(await checked(cache));
  }
  for (let i = 0; i < 5; i += 1) fresh.push(await checked());
  const generation: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const started = performance.now();
    void consumerStream(DEFAULT_CHOICE, 1, count).objects;
    generation.push(performance.now() - started);
  }
  const ownMs = median(own);
  const overhead = (ms: number) => `${fmt(ms)} ms, overhead ${fmt(((ms - ownMs) / ownMs) * 100, 1)} %`;
  line(`the consumer alone on a ${fmt(stream.messages.length)}-message file`, `${fmt(ownMs)} ms`);
  line("  checked, the stream kept from an earlier run (--stream-cache)", overhead(median(kept)));
  line("  checked, the stream made for this run (first run, --stream-cache off)", overhead(median(fresh)));
  line("  of it, generating the stream and its truth", `${fmt(median(generation))} ms`);
}

try {
  console.log(`Node ${process.version}, medians`);
  // The check's overhead first, while this process holds no more than a check would: the other figures
  // leave a large heap behind, whose collection would run beside the consumer.
  await overheadFigure();
  await judgeFigure();
  await generatorFigure();
  await pushFigure();
} finally {
  rmSync(work, { recursive: true, force: true });
}
