// npm run bench:live: a full live certification of the reference served on a loopback port with its real
// clock (every safety class allowed, disposable). Prints wall time, requests, the time spent waiting on the
// target's clock, and the time the same requests would take at 10 requests/s (a sandbox's default rate
// limit). Usage: tsx bench/live.ts [--runs N] [--seed N] [--top N] [--check ID-OR-GLOB ...]
// [--one-quota-client] (without the reference's second quota client: the quota checks in one lane)
// [--depth default|deep] (how far the checks explore; deep is what --certify runs)
import { parseArgs } from "node:util";
import { type Check, type Clock, DEPTHS, type Depth, type Target } from "../src/check/index.ts";
import { DEFAULT_RUNS } from "../src/cli/commands/run.ts";
import { createReference } from "../src/reference/index.ts";
import { planRun, schedule } from "../src/runner/plan.ts";
import { runPlan } from "../src/runner/run.ts";
import { embeddedTargetDescription } from "../src/target/embedded.ts";
import { systemClock } from "../src/target/system-clock.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string" },
    seed: { type: "string" },
    top: { type: "string" },
    // A part of the run (e.g. --check 'token-quota/*'), to measure one lane while changing it.
    check: { type: "string", multiple: true },
    "one-quota-client": { type: "boolean" },
    // Each token lane's checks with their time, to balance the quota lanes.
    lanes: { type: "boolean" },
    depth: { type: "string" },
  },
});
const depth = values.depth ?? "default";
if (!DEPTHS.includes(depth as Depth))
  throw new Error(`--depth must be one of ${DEPTHS.join(", ")}, got ${depth}`);
const runs = Number(values.runs ?? DEFAULT_RUNS);
const seed = Number(values.seed ?? 1);
const top = Number(values.top ?? 8);

const { allChecks } = (await import("../suites/index.ts")) as { allChecks: Check[] };
const listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
const { quotaAlt, ...description } = embeddedTargetDescription();
const target: Target = {
  ...description,
  ...(values["one-quota-client"] === true ? {} : { quotaAlt }),
  name: "reference served on loopback",
  baseUrl: listening.baseUrl,
  rdmUrl: listening.rdmUrl,
};

// Every wait of every check goes through the run's clock: summing here counts all of them, even overlapped.
const base = systemClock();
let waitedMs = 0;
const clock: Clock = {
  now: () => base.now(),
  sleep: (ms, signal) => {
    waitedMs += ms;
    return base.sleep(ms, signal);
  },
};

try {
  const plan = planRun(allChecks, {
    target,
    drivableClock: false,
    allow: ["write", "destructive", "quota"],
    confirmTenant: target.tenant,
    ids: values.check ?? [],
  });
  const started = performance.now();
  const result = await runPlan(plan, { fetch: (r) => fetch(r), clock, seed, runs, depth: depth as Depth });
  const wallMs = performance.now() - started;
  const s = result.counts.byStatus;
  const notPassed = result.checks.filter((c) => c.status !== "passed");
  console.log(
    `checks              ${result.checks.length} (${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s.broken} broken)`,
  );
  console.log(`runs per property   ${runs}, seed ${seed}, depth ${depth}`);
  console.log(`wall time           ${(wallMs / 1000).toFixed(1)} s`);
  console.log(`requests            ${result.requestsSent}`);
  console.log(`total wait          ${(waitedMs / 1000).toFixed(1)} s (sum of every check's waits)`);
  // At 10 requests/s a check costs its requests / 10 plus its waits; lanes run side by side (the longest
  // counts), what runs after them adds up. Token requests of the read lane's cache count with the run.
  const cost = (i: number) => {
    const id = plan.entries.filter((e) => e.skipKind !== "selection")[i]?.check.id;
    const c = result.checks.find((r) => r.id === id);
    return c ? c.requests / 10 + (c.waitMs ?? 0) / 1000 : 0;
  };
  const chosen = plan.entries.filter((e) => e.skipKind !== "selection");
  const { lanes, after, secondQuotaLane, note } = schedule(chosen, {
    concurrent: true,
    secondQuotaClient: target.quotaAlt !== undefined,
  });
  const sum = (indexes: number[]) => indexes.reduce((t, i) => t + cost(i), 0);
  // The rate limit is the run's: lanes share it, so they take at least all their requests / 10.
  const requestsOf = (indexes: number[]) =>
    indexes.reduce((t, i) => t + (result.checks.find((r) => r.id === chosen[i]?.check.id)?.requests ?? 0), 0);
  const overlapped = Math.max(requestsOf(lanes.flat()) / 10, ...lanes.map(sum)) + sum(after);
  // Where the wall time goes: each lane's checks one after another, then what runs after the lanes.
  const secondsOf = (indexes: number[]) =>
    indexes.reduce(
      (t, i) => t + (result.checks.find((r) => r.id === chosen[i]?.check.id)?.durationMs ?? 0),
      0,
    ) / 1000;
  console.log(
    `lanes               ${lanes.map((lane, n) => `lane ${n + 1}${n === secondQuotaLane ? " (second quota client)" : ""}: ${lane.length} checks ${secondsOf(lane).toFixed(1)} s`).join(", ")}; ` +
      `after them: ${after.length} checks ${secondsOf(after).toFixed(1)} s`,
  );
  if (note !== undefined) console.log(`note                ${note}`);
  if (values.lanes === true)
    for (const [n, lane] of lanes.entries()) {
      if (n !== 0 && n !== secondQuotaLane) continue;
      const times = lane.map((i) => {
        const c = result.checks.find((r) => r.id === chosen[i]?.check.id);
        return `${c?.id} ${((c?.durationMs ?? 0) / 1000).toFixed(1)} s`;
      });
      console.log(`  lane ${n + 1}           ${times.join(", ")}`);
    }
  const sequential = result.requestsSent / 10 + waitedMs / 1000;
  console.log(
    `projected at 10/s   ${(overlapped / 60).toFixed(1)} min with the lanes overlapping ` +
      `(${(sequential / 60).toFixed(1)} min one check after another; requests alone ${(result.requestsSent / 10 / 60).toFixed(1)} min)`,
  );
  console.log(`verdict             ${result.verdict} (${result.verdictReason})`);
  const byRequests = [...result.checks].sort((a, b) => b.requests - a.requests).slice(0, top);
  console.log(`most requests       ${byRequests.map((c) => `${c.id} ${c.requests}`).join(", ")}`);
  const byWait = [...result.checks].sort((a, b) => (b.waitMs ?? 0) - (a.waitMs ?? 0)).slice(0, top);
  console.log(
    `most waiting        ${byWait.map((c) => `${c.id} ${((c.waitMs ?? 0) / 1000).toFixed(1)} s`).join(", ")}`,
  );
  const byTime = [...result.checks].sort((a, b) => b.durationMs - a.durationMs).slice(0, top);
  console.log(
    `slowest             ${byTime.map((c) => `${c.id} ${(c.durationMs / 1000).toFixed(1)} s`).join(", ")}`,
  );
  for (const c of notPassed) console.log(`  ${c.status} ${c.id}: ${c.message ?? c.reason ?? ""}`);
} finally {
  await listening.close();
}
