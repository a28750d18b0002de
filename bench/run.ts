// npm run bench:run: the full default run against the embedded reference with 100 runs per property.
// Prints wall time, requests sent and the slowest checks. Usage: tsx bench/run.ts [--runs N] [--seed N]
// [--depth default|deep] (the default depth draws at most 10 cases per property: deep draws all --runs)
import { parseArgs } from "node:util";
import { type Check, DEPTHS, type Depth } from "../src/check/index.ts";
import { planRun } from "../src/runner/plan.ts";
import { runPlan } from "../src/runner/run.ts";
import { startEmbeddedTarget } from "../src/target/embedded.ts";

const { values } = parseArgs({
  options: { runs: { type: "string" }, seed: { type: "string" }, depth: { type: "string" } },
});
const depth = values.depth ?? "default";
if (!DEPTHS.includes(depth as Depth))
  throw new Error(`--depth must be one of ${DEPTHS.join(", ")}, got ${depth}`);
const runs = Number(values.runs ?? 100);
const seed = Number(values.seed ?? 1);

const { allChecks } = (await import("../suites/index.ts")) as { allChecks: Check[] };
const embedded = await startEmbeddedTarget();
const plan = planRun(allChecks, { target: embedded.target, drivableClock: true });

const started = performance.now();
const result = await runPlan(plan, {
  fetch: embedded.fetch,
  clock: embedded.clock,
  seed,
  runs,
  depth: depth as Depth,
});
const wallMs = performance.now() - started;

const s = result.counts.byStatus;
const bySuite = new Map<string, number>();
for (const c of result.checks) bySuite.set(c.suite, (bySuite.get(c.suite) ?? 0) + c.durationMs);
const slowest = [...result.checks].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5);

console.log(
  `checks            ${result.checks.length} (${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s.broken} broken)`,
);
console.log(`runs per property ${runs}, seed ${seed}, depth ${depth}`);
console.log(`wall time         ${(wallMs / 1000).toFixed(2)} s`);
console.log(
  `requests sent     ${result.requestsSent} (${Math.round(result.requestsSent / (wallMs / 1000))} per second)`,
);
console.log(`verdict           ${result.verdict} (${result.verdictReason})`);
console.log(
  "time by suite     " +
    [...bySuite]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`)
      .join(", "),
);
console.log(
  `slowest checks    ${slowest.map((c) => `${c.id} ${(c.durationMs / 1000).toFixed(2)} s`).join(", ")}`,
);
const mostRequests = [...result.checks].sort((a, b) => b.requests - a.requests).slice(0, 8);
console.log(`most requests     ${mostRequests.map((c) => `${c.id} ${c.requests}`).join(", ")}`);
