// Tolerance of the explorer: each variant of the reference (a correct choice where the document is
// silent) at three seeds gets no MUST failure, broken or undecided check from it. This file runs the
// variants at odd positions of the matrix, explore-variants.test.ts the others.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import { explorerProblems } from "./explore-run.ts";
import { matrixHalf } from "./variants-matrix.ts";

describe("the explorer accepts each variant (odd positions)", () => {
  it.each(matrixHalf(1).map((name) => [name]))("%s, seeds 1, 2 and 3", async (name) => {
    expect(await explorerProblems([name], [1, 2, 3])).toEqual([]);
  });
});
