// The same power against a live target: a sample of seeded faults, one or two per suite, served on a
// loopback port with the reference's real clock and certified the way a user certifies a deployment
// (clock not drivable, the read and token lanes overlapping). Each run selects the suite of the fault
// minus the checks that wait on token validity (the embedded fault tests cover those; they would cost a
// minute here), and must fail exactly the checks the fault names in caughtBy among those selected.
import { describe, expect, it } from "vitest";
import type { Check, Target } from "../../src/check/index.ts";
import { type FaultName, faultEntry } from "../../src/reference/faults.ts";
import { createReference } from "../../src/reference/index.ts";
import { planRun, runPlan, systemClock } from "../../src/runner/index.ts";
import { waitsOnTokens } from "../../src/runner/plan.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

function servedTarget(baseUrl: string, rdmUrl: string): Target {
  return {
    ...embeddedTargetDescription(),
    name: "reference with a seeded fault served on loopback",
    baseUrl,
    rdmUrl,
  };
}

/** Checks whose live run waits on token validity for seconds; the named ones are quick enough to keep. */
const quick = (check: Check, keep: readonly string[]) => !waitsOnTokens(check) || keep.includes(check.id);

const sample: [FaultName, string, readonly string[]][] = [
  ["scan-loses-record-at-page-boundary", "lookup-scan", []],
  ["scan-ignores-order", "lookup-scan", []],
  ["scan-exceeds-limit", "autopilot-scan", []],
  ["autopilot-type-scan-returns-other-types", "autopilot-scan", []],
  ["blocked-values-offset-ignored", "blocked-values", []],
  ["delete-by-uris-removes-more", "delete-task", []],
  ["delete-task-follows-foreign-uris", "delete-task", []],
  ["cross-tenant-read", "auth", []],
  // In real time the expired token is the quota client's, waited out once and sent to every endpoint.
  [
    "expired-token-accepted-outside-lookups",
    "auth",
    ["auth/expired-token-refused", "auth/expired-token-401"],
  ],
  ["healthcheck-not-ok", "service", []],
  [
    "quota-0-accepted",
    "token-quota",
    ["token-quota/max-below-1-refused", "token-quota/max-above-200-refused"],
  ],
  // The 201-token burst in real time, which leaves its tokens for the next session to wait out.
  ["quota-off-by-one", "token-quota", ["token-quota/default-quota-200"]],
  // A quota of 1 refuses the first token: the kit asks the target which token holds the slot (none), so
  // the refusal is a failure, not a token from before the run.
  [
    "quota-refused-early",
    "token-quota",
    ["token-quota/distinct-tokens-up-to-max", "token-quota/refusal-429", "token-quota/raised-quota-applies"],
  ],
];

describe("seeded faults are caught against a live target", () => {
  it.each(sample)("%s (suite %s)", { timeout: 60_000 }, async (fault, suite, keep) => {
    const listening = await createReference({ faults: [fault] }).listen({ host: "127.0.0.1", port: 0 });
    try {
      const checks = allChecks.filter((check) => check.suite === suite && quick(check, keep));
      const plan = planRun(checks, {
        target: servedTarget(listening.baseUrl, listening.rdmUrl),
        drivableClock: false,
      });
      const result = await runPlan(plan, {
        fetch: (r) => fetch(r),
        clock: systemClock(),
        seed: testSeed,
        runs: 3,
      });
      const selected = new Set(checks.map((check) => check.id));
      const expected = faultEntry(fault).caughtBy.filter((id) => selected.has(id));
      expect(expected.length).toBeGreaterThan(0);
      // An undecided check is shown too: a fault the kit cannot decide never passes for caught.
      const findings = result.checks.filter((c) => c.status !== "passed" && c.status !== "skipped");
      const why = findings.map((c) => `${c.id}: ${c.message ?? c.reason ?? ""}`).join("\n");
      expect(findings.map((c) => `${c.status} ${c.id}`).sort(), why).toEqual(
        expected.map((id) => `failed ${id}`).sort(),
      );
    } finally {
      await listening.close();
    }
  });
});
