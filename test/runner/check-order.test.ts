// A verdict must not depend on which check ran first (issue 43): the whole kit against the embedded
// reference, in the suites' order and in orders drawn from several order seeds, gets the same status per
// check. Each run has a reference of its own, so nothing carries over but what the checks leave behind.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { planRun, referenceProfile, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { planRank } from "../../src/runner/plan.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "../suites/embedded-run.ts";

async function statusesInOrder(orderSeed: number | undefined) {
  const embedded = await startEmbeddedTarget({});
  const plan = planRun(allChecks, {
    target: embedded.target,
    drivableClock: true,
    ...(orderSeed === undefined ? {} : { orderSeed }),
  });
  const result = await runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: testSeed,
    runs: 5,
  });
  return {
    order: plan.entries.map((e) => e.check.id),
    statuses: Object.fromEntries(result.checks.map((c) => [c.id, c.status])),
    verdict: result.verdict,
  };
}

describe("the order of the checks", () => {
  it("changes with the order seed, and the status of every check stays the same", async () => {
    const given = await statusesInOrder(undefined);
    for (const orderSeed of [1, 7, 2026]) {
      const drawn = await statusesInOrder(orderSeed);
      expect(drawn.order, `order seed ${orderSeed}`).not.toEqual(given.order);
      expect([...drawn.order].sort()).toEqual([...given.order].sort());
      expect(drawn.statuses, `order seed ${orderSeed}`).toEqual(given.statuses);
      expect(drawn.verdict).toBe(given.verdict);
    }
    expect(given.verdict).toBe("CONFORMANT");
  }, 240_000);

  it("keeps destructive checks after the others, the one that empties the tenant after them, and the checks that read the others' traffic last", () => {
    const target = planTarget();
    expect(allChecks.filter((check) => check.emptiesTenant === true).map((check) => check.id)).toEqual([
      "delete-task/all-of-tenant",
    ]);
    for (const orderSeed of [1, 7, 2026]) {
      const ranks = planRun(allChecks, { target, drivableClock: true, orderSeed }).entries.map((e) =>
        planRank(e.check),
      );
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      expect(new Set(ranks)).toEqual(new Set([0, 1, 2, 3]));
    }
  });
});

function planTarget(): Target {
  return {
    profile: { ...referenceProfile },
    name: "plan only",
    baseUrl: "http://reference.test",
    rdmUrl: "http://reference.test",
    tenant: "acme",
    credentials: {},
    loopback: true,
    disposable: true,
  };
}
