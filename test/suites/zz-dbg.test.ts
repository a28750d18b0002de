import { it } from "vitest";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { exploreChecks } from "../../suites/explore.ts";
it("dbg", async () => {
  const embedded = await startEmbeddedTarget({ faults: (process.env.F ?? "").split(",").filter(Boolean) });
  const plan = planRun(exploreChecks, { target: embedded.target, drivableClock: true });
  const t = Date.now();
  const result = await runPlan(plan, { fetch: embedded.fetch, clock: embedded.clock, seed: Number(process.env.SEED ?? 42), runs: 10 });
  for (const c of result.checks) console.log(c.id, c.status, c.message, c.reason, JSON.stringify(c.explored, null, 1), c.details?.expected?.slice(0, 3000), JSON.stringify(c.counterexample));
  console.log("ms", Date.now() - t);
}, 300000);
