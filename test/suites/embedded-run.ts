// Runs checks against the embedded reference (optionally with seeded faults): shared by the suite tests.

import type { Check, Depth } from "../../src/check/index.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";

export const testSeed = 42;

export interface EmbeddedRun {
  result: RunResult;
  byId: Map<string, CheckResult>;
}

export async function runEmbedded(
  options: {
    faults?: string[];
    variants?: string[];
    checks?: readonly Check[];
    suites?: readonly string[];
    runs?: number;
    depth?: Depth;
    seed?: number;
  } = {},
): Promise<EmbeddedRun> {
  const embedded = await startEmbeddedTarget({
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.variants ? { variants: options.variants } : {}),
  });
  const plan = planRun(options.checks ?? allChecks, {
    target: embedded.target,
    drivableClock: true,
    ...(options.suites ? { suites: options.suites } : {}),
  });
  const result = await runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: options.seed ?? testSeed,
    runs: options.runs ?? 10,
    ...(options.depth ? { depth: options.depth } : {}),
  });
  return { result, byId: new Map(result.checks.map((check) => [check.id, check])) };
}

/** One line per check that did not pass, for assertion messages. */
export function describeNotPassed(result: RunResult): string {
  return result.checks
    .filter((check) => check.status !== "passed")
    .map((check) => `${check.status} ${check.id}: ${check.message ?? check.reason ?? ""}`)
    .join("\n");
}
