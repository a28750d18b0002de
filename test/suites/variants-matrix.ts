// The tolerance matrix: which reference variants every run must accept, random combinations of them, and
// a runner for the embedded reference with variants (and faults) switched on. Shared by variants*.test.ts.
import { VARIANTS, type VariantName, variantGroups } from "../../src/reference/variants.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";

/**
 * Variants left out of the matrix until the kit accepts them, each with the reason. Nothing is skipped
 * silently: a variant is either in the matrix or named here.
 */
export const PENDING: Partial<Record<VariantName, string>> = {};

export const MATRIX_VARIANTS: readonly VariantName[] = VARIANTS.map((v) => v.name).filter(
  (name) => PENDING[name] === undefined,
);

/** Half of the matrix variants (0: even positions, 1: odd ones; alternatives of one choice, which cost
 *  alike, fall into both), so two test files share the single-variant runs side by side on two cores. */
export function matrixHalf(half: 0 | 1): VariantName[] {
  return MATRIX_VARIANTS.filter((_, i) => i % 2 === half);
}

/** A small seeded generator (mulberry32): the same seed gives the same combinations on every machine. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One variant or none per group (alternatives exclude each other), each group on with probability 2/3. */
export function randomCombination(seed: number, exclude: ReadonlySet<string> = new Set()): VariantName[] {
  const next = random(seed);
  const chosen: VariantName[] = [];
  for (const [group, names] of variantGroups()) {
    const allowed = names.filter((n) => MATRIX_VARIANTS.includes(n) && !exclude.has(n));
    const draw = next();
    if (exclude.has(group) || allowed.length === 0 || draw >= 2 / 3) continue;
    chosen.push(allowed[Math.floor(next() * allowed.length)] as VariantName);
  }
  return chosen;
}

export interface VariantRun {
  result: RunResult;
  /** MUST failures and broken checks: what a correct variant must never get. */
  verdictProblems: CheckResult[];
  /** The explorer's checks that could not decide: on a correct variant on a driven clock, a problem too
   *  (explore-run.ts's explorerProblems asks the same of the explorer run alone). */
  explorerUndecided: CheckResult[];
  failedIds: Set<string>;
}

export async function runWithVariants(
  variants: readonly string[],
  options: { faults?: string[]; suites?: readonly string[]; runs?: number; seed?: number } = {},
): Promise<VariantRun> {
  const embedded = await startEmbeddedTarget({ variants: [...variants], faults: options.faults ?? [] });
  const plan = planRun(allChecks, {
    target: embedded.target,
    drivableClock: true,
    ...(options.suites ? { suites: options.suites } : {}),
  });
  const result = await runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: options.seed ?? 42,
    runs: options.runs ?? 3,
  });
  return {
    result,
    verdictProblems: result.checks.filter(
      (c) => c.status === "broken" || (c.status === "failed" && c.level === "MUST"),
    ),
    explorerUndecided: result.checks.filter(
      (c) => c.id.startsWith("explore/") && c.status === "inconclusive",
    ),
    failedIds: new Set(result.checks.filter((c) => c.status === "failed").map((c) => c.id)),
  };
}

/** One line per problem, for assertion messages that say what to fix. */
export function describeProblems(problems: readonly CheckResult[]): string[] {
  return problems.map(
    (c) => `${c.status} ${c.level} ${c.id}: ${(c.message ?? c.reason ?? "").slice(0, 400)}`,
  );
}
