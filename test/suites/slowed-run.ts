// One check of the suites against the reference on a real port and the wall clock, through a fetch that
// delays the requests `slow` picks: how a real-time check behaves where one kind of request is slower than
// another (shared by slow-token-endpoint.test.ts and slow-reads-default-quota.test.ts).
import type { Target } from "../../src/check/index.ts";
import { createReference, type FaultName, type Listening } from "../../src/reference/index.ts";
import { planRun, runPlan, systemClock } from "../../src/runner/index.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

/** Listening references to close after each test (afterEach). */
export const openReferences: Listening[] = [];

export async function runSlowed(
  checkId: string,
  slow: { delayMs: number; picks: (url: URL) => boolean },
  faults: FaultName[] = [],
) {
  const listening = await createReference({ faults }).listen({ host: "127.0.0.1", port: 0 });
  openReferences.push(listening);
  const target: Target = {
    ...embeddedTargetDescription(),
    name: "reference",
    baseUrl: listening.baseUrl,
    rdmUrl: listening.rdmUrl,
  };
  let slowed = 0;
  const slowFetch = async (request: Request) => {
    if (slow.picks(new URL(request.url))) {
      slowed++;
      await new Promise((resolve) => setTimeout(resolve, slow.delayMs));
    }
    return fetch(request);
  };
  const plan = planRun(allChecks, { target, ids: [checkId], drivableClock: false });
  const result = await runPlan(plan, { fetch: slowFetch, clock: systemClock(), seed: testSeed, runs: 2 });
  const check = result.checks.find((c) => c.id === checkId);
  return { status: check?.status, message: check?.message ?? check?.reason ?? "", slowed };
}
