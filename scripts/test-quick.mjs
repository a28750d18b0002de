#!/usr/bin/env node
// The inner loop (`npm run test:quick`): lint, types, the embedded conformance run and every test file that
// the last recorded profile (test/timings.json) shows finishing within QUICK_FILE_SECONDS, side by side.
// `npm test` stays the gate: it runs every file, the broker, the browser and the packed package included.
//
//   npm run test:quick                     the loop
//   LCKIT_QUICK_FILE_SECONDS=10 npm run test:quick     a wider selection
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const startedAt = Date.now();
// 5: QUICK_FILE_SECONDS of vitest.config.ts, whose "shared" project runs the same files unisolated in npm test.
const limit = Number(process.env.LCKIT_QUICK_FILE_SECONDS || 5);
if (!(limit > 0)) {
  console.error("test:quick: LCKIT_QUICK_FILE_SECONDS must be a number of seconds above 0, e.g. 10");
  process.exit(2);
}
const timingsFile = join(root, "test", "timings.json");
if (!existsSync(timingsFile)) {
  console.error(
    "test:quick: test/timings.json is missing; run `npm test`, then `npm run test:profile -- --write`",
  );
  process.exit(2);
}
const timings = JSON.parse(readFileSync(timingsFile, "utf8"));
const files = Object.entries(timings)
  .filter(([file, seconds]) => seconds <= limit && existsSync(join(root, file)))
  .map(([file]) => file)
  .sort();
const bin = (name) => join(root, "node_modules", ".bin", name);
const reportDir = join(root, ".tmp", "quick-report");
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

/** Runs a step to its end, its output kept and printed whole when it ends (steps run side by side). */
function step(name, file, args) {
  return new Promise((resolve) => {
    const began = Date.now();
    const child = spawn(file, args, {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", PACT_DO_NOT_TRACK: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", (error) => {
      out += `\n${error.message}`;
    });
    child.on("close", (code) => {
      const seconds = ((Date.now() - began) / 1000).toFixed(1);
      const ok = code === 0;
      process.stdout.write(`\n── ${name}: ${ok ? "ok" : `FAILED (exit ${code})`} in ${seconds} s\n`);
      if (!ok || name === "tests") process.stdout.write(out.split("\n").slice(-40).join("\n"));
      resolve(ok);
    });
  });
}

console.log(
  `test:quick: lint, types, the embedded conformance run and ${files.length} test files (each within ${limit} s in test/timings.json)`,
);
const results = await Promise.all([
  step("lint", bin("biome"), ["check", "."]),
  step("types", bin("tsc"), ["--noEmit"]),
  step("conformance", process.execPath, [join(root, "bin", "lckit.mjs"), "run", "--report-dir", reportDir]),
  // One module graph per worker instead of per file (--no-isolate): most of an isolated quick run is
  // spent importing the same modules again. npm test, the gate, runs these files the same way (the
  // "shared" project of vitest.config.ts) and keeps every longer file isolated.
  step("tests", bin("vitest"), ["run", "--reporter=dot", "--no-isolate", ...files]),
]);
const failed = results.filter((ok) => !ok).length;
console.log(
  `\ntest:quick: ${results.length - failed} of ${results.length} steps passed in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
);
process.exit(failed === 0 ? 0 : 1);
