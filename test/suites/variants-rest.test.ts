// Tolerance, the other half of the single variants (variants.test.ts runs the first): every suite against
// each variant ends with no MUST failure and no broken check.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import { describeProblems, matrixHalf, runWithVariants } from "./variants-matrix.ts";

describe("every suite accepts each single variant (odd positions)", () => {
  it.each(matrixHalf(1).map((name) => [name]))("%s", async (name) => {
    const { verdictProblems, result } = await runWithVariants([name], { runs: 1 });
    expect(result.checks.length).toBeGreaterThan(50);
    expect(describeProblems(verdictProblems)).toEqual([]);
  });
});
