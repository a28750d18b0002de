// Tolerance of the explorer: each variant of the reference (a correct choice where the document is
// silent) at three seeds gets no MUST failure, broken or undecided check from it: seeds 2 and 3 here, seed 1
// in variants*.test.ts's run of every suite, which holds the explorer's checks. This file runs the
// variants at odd positions of the matrix, explore-variants.test.ts the others.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import { explorerProblems } from "./explore-run.ts";
import { matrixHalf } from "./variants-matrix.ts";

describe("the explorer accepts each variant (odd positions)", () => {
  it.each(matrixHalf(1).map((name) => [name]))("%s, seeds 2 and 3", async (name) => {
    expect(await explorerProblems([name], [2, 3])).toEqual([]);
  });
});
