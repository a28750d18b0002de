// Tolerance under seeded random combinations of variants (one choice or none per open point), and power
// under them: a sample of seeded faults, at least one per suite, is still caught with variants on.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import { FAULTS, type FaultName, faultEntry } from "../../src/reference/faults.ts";
import type { VariantName } from "../../src/reference/variants.ts";
import { allChecks } from "../../suites/index.ts";
import { describeProblems, randomCombination, runWithVariants } from "./variants-matrix.ts";

const COMBINATION_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe("every suite accepts random combinations of variants", () => {
  it.each(COMBINATION_SEEDS.map((seed) => [seed, randomCombination(seed)] as const))(
    "seed %i: %j",
    async (_seed, variants) => {
      expect(variants.length).toBeGreaterThan(3);
      const { verdictProblems } = await runWithVariants(variants, { runs: 3 });
      expect(describeProblems(verdictProblems)).toEqual([]);
    },
  );
});

const levelOf = new Map(allChecks.map((c) => [c.id, c.level]));
const suiteOf = (id: string) => id.split("/")[0] as string;

/**
 * One fault per suite (the first fault whose expectations name a MUST check of it), and the variants that
 * would make the fault's behaviour a legal choice: those stay off in its combination.
 */
/** Variants that leave the kit less to observe: a customer answered without a body cannot be read back,
 *  so the checks that must restore it skip. They hide faults by design; the fault sample runs without them. */
const BLINDING: readonly VariantName[] = ["customer-answer-no-body"];

const NEUTRALISED_BY: Partial<Record<FaultName, readonly VariantName[]>> = {
  "raw-scroll-id-refused": ["scroll-id-object-only", "scroll-id-json-string-only"],
  "limit-over-100-accepted-silently": ["lookup-scan-limit-unbounded", "limit-above-max-clamped"],
  "put-merges": ["put-customer-merges"],
  "grant-in-query-refused": ["grant-type-in-query-refused"],
  // Lean records leave out updateDate, the field the fault garbles.
  "lookup-record-field-wrong-type": ["lean-records"],
};

/** Faults whose rule sits next to a variant's choice (end signal, quota refusal, tenant lists, token
 *  validity, delete task): sampled besides the one per suite. */
const NEAR_VARIANTS: readonly FaultName[] = [
  "scan-never-ends",
  "unknown-scroll-id-restarts",
  "quota-not-enforced",
  "cross-tenant-read",
  "delete-by-uris-removes-more",
  "token-validity-ignored",
  "multitoken-needs-quota-value",
];

function sampleFaults(): FaultName[] {
  const picked = new Map<string, FaultName>();
  for (const fault of FAULTS) {
    for (const id of fault.caughtBy) {
      const suite = suiteOf(id);
      if (levelOf.get(id) === "MUST" && !picked.has(suite)) picked.set(suite, fault.name);
    }
  }
  return [...new Set([...picked.values(), ...NEAR_VARIANTS])];
}

describe("seeded faults are still caught under random variant combinations", () => {
  const sample = sampleFaults();

  it("samples a fault for every suite that has MUST checks proven by faults", () => {
    const suites = new Set(
      sample.flatMap((f) =>
        faultEntry(f)
          .caughtBy.filter((id) => levelOf.get(id) === "MUST")
          .map(suiteOf),
      ),
    );
    const withMust = new Set(allChecks.filter((c) => c.level === "MUST").map((c) => c.suite));
    expect([...withMust].filter((s) => !suites.has(s))).toEqual([]);
  });

  it.each(
    sample.map((fault, i) => [
      fault,
      randomCombination(100 + i, new Set([...BLINDING, ...(NEUTRALISED_BY[fault] ?? [])])),
    ]),
  )("%s under %j", async (fault, variants) => {
    const expected = faultEntry(fault as FaultName).caughtBy;
    const must = expected.filter((id) => levelOf.get(id) === "MUST");
    const suites = [...new Set([...expected.map(suiteOf), "service"])];
    const { failedIds, result } = await runWithVariants(variants as VariantName[], {
      faults: [fault as string],
      suites,
      runs: 5,
    });
    // Caught at MUST level where the fault is without variants; else by any of its checks.
    const judges = must.length > 0 ? must : expected;
    const caught = judges.filter((id) => failedIds.has(id));
    expect(
      caught.length,
      `none of ${judges.join(", ")} failed; not passed: ${result.checks
        .filter((c) => c.status !== "passed")
        .map((c) => `${c.status} ${c.id}`)
        .join(", ")}`,
    ).toBeGreaterThan(0);
  });
});
