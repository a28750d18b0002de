// Against a target the kit knows nothing about (lenient profile, "auto" detection) and cannot drive the
// clock of, every check passes: the real-time paths (short validity, sleeps) and the detection probes
// accept the reference. The embedded reference stands in for such a target (live-clock.test.ts waits for
// real against the served reference).
import { describe, expect, it } from "vitest";
import { lenientProfile, planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

describe("suites with the lenient profile and a clock the kit cannot drive", () => {
  it("pass, none skipped", async () => {
    const embedded = await startEmbeddedTarget();
    const target = { ...embedded.target, profile: { ...lenientProfile } };
    // Sleeping still moves the reference's manual clock; the kit just cannot jump it.
    const clock = { now: embedded.clock.now, sleep: embedded.clock.sleep };
    const plan = planRun(allChecks, { target, drivableClock: false });
    const result = await runPlan(plan, { target, fetch: embedded.fetch, clock, seed: testSeed, runs: 5 });
    const notPassed = result.checks.filter((check) => check.status !== "passed");
    expect(notPassed.map((c) => `${c.status} ${c.id}: ${c.message ?? c.reason ?? ""}`)).toEqual([]);
  });
});
