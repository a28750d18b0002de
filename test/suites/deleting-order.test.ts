// The checks that delete lookups (the explorer's and delete-task/*) each delete a share of the tenant's
// lookups of their own (suites/support/deleting-shares.ts): run in two different orders against the
// embedded reference with a fault, every check gets the same verdict.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

const deleting = allChecks.filter((c) => c.suite === "delete-task" || c.id === "explore/after-delete");

async function runInOrder(fault: string | undefined, orderSeed: number) {
  const embedded = await startEmbeddedTarget({ faults: fault ? [fault] : [] });
  const plan = planRun(deleting, { target: embedded.target, drivableClock: true, orderSeed });
  const result = await runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: testSeed,
    runs: 10,
  });
  const destructive = plan.entries.filter((e) => e.check.safety === "destructive").map((e) => e.check.id);
  return { order: destructive, verdicts: result.checks.map((c) => `${c.id} ${c.status}`).sort() };
}

describe("the deleting checks' verdicts do not depend on their order", () => {
  // Two order seeds that put the explorer and delete-task/by-uris, by-type and foreign-uris in different
  // orders (the test asserts they differ).
  const seeds = [1, 7] as const;

  it.each([
    ["no fault", undefined],
    ["delete-by-uris-removes-more", "delete-by-uris-removes-more"],
    ["delete-touches-other-tenant", "delete-touches-other-tenant"],
    ["delete-task-follows-foreign-uris", "delete-task-follows-foreign-uris"],
    ["editor-task-follows-foreign-uris", "editor-task-follows-foreign-uris"],
    ["deleted-lookups-come-back", "deleted-lookups-come-back"],
    ["deleted-type-still-matches-by-name", "deleted-type-still-matches-by-name"],
    ["delete-by-type-first-page-only", "delete-by-type-first-page-only"],
  ])(
    "%s: the same verdict per check in both orders",
    async (_, fault) => {
      const [first, second] = [await runInOrder(fault, seeds[0]), await runInOrder(fault, seeds[1])];
      expect(first.order).not.toEqual(second.order);
      expect(second.verdicts).toEqual(first.verdicts);
      if (fault === undefined) expect(first.verdicts.filter((v) => !v.endsWith(" passed"))).toEqual([]);
      else expect(first.verdicts.some((v) => v.endsWith(" failed"))).toBe(true);
    },
    120_000,
  );

  // A task by type that removes every type leaves nothing for the deleting checks after the first one that
  // deletes by type: which check catches it depends on which ran first. A check whose data is gone judges
  // nothing (inconclusive): no check fails in one order and passes in the other.
  it("delete-by-type-removes-other-types: no check fails in one order and passes in the other", async () => {
    const fault = "delete-by-type-removes-other-types";
    const [first, second] = [await runInOrder(fault, seeds[0]), await runInOrder(fault, seeds[1])];
    const statusOf = (verdicts: string[], id: string) =>
      verdicts.find((v) => v.startsWith(`${id} `))?.split(" ")[1];
    for (const verdict of first.verdicts) {
      const [id, status] = verdict.split(" ") as [string, string];
      const other = statusOf(second.verdicts, id);
      if (status !== other) expect([status, other], id).toContain("inconclusive");
    }
    expect(first.verdicts.some((v) => v.endsWith(" failed"))).toBe(true);
    expect(second.verdicts.some((v) => v.endsWith(" failed"))).toBe(true);
  }, 120_000);
});
