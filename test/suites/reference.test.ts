// Every check passes against the correct reference: a kit that fails a correct implementation is broken.
import { describe, expect, it } from "vitest";
import { allChecks } from "../../suites/index.ts";
import { describeNotPassed, runEmbedded } from "./embedded-run.ts";

describe("suites against the embedded reference", () => {
  it("passes every check, skipping none", async () => {
    const { result } = await runEmbedded({ runs: 10 });
    expect(describeNotPassed(result)).toBe("");
    expect(result.checks.map((check) => check.id).sort()).toEqual(allChecks.map((check) => check.id).sort());
    expect(result.verdict).toBe("CONFORMANT");
  });
});
