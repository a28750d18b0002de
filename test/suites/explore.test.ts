// The explorer (suites/explore.ts) alone against the embedded reference: it passes the reference, says
// what it did, and catches each seeded fault of a sequence it was built for, naming the rule's
// requirement, with a shrunk, replayable counterexample. Its tolerance: explore-variants*.test.ts.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import type { Check } from "../../src/check/index.ts";
import { exploreChecks } from "../../suites/explore.ts";
import { explore } from "./explore-run.ts";

describe("the explorer against the reference", () => {
  it("passes, and says what it did per check", async () => {
    const byId = await explore();
    for (const id of ["explore/reads", "explore/after-delete"]) {
      const check = byId.get(id);
      expect(check?.status, `${id}: ${check?.message ?? ""}`).toBe("passed");
    }
    const explored = byId.get("explore/reads")?.explored ?? {};
    expect(explored["explorer sequences"]?.[0]).toMatch(
      /^reads: \d+ sequences?, \d+ operations, \d+ requests$/,
    );
    expect(explored.continuation).toEqual(
      expect.arrayContaining(["another client", "another lookup type's path", "another tenant's path"]),
    );
    for (const requirement of [
      "SCAN-03",
      "SCAN-04",
      "SCAN-07",
      "AUTOPILOT-02",
      "AUTH-ROLES-04",
      "BLOCKED-05",
    ])
      expect(explored[`invariants judged: ${requirement}`]?.length, requirement).toBeGreaterThan(0);
    expect(byId.get("explore/after-delete")?.explored?.["delete task"]?.length).toBeGreaterThan(1);
  });
});

describe("the explorer at --depth deep", () => {
  it("passes the reference and explores more than at the default depth", async () => {
    const requests = (byId: Map<string, { explored?: Record<string, string[]> }>) =>
      Number(
        /(\d+) requests$/.exec(byId.get("explore/reads")?.explored?.["explorer sequences"]?.[0] ?? "")?.[1],
      );
    const [plain, deep] = [await explore(), await explore({ depth: "deep" })];
    for (const check of deep.values())
      expect(check.status, `${check.id}: ${check.message ?? ""}`).toBe("passed");
    expect(requests(deep)).toBeGreaterThan(2 * requests(plain));
  });
});

describe("the explorer catches the faults of sequences", () => {
  it.each([
    ["filter-equals-matches-missing-field", "SCAN-07"],
    ["scan-opening-closes-other-scrolls", "SCAN-03"],
    ["scroll-id-continues-on-any-path", "AUTOPILOT-02|AUTH-ROLES-04"],
    // The side-by-side sequence tried first (issue 43's audit) catches these two.
    ["scan-opening-closes-indexed-scrolls", "SCAN-03"],
    ["type-scroll-id-continues-on-other-type", "AUTOPILOT-02"],
  ])("%s: explore/reads fails naming %s, with a replayable counterexample", async (fault, rule) => {
    const check = (await explore({ faults: [fault], checks: [exploreChecks[0] as Check] })).get(
      "explore/reads",
    );
    expect(check?.status).toBe("failed");
    expect(check?.message).toMatch(new RegExp(`^(${rule}): `));
    expect(check?.counterexample?.replay).toContain("--path");
    expect(check?.details?.expected).toContain("after the steps");
    // --path replays the shrunk sequence as it was shown: the same failure, at the same step.
    const path = check?.counterexample?.path ?? "";
    const replayed = (
      await explore({ faults: [fault], checks: [exploreChecks[0] as Check], replayPath: path })
    ).get("explore/reads");
    expect(replayed?.message).toBe(check?.message);
  });
});
