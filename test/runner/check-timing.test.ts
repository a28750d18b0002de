// What the runner records of a check's time for the report's timeline: when it began after the run began,
// and each real wait it asked for (when, after the check began, and how long); a drivable clock waits for
// nothing and records no wait.
import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/check/index.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { check, fakeFetch, fakeTarget } from "./fake-target.ts";

const checks = () => [
  check("service/first", async (ctx) => {
    await ctx.clock.sleep(40);
    await ctx.clock.sleep(25);
  }),
  check("service/second", async () => {}),
];

describe("check timing", () => {
  it("records start times and real waits", async () => {
    // A real clock (not drivable) whose waits take a few real milliseconds.
    const clock: Clock = {
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 5))),
    };
    const result = await runPlan(planRun(checks(), { target: fakeTarget() }), {
      fetch: fakeFetch,
      clock,
      seed: 1,
      runs: 1,
    });
    const [first, second] = result.checks;
    expect(first?.waitMs).toBe(65);
    expect(first?.waits?.map((w) => w.ms)).toEqual([40, 25]);
    const [w1, w2] = first?.waits ?? [];
    expect(w1?.atMs).toBeGreaterThanOrEqual(0);
    expect(w2?.atMs).toBeGreaterThanOrEqual(w1?.atMs ?? 0);
    expect(first?.startedMs).toBeGreaterThanOrEqual(0);
    expect(second?.startedMs).toBeGreaterThanOrEqual((first?.startedMs ?? 0) + (first?.durationMs ?? 0) - 1);
    expect(second?.waits).toBeUndefined();
  });

  it("records no wait where the clock is driven", async () => {
    let now = 0;
    const clock: Clock = {
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
      advance: (ms) => {
        now += ms;
      },
    };
    const result = await runPlan(planRun(checks(), { target: fakeTarget(), drivableClock: true }), {
      fetch: fakeFetch,
      clock,
      seed: 1,
      runs: 1,
    });
    expect(result.checks.map((c) => [c.waits, c.waitMs, c.lane])).toEqual([
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
    expect(result.checks.every((c) => (c.startedMs ?? -1) >= 0)).toBe(true);
  });
});
