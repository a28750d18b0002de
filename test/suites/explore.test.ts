// The explorer (suites/explore.ts) alone against the embedded reference: it passes the reference, catches
// each seeded fault of a sequence it was built for, naming the rule's requirement, with a replayable
// counterexample, and gets no MUST failure from any variant (a correct choice) at three seeds.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import type { Check, Depth } from "../../src/check/index.ts";
import type { CheckResult } from "../../src/result/model.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { exploreChecks } from "../../suites/explore.ts";
import { MATRIX_VARIANTS } from "./variants-matrix.ts";

async function explore(
  options: { faults?: string[]; variants?: string[]; seed?: number; depth?: Depth; checks?: Check[] } = {},
): Promise<Map<string, CheckResult>> {
  const embedded = await startEmbeddedTarget({
    faults: options.faults ?? [],
    variants: options.variants ?? [],
  });
  const plan = planRun(options.checks ?? exploreChecks, { target: embedded.target, drivableClock: true });
  const result = await runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: options.seed ?? 42,
    runs: 10,
    ...(options.depth ? { depth: options.depth } : {}),
  });
  return new Map(result.checks.map((c) => [c.id, c]));
}

describe("the explorer against the reference", () => {
  it("passes, and says what it did per check", async () => {
    const byId = await explore();
    for (const id of ["explore/reads", "explore/after-delete"]) {
      const check = byId.get(id);
      expect(check?.status, `${id}: ${check?.message ?? ""}`).toBe("passed");
    }
    const explored = byId.get("explore/reads")?.explored ?? {};
    expect(explored["explorer sequences"]?.[0]).toMatch(/^\d+ sequences, \d+ operations, \d+ requests$/);
    expect(explored.continuation).toEqual(
      expect.arrayContaining(["another client", "another lookup type's path", "another tenant's path"]),
    );
    expect(explored["invariant judged"]?.length).toBeGreaterThan(5);
    expect(byId.get("explore/after-delete")?.explored?.["delete task"]?.length).toBeGreaterThan(1);
  });
});

describe("the explorer catches the faults of sequences", () => {
  it.each([
    ["filter-equals-matches-missing-field", "SCAN-07"],
    ["scan-opening-closes-other-scrolls", "SCAN-03"],
    ["scroll-id-continues-on-any-path", "AUTOPILOT-02|AUTH-ROLES-04"],
  ])("%s: explore/reads fails naming %s, with a replayable counterexample", async (fault, rule) => {
    const check = (await explore({ faults: [fault], checks: [exploreChecks[0] as Check] })).get(
      "explore/reads",
    );
    expect(check?.status).toBe("failed");
    expect(check?.message).toMatch(new RegExp(`^(${rule}): `));
    expect(check?.counterexample?.replay).toContain("--path");
    expect(check?.details?.expected).toContain("after the steps");
  });
});

describe("the explorer accepts every variant (a correct choice)", () => {
  it.each(MATRIX_VARIANTS.map((name) => [name]))("%s, seeds 1, 2, 3", async (name) => {
    for (const seed of [1, 2, 3]) {
      const byId = await explore({ variants: [name], seed });
      const wrong = [...byId.values()].filter(
        (c) =>
          c.status === "broken" ||
          (c.level === "MUST" && c.status === "failed") ||
          c.status === "inconclusive",
      );
      expect(wrong.map((c) => `seed ${seed} ${c.status} ${c.id}: ${c.message ?? ""}`)).toEqual([]);
    }
  });
});
