// ctx.ownExchangesOf: the exchanges a check sent while a piece of its work ran, exactly those: not the
// ones it sent before or after, whatever the run's log holds besides (other checks' exchanges).
import { describe, expect, it } from "vitest";
import type { Exchange } from "../../src/check/index.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { check, fakeFetch, fakeTarget } from "./fake-target.ts";

const pathsOf = (exchanges: readonly Exchange[]) => exchanges.map((x) => new URL(x.request.url).pathname);

describe("ctx.ownExchangesOf", () => {
  it("gives the work's value and the exchanges the check sent while it ran, in order", async () => {
    const seen: { value?: string; own?: string[]; log?: string[] } = {};
    const base = fakeTarget().baseUrl;
    const checks = [
      check("service/other", async (ctx) => {
        await ctx.fetch(`${base}/other-check`);
      }),
      check("service/sender", async (ctx) => {
        await ctx.fetch(`${base}/before`);
        const own = await ctx.ownExchangesOf?.(async () => {
          await ctx.fetch(`${base}/first`);
          await ctx.fetch(`${base}/second`);
          return "done";
        });
        await ctx.fetch(`${base}/after`);
        seen.value = own?.value;
        seen.own = pathsOf(own?.exchanges ?? []);
        seen.log = pathsOf(ctx.exchanges());
      }),
    ];
    const result = await runPlan(planRun(checks, { target: fakeTarget() }), {
      fetch: fakeFetch,
      clock: { now: () => Date.now(), sleep: async () => {} },
      seed: 1,
      runs: 1,
    });
    expect(result.checks.map((c) => c.status)).toEqual(["passed", "passed"]);
    expect(seen.value).toBe("done");
    expect(seen.own).toEqual(["/first", "/second"]);
    // The run's log holds the other check's exchange and this one's before and after: none of them is its.
    expect(seen.log).toEqual(expect.arrayContaining(["/other-check", "/before", "/first", "/second"]));
  });
});
