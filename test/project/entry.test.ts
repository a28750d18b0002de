// The public entry point re-exports the kit's parts; a broken re-export or a renamed part fails here.
import { describe, expect, it } from "vitest";
import * as kit from "../../src/index.ts";

describe("public entry point (src/index.ts)", () => {
  it.each([
    "loadContract",
    "loadCatalogue",
    "planRun",
    "runPlan",
    "startEmbeddedTarget",
    "loadTargetFile",
    "writeReport",
    "createClient",
    "createReference",
    "startMock",
    "checkStream",
    "verifyPacts",
    "checkPactFiles",
    "exitCodeOf",
    "findingsOf",
  ])("exports the function %s", (name) => {
    expect(typeof (kit as Record<string, unknown>)[name]).toBe("function");
  });

  it("exports the base of every error the user can fix, which a usage error is too", () => {
    expect(new kit.UsageError("--x expects a number")).toBeInstanceOf(kit.UserInputError);
    expect(new kit.UserInputError("no such file")).not.toBeInstanceOf(kit.UsageError);
  });

  it("exports every check with a unique id", () => {
    const ids = kit.allChecks.map((check) => check.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(50);
  });

  it("certifies the embedded reference through the public API alone", async () => {
    const embedded = await kit.startEmbeddedTarget();
    const plan = kit.planRun(kit.allChecks, { target: embedded.target, suites: ["service"] });
    const result = await kit.runPlan(plan, {
      fetch: embedded.fetch,
      clock: embedded.clock,
      seed: 1,
      runs: 1,
    });
    // One suite is a selection: never a conformance claim, so the verdict is PASSED (subset).
    expect(result.verdict).toBe("PASSED (subset)");
    expect(result.checks.filter((check) => check.status === "passed").length).toBeGreaterThan(2);
  });
});
