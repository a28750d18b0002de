// `npm run bench:events`: throughput of the event checker against bare JSON.parse of the same lines.
// Generates a seeded, realistic stream of mixed messages (src/events/stream.ts), then times: JSON.parse of every line, the per-message check, and the full streaming check
// (per-message check + stream rules + source iteration). Prints messages/s and the ratios.
import { inspectMessage } from "../src/events/event-message.ts";
import { eventSchemas } from "../src/events/event-schemas.ts";
import { checkStream } from "../src/events/event-stream.ts";
import { ndjsonLine } from "../src/events/sinks/file.ts";
import { linesAsMessages, memorySource } from "../src/events/sources/index.ts";
import { generateStream } from "../src/events/stream.ts";

const count = Number(process.env.BENCH_MESSAGES ?? 100_000);
const seed = Number(process.env.BENCH_SEED ?? 42);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

function best(label: string, run: () => void): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  console.log(
    `${label.padEnd(34)} ${(count / (fastest / 1000)).toFixed(0).padStart(9)} messages/s (${fastest.toFixed(0)} ms)`,
  );
  return fastest;
}

async function bestAsync(label: string, run: () => Promise<void>): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    await run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  console.log(
    `${label.padEnd(34)} ${(count / (fastest / 1000)).toFixed(0).padStart(9)} messages/s (${fastest.toFixed(0)} ms)`,
  );
  return fastest;
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

let sink = 0;
const parse = best("JSON.parse", () => {
  for (const line of lines) sink += (JSON.parse(line) as object) ? 1 : 0;
});
const perMessage = best("checkMessage (no stream rules)", () => {
  for (const line of lines)
    sink += inspectMessage({ position: "bench", body: line }, { config }).problems.length;
});
let invalid = 0;
const full = await bestAsync("checkStream (full check)", async () => {
  const result = await checkStream(memorySource(linesAsMessages(lines)), { config, maxProblems: 10 });
  invalid = result.invalid;
});
console.log(`ratio full check / JSON.parse:       ${(full / parse).toFixed(2)}x (target <= 2x)`);
console.log(`ratio checkMessage / JSON.parse:     ${(perMessage / parse).toFixed(2)}x`);
console.log(`invalid messages found: ${invalid} (the generated stream is valid: expected 0)`);
if (sink < 0) console.log(sink);
