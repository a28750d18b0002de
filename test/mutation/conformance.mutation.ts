// The conformance suites as a mutation-testing oracle: every MUST check runs alone against a fresh
// embedded reference and must pass. Stryker (npm run mutation) mutates the reference's rule code and
// counts a mutant killed when some MUST check does not pass on it (fails, breaks, is undecided or skips).
// One test per check, so Stryker's per-test coverage runs only the checks that reach a mutant. Not part of
// `npm test` (the suite tests already certify the unmutated reference); run by
// test/mutation/vitest.config.ts only.
import { describe, expect, it } from "vitest";
import type { Level } from "../../src/check/index.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";

/** LCKIT_MUTATION_LEVEL=SHOULD also lets SHOULD checks kill mutants (the kit's own choices). */
const lowest: Level = process.env.LCKIT_MUTATION_LEVEL === "SHOULD" ? "SHOULD" : "MUST";
const oracle = allChecks.filter((check) => check.level === "MUST" || check.level === lowest);

describe("conformance suites against the reference (mutation oracle)", () => {
  it.each(oracle.map((check) => [`${check.level} ${check.id}`, check.id] as const))(
    "%s passes",
    async (_name, id) => {
      const embedded = await startEmbeddedTarget();
      const plan = planRun(allChecks, { target: embedded.target, ids: [id], drivableClock: true });
      const result = await runPlan(plan, {
        fetch: embedded.fetch,
        clock: embedded.clock,
        seed: 7,
        runs: 5,
        checkTimeoutMs: 20_000,
      });
      // Every check passes alone on the reference; a mutant that leaves it undecided or unable to run
      // turns a CONFORMANT verdict into INCOMPLETE, which a user sees as surely as a failure. Alone, a
      // schema check of an operation only other suites send has nothing to read and skips.
      const notPassed = result.checks.filter(
        (check) => check.status !== "passed" && !(check.status === "skipped" && check.suite === "schema"),
      );
      expect(notPassed.map((check) => `${check.status} ${check.id}: ${check.message ?? ""}`)).toEqual([]);
      expect(result.checks.map((check) => check.id)).toEqual([id]);
    },
  );
});
