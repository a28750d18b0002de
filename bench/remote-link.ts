// npm run bench:remote-link: a run of the reference served on loopback, reached through a remote link
// (test/support/remote-link.ts: latency each way, a gateway rate limit answering 429 with Retry-After,
// dropped connections), with the kit's rateLimit. Prints requests, wall time, the rate-limit floor
// (requests / rate) and their ratio, and every check that did not pass. Figures, never a test.
// Usage: tsx bench/remote-link.ts [--rate 15] [--latency 40] [--spread 20] [--seed N] [--order-seed N]
// [--drop P] (share of GETs whose connection is dropped, default 0.03) [--runs N] [--check ID-OR-GLOB ...]
// [--loopback] (no link: the reference's own port, no rate limit) [--out FILE] (the whole run result as JSON) [--token-from-before] (the quota client holds a token issued
// before the run, valid for an hour, as an earlier run leaves one)
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Check, Target } from "../src/check/index.ts";
import { DEFAULT_RUNS } from "../src/cli/commands/run-flags.ts";
import { createClient } from "../src/client/index.ts";
import { createReference } from "../src/reference/index.ts";
import { planRun } from "../src/runner/plan.ts";
import { runPlan } from "../src/runner/run.ts";
import { embeddedTargetDescription } from "../src/target/embedded.ts";
import { systemClock } from "../src/target/system-clock.ts";
import { startRemoteLink } from "../test/support/remote-link.ts";

const { values } = parseArgs({
  options: {
    rate: { type: "string" },
    latency: { type: "string" },
    spread: { type: "string" },
    drop: { type: "string" },
    seed: { type: "string" },
    "order-seed": { type: "string" },
    runs: { type: "string" },
    check: { type: "string", multiple: true },
    loopback: { type: "boolean" },
    "token-from-before": { type: "boolean" },
    // Where to write the whole run result (JSON), to read a failure's evidence.
    out: { type: "string" },
  },
});
const rate = Number(values.rate ?? 15);
const seed = Number(values.seed ?? 1);
const loopback = values.loopback === true;

const { allChecks } = (await import("../suites/index.ts")) as { allChecks: Check[] };
const listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
const link = loopback
  ? undefined
  : await startRemoteLink({
      upstream: listening.baseUrl,
      seed,
      latencyMs: { mean: Number(values.latency ?? 40), spread: Number(values.spread ?? 20) },
      ...(values.drop === undefined ? {} : { dropGet: Number(values.drop) }),
    });
const url = link?.url ?? listening.baseUrl;
const target: Target = { ...embeddedTargetDescription(), name: "reference", baseUrl: url, rdmUrl: url };
if (values["token-from-before"] === true) {
  const quota = target.credentials.quota;
  if (quota === undefined) throw new Error("the embedded target names no quota client");
  await createClient({ fetch, baseUrl: listening.baseUrl, rdmUrl: listening.rdmUrl }).token(quota);
}
const plan = planRun(allChecks, {
  target,
  ids: values.check ?? [],
  drivableClock: false,
  ...(values["order-seed"] === undefined ? {} : { orderSeed: Number(values["order-seed"]) }),
});
const started = performance.now();
const result = await runPlan(plan, {
  fetch: (request) => fetch(request),
  clock: systemClock(),
  seed,
  runs: Number(values.runs ?? DEFAULT_RUNS),
  ...(loopback ? {} : { rateLimit: rate }),
});
const wallS = (performance.now() - started) / 1000;
await link?.close();
await listening.close();
if (values.out !== undefined) writeFileSync(values.out, JSON.stringify(result, null, 2));
const requests = result.requestsSent ?? 0;
const floorS = loopback ? undefined : requests / rate;
console.log(
  JSON.stringify(
    {
      link: loopback
        ? "loopback"
        : { rate, latency: values.latency ?? 40, drop: values.drop ?? 0.03, seed, ...link?.counts },
      orderSeed: values["order-seed"] ?? null,
      verdict: result.verdict,
      checks: result.checks.length,
      requests,
      wallS: Math.round(wallS),
      floorS: floorS === undefined ? null : Math.round(floorS),
      ratio: floorS === undefined ? null : Math.round((wallS / floorS) * 100) / 100,
      notPassed: result.checks
        .filter((c) => c.status !== "passed" && c.status !== "skipped")
        .map((c) => `${c.status} ${c.id}: ${(c.message ?? c.reason ?? "").slice(0, 300)}`),
    },
    null,
    2,
  ),
);
