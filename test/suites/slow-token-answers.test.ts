// The real-time token-quota checks judge by the kit's clock: a token counted as active must be active for
// certain when the answer judged was given (issue 43: on a loaded machine a correct target failed at MUST
// because its 2 s tokens expired in the middle of a check's burst). The reference is served on its own
// clock behind a link that delays every request and answer, so the tokens' validity must be planned from the round trips the
// checks see: a correct target passes, and a target that issues tokens beyond the quota still fails.
import { afterEach, describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createReference, type FaultName, type Listening } from "../../src/reference/index.ts";
import { planRun, runPlan, systemClock } from "../../src/runner/index.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";
import { startRemoteLink } from "../support/remote-link.ts";
import { testSeed } from "./embedded-run.ts";

const CHECKS = [
  "token-quota/distinct-tokens-up-to-max",
  "token-quota/raised-quota-applies",
  "token-quota/parallel-requests-never-exceed",
  "token-quota/validity-from-client-configuration",
];

/** The link's delay each way: with the quota client's 2 s tokens (1 s active for certain) a burst of a quota's
 *  worth of token requests outlasts them. */
const LATENCY_MS = 75;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function run(ids: string[], faults: FaultName[] = []) {
  const listening: Listening = await createReference({ faults }).listen({ host: "127.0.0.1", port: 0 });
  open.push(listening);
  // Only slow: no rate limit, no refusal, no dropped connection.
  const link = await startRemoteLink({
    upstream: listening.baseUrl,
    seed: 1,
    latencyMs: { mean: LATENCY_MS, spread: 0 },
    gatewayRate: 1000,
    spurious429: 0,
    dropGet: 0,
  });
  open.push(link);
  const target: Target = {
    ...embeddedTargetDescription(),
    name: "reference",
    baseUrl: link.url,
    rdmUrl: link.url,
  };
  const plan = planRun(allChecks, { target, ids, drivableClock: false });
  const result = await runPlan(plan, {
    fetch: (request) => fetch(request),
    clock: systemClock(),
    seed: testSeed,
    runs: 2,
  });
  return Object.fromEntries(
    result.checks.map((c) => [c.id, `${c.status}${c.status === "passed" ? "" : `: ${c.message ?? ""}`}`]),
  );
}

describe("real-time token-quota checks on a target that answers slowly", () => {
  it("pass a correct target", { timeout: 180_000 }, async () => {
    expect(await run(CHECKS)).toEqual(Object.fromEntries(CHECKS.map((id) => [id, "passed"])));
  });

  it("still fail a target that issues tokens beyond the quota", { timeout: 120_000 }, async () => {
    const outcome = await run(["token-quota/raised-quota-applies"], ["quota-not-enforced"]);
    expect(outcome["token-quota/raised-quota-applies"]).toMatch(/^failed: expected a limit-exceeded refusal/);
  });
});
