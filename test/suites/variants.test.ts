// Tolerance: every suite against every single variant of the reference (a correct implementation that
// chooses differently where the document is silent) ends with no MUST failure and no broken check.
import { describe, expect, it } from "vitest";
import { VARIANTS } from "../../src/reference/variants.ts";
import { describeProblems, MATRIX_VARIANTS, PENDING, runWithVariants } from "./variants-matrix.ts";

describe("the tolerance matrix", () => {
  it("lists every variant, or names why it is left out", () => {
    for (const v of VARIANTS) {
      expect(MATRIX_VARIANTS.includes(v.name) || (PENDING[v.name] ?? "").length > 0, v.name).toBe(true);
    }
  });
});

describe("every suite accepts each single variant", () => {
  it.each(MATRIX_VARIANTS.map((name) => [name]))("%s", async (name) => {
    const { verdictProblems, result } = await runWithVariants([name], { runs: 1 });
    expect(result.checks.length).toBeGreaterThan(50);
    expect(describeProblems(verdictProblems)).toEqual([]);
  });
});
