// Against a target the kit knows nothing about (lenient profile, "auto" detection) and cannot drive the
// clock of, every check passes: the real-time paths (short validity, sleeps) and the detection probes
// accept the reference. The embedded reference stands in for such a target (live-clock.test.ts waits for
// real against the served reference).
import { describe, expect, it } from "vitest";
import { lenientProfile, planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

/** How much faster than the wall the reference's time runs here. */
const SPEED = 20;

describe("suites with the lenient profile and a clock the kit cannot drive", () => {
  it("pass, none skipped", async () => {
    const embedded = await startEmbeddedTarget();
    const target = { ...embedded.target, profile: { ...lenientProfile } };
    // Time runs by itself, as a live target's does, SPEED times faster than the wall: a sleep waits for it,
    // and the sleeps of checks running side by side in lanes overlap instead of adding up (a manual clock
    // moved by each sleep would put one lane's wait into another lane's token validity).
    const startedAt = Date.now();
    const start = embedded.clock.now();
    const sync = () => {
      const lag = start + SPEED * (Date.now() - startedAt) - embedded.clock.now();
      if (lag > 0) embedded.clock.advance(lag);
    };
    const ticker = setInterval(sync, 5);
    const clock = {
      now: () => {
        sync();
        return embedded.clock.now();
      },
      sleep: async (ms: number) => {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms) / SPEED));
        sync();
      },
    };
    try {
      const plan = planRun(allChecks, { target, drivableClock: false });
      const result = await runPlan(plan, { target, fetch: embedded.fetch, clock, seed: testSeed, runs: 5 });
      const notPassed = result.checks.filter((check) => check.status !== "passed");
      expect(notPassed.map((c) => `${c.status} ${c.id}: ${c.message ?? c.reason ?? ""}`)).toEqual([]);
    } finally {
      clearInterval(ticker);
    }
  }, 120_000);
});
