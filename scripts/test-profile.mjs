#!/usr/bin/env node
// Where the test suite's time goes: per test file, wall time (from vitest's JSON report), CPU time (this
// worker and the child processes it waited for, recorded by test/support/profile-setup.ts) and the time
// spent waiting (wall minus CPU), slowest first. Reads the last `npm test` (or `npm run test:quick`).
//
//   npm run test:profile                 the table, slowest first
//   npm run test:profile -- --top 20     only the 20 slowest files
//   npm run test:profile -- --write      also record the wall times in test/timings.json, which the
//                                        test sequencer reads to start the longest files first
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const results = join(root, ".tmp", "vitest-results.json");
const cpuFolder = join(root, ".tmp", "test-profile");
const timingsFile = join(root, "test", "timings.json");

const args = process.argv.slice(2);
const help = args.includes("--help") || args.includes("-h");
if (help) {
  console.log("usage: npm run test:profile [-- --top N] [-- --write]\n");
  console.log("Prints per-file wall, CPU and waiting time of the last `npm test` run, slowest first.");
  process.exit(0);
}
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args[topAt + 1]) : Number.POSITIVE_INFINITY;
if (topAt >= 0 && !(Number.isInteger(top) && top > 0)) {
  console.error(
    `test:profile: --top takes a whole number above 0 (got ${JSON.stringify(args[topAt + 1])}), e.g. --top 20`,
  );
  process.exit(2);
}
for (const arg of args) {
  if (arg.startsWith("-") && !["--top", "--write"].includes(arg)) {
    console.error(`test:profile: unknown flag ${arg}; flags: --top N, --write, --help`);
    process.exit(2);
  }
}
if (!existsSync(results)) {
  console.error("test:profile: no .tmp/vitest-results.json; run `npm test` (or `npm run test:quick`) first");
  process.exit(1);
}

const json = JSON.parse(readFileSync(results, "utf8"));
const cpu = new Map();
if (existsSync(cpuFolder)) {
  for (const name of readdirSync(cpuFolder)) {
    try {
      const entry = JSON.parse(readFileSync(join(cpuFolder, name), "utf8"));
      cpu.set(relative(root, entry.file), entry.cpuMs);
    } catch {
      // A record cut short by a killed worker: that file shows no CPU figure.
    }
  }
}

const rows = (json.testResults ?? []).map((file) => {
  const name = relative(root, file.name);
  const wallMs = Math.max(0, (file.endTime ?? 0) - (file.startTime ?? 0));
  const cpuMs = cpu.get(name);
  return {
    name,
    wallMs,
    cpuMs,
    waitMs: cpuMs === undefined ? undefined : Math.max(0, wallMs - cpuMs),
    tests: (file.assertionResults ?? []).length,
  };
});
rows.sort((a, b) => b.wallMs - a.wallMs);

const s = (ms) => (ms === undefined ? "     -" : (ms / 1000).toFixed(1).padStart(6));
const sum = (key) => rows.reduce((total, row) => total + (row[key] ?? 0), 0);
const runEnd = Math.max(0, ...(json.testResults ?? []).map((f) => f.endTime ?? 0));
const runWallMs = typeof json.startTime === "number" && runEnd > 0 ? runEnd - json.startTime : undefined;

console.log(
  `${"wall s".padStart(6)} ${"cpu s".padStart(6)} ${"wait s".padStart(6)} ${"tests".padStart(5)}  file`,
);
for (const row of rows.slice(0, top)) {
  console.log(
    `${s(row.wallMs)} ${s(row.cpuMs)} ${s(row.waitMs)} ${String(row.tests).padStart(5)}  ${row.name}`,
  );
}
console.log(
  `\n${rows.length} files; summed over files: wall ${s(sum("wallMs")).trim()} s, cpu ${s(sum("cpuMs")).trim()} s, waiting ${s(sum("waitMs")).trim()} s`,
);
if (runWallMs !== undefined) {
  const overlap = sum("wallMs") / Math.max(1, runWallMs);
  console.log(
    `the run: ${s(runWallMs).trim()} s from vitest's start to its last file's end (files overlapped ${overlap.toFixed(1)}x)`,
  );
}
if (cpu.size === 0)
  console.log("no CPU figures: they are recorded on Linux, by runs started with `npm test`");

if (args.includes("--write")) {
  const timings = {};
  for (const row of [...rows].sort((a, b) => a.name.localeCompare(b.name))) {
    timings[row.name] = Math.round(row.wallMs / 100) / 10;
  }
  writeFileSync(timingsFile, `${JSON.stringify(timings, null, 2)}\n`);
  console.log(
    `wrote ${relative(root, timingsFile)} (${rows.length} files): the sequencer starts the longest first`,
  );
}
