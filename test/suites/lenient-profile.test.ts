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
    // Time moves as on a live target, where the waits of checks running side by side in lanes overlap: a
    // sleep registers when it ends, and the earliest registered end is reached first (the clock moved to
    // it), once the work already queued has run. A manual clock moved by each sleep as it starts would put
    // one lane's long wait inside another lane's short token validity.
    const sleepers: { at: number; wake: () => void }[] = [];
    const wakeEarliest = () => {
      const next = sleepers.reduce<(typeof sleepers)[number] | undefined>(
        (min, s) => (min === undefined || s.at < min.at ? s : min),
        undefined,
      );
      if (next === undefined) return;
      sleepers.splice(sleepers.indexOf(next), 1);
      const lag = next.at - embedded.clock.now();
      if (lag > 0) embedded.clock.advance(lag);
      next.wake();
    };
    const clock = {
      now: () => embedded.clock.now(),
      sleep: (ms: number) =>
        new Promise<void>((wake) => {
          sleepers.push({ at: embedded.clock.now() + Math.max(0, ms), wake });
          setTimeout(wakeEarliest, 2);
        }),
    };
    try {
      const plan = planRun(allChecks, { target, drivableClock: false });
      const result = await runPlan(plan, { target, fetch: embedded.fetch, clock, seed: testSeed, runs: 5 });
      const notPassed = result.checks.filter((check) => check.status !== "passed");
      expect(notPassed.map((c) => `${c.status} ${c.id}: ${c.message ?? c.reason ?? ""}`)).toEqual([]);
    } finally {
      for (const s of sleepers.splice(0)) s.wake();
    }
  }, 120_000);
});
