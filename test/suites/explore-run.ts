// Runs the explorer's checks alone against the embedded reference (faults and variants switched on as
// asked): shared by explore*.test.ts.
import type { Check, Depth } from "../../src/check/index.ts";
import type { CheckResult } from "../../src/result/model.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { exploreChecks } from "../../suites/explore.ts";

export async function explore(
  options: {
    faults?: string[];
    variants?: string[];
    seed?: number;
    depth?: Depth;
    checks?: Check[];
    replayPath?: string;
  } = {},
): Promise<Map<string, CheckResult>> {
  const embedded = await startEmbeddedTarget({
    faults: options.faults ?? [],
    variants: options.variants ?? [],
  });
  const plan = planRun(options.checks ?? exploreChecks, { target: embedded.target, drivableClock: true });
  const result = await runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: options.seed ?? 42,
    runs: 10,
    ...(options.depth ? { depth: options.depth } : {}),
    ...(options.replayPath ? { replayPath: options.replayPath } : {}),
  });
  return new Map(result.checks.map((c) => [c.id, c]));
}

/** What a correct variant must never get from the explorer: a MUST failure, a broken or undecided check. */
export async function explorerProblems(variants: string[], seeds: readonly number[]): Promise<string[]> {
  const problems: string[] = [];
  for (const seed of seeds) {
    const byId = await explore({ variants, seed });
    for (const c of byId.values())
      if (
        c.status === "broken" ||
        c.status === "inconclusive" ||
        (c.level === "MUST" && c.status === "failed")
      )
        problems.push(`seed ${seed} ${c.status} ${c.id}: ${c.message ?? c.reason ?? ""}`);
  }
  return problems;
}
