// `npm run bench:events`: throughput of the event checker against bare JSON.parse of the same lines.
// Generates a seeded, realistic stream of mixed messages (src/events/generate/), then times JSON.parse of
// every line, the per-message check, and the full streaming check (per-message check, stream rules,
// source iteration) under the stream's streaming configuration, from three kinds of source:
// - lines in memory, which can read a message again (the stream rules keep refs, and fingerprint a payload
//   only when its (uri, objectVersion) comes again);
// - the same lines from a source that cannot (as a broker or stdin: every payload is fingerprinted);
// - an NDJSON file (reading included; it can read a message again).
// Prints messages/s and the ratios. BENCH_MESSAGES, BENCH_SEED and BENCH_ROUNDS override the defaults
// (100000, 42, 7).
//
// On a shared machine load comes and goes within seconds, so a ratio of two fastest times taken at
// different moments drifts. Each round times JSON.parse and the checks back to back; the ratios printed
// are the median of the rounds' own ratios, with their lowest and highest.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventSchemas } from "../src/events/event-schemas.ts";
import { generateStream } from "../src/events/generate/index.ts";
import { inspectMessage } from "../src/events/judge/event-message.ts";
import { checkStream } from "../src/events/judge/event-stream.ts";
import { ndjsonLine } from "../src/events/transport/sinks/file.ts";
import { linesAsMessages, memorySource, openSource } from "../src/events/transport/sources/index.ts";
import type { RawMessage } from "../src/events/transport/transport.ts";

const count = Number(process.env.BENCH_MESSAGES ?? 100_000);
const seed = Number(process.env.BENCH_SEED ?? 42);
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);

/** Node's collector when run with --expose-gc (npm run bench:events does). */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** Runs the measures in turns (so that a burst of load on a shared machine hits all of them); returns
 *  every round's time of each, and prints each one's fastest round. */
async function measure(measures: [string, () => unknown][]): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>(measures.map(([label]) => [label, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [label, run] of measures) {
      // Each measure starts on a clean heap, so that none pays for another's garbage.
      collectGarbage?.();
      const started = performance.now();
      await run();
      times.get(label)?.push(performance.now() - started);
    }
  }
  for (const [label, all] of times) {
    const ms = Math.min(...all);
    console.log(
      `${label.padEnd(34)} ${(count / (ms / 1000)).toFixed(0).padStart(9)} messages/s (${ms.toFixed(0)} ms)`,
    );
  }
  return times;
}

/** The median of the rounds' ratios of `label` to JSON.parse, with the lowest and highest. */
function ratio(times: Map<string, number[]>, label: string): string {
  const parse = times.get("JSON.parse") ?? [];
  const ratios = (times.get(label) ?? []).map((ms, round) => ms / (parse[round] ?? ms)).sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)] ?? 0;
  return `${median.toFixed(2)}x (rounds ${(ratios[0] ?? 0).toFixed(2)}-${(ratios.at(-1) ?? 0).toFixed(2)})`;
}

const generationStarted = performance.now();
// The kit's realistic stream: entity lifecycles, relationships with companions, interactions, change
// requests, large-object fallbacks, 2% exact re-sends, reordering within 5 places; objectVersion rising.
const { messages, manifest } = generateStream({ seed, count, duplicates: 0.02, reorderWindow: 5 });
const config = manifest.streamingConfig;
const lines = messages.map(ndjsonLine);
const bytes = lines.reduce((sum, line) => sum + line.length, 0);
console.log(
  `events bench: ${count} messages (${Object.keys(manifest.byType).length} event types), seed ${seed}, ${(bytes / count).toFixed(0)} bytes/message on average, generated in ${((performance.now() - generationStarted) / 1000).toFixed(1)} s`,
);
const compileStarted = performance.now();
eventSchemas();
console.log(`schemas compiled once in ${(performance.now() - compileStarted).toFixed(0)} ms`);

// Warm-up: both paths reach optimised code before timing.
for (const line of lines.slice(0, 5000)) {
  JSON.parse(line);
  inspectMessage({ position: "warm-up", body: line }, { config });
}

// The same lines as messages that carry no ref: the checker cannot read them again (as from a broker).
const positioned: RawMessage[] = lines.map((body, index) => ({ position: `line ${index + 1}`, body }));
const folder = mkdtempSync(join(tmpdir(), "lckit-bench-events-"));
const file = join(folder, "stream.ndjson");
writeFileSync(file, `${lines.join("\n")}\n`);

let sink = 0;
let invalid = 0;
const times = await measure([
  [
    "JSON.parse",
    () => {
      for (const line of lines) sink += (JSON.parse(line) as object) ? 1 : 0;
    },
  ],
  [
    "checkMessage (no stream rules)",
    () => {
      for (const line of lines)
        sink += inspectMessage({ position: "bench", body: line }, { config }).problems.length;
    },
  ],
  [
    "full check, lines in memory",
    async () => {
      const result = await checkStream(memorySource(linesAsMessages(lines)), { config, maxProblems: 10 });
      invalid = Math.max(invalid, result.invalid);
    },
  ],
  [
    "full check, no re-reading",
    async () => {
      const result = await checkStream(memorySource(positioned), { config, maxProblems: 10 });
      invalid = Math.max(invalid, result.invalid);
    },
  ],
  [
    "full check, NDJSON file",
    async () => {
      const result = await checkStream(await openSource(file), { config, maxProblems: 10 });
      invalid = Math.max(invalid, result.invalid);
    },
  ],
]);
rmSync(folder, { recursive: true, force: true });
console.log(
  `ratio full check / JSON.parse:       ${ratio(times, "full check, lines in memory")} (goal <= 1.5x)`,
);
console.log(
  `  from a source that cannot re-read: ${ratio(times, "full check, no re-reading")} (a broker, stdin)`,
);
console.log(
  `  from an NDJSON file:               ${ratio(times, "full check, NDJSON file")} (reading included)`,
);
console.log(`ratio checkMessage / JSON.parse:     ${ratio(times, "checkMessage (no stream rules)")}`);
console.log(`invalid messages found: ${invalid} (the generated stream is valid: expected 0)`);
if (sink < 0) console.log(sink);
