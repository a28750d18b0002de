// tsx scripts/false-must-sweep.ts: runs the embedded reference, plain and with each variant (a correct
// choice where the interface document is silent) switched on, as `lckit run` does (every suite, a driven
// clock, --runs 25) at each depth and seed asked, and prints a table variant × depth × seed → MUST failures.
// A correct implementation must get none: any MUST failure or broken check here is a false one.
// Usage: npx tsx scripts/false-must-sweep.ts --help (USAGE below).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { VARIANTS } from "../src/reference/variants.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../src/runner/index.ts";
import { allChecks } from "../suites/index.ts";

const USAGE = `Usage: npx tsx scripts/false-must-sweep.ts [options]
  --variant NAME ...     only these variants ("plain": the reference without one; default: plain and every
                         variant of lckit serve --help-variants)
  --depth D ...          default, deep or both (default both)
  --seed N ...           seeds (default 1 2 3)
  --runs N               runs per property, as lckit run --runs (default 25)
  --json FILE            write every row (variant, depth, seed, MUST failures with their messages) as JSON
  --help, -h             this text
Exit code 1 when any run has a MUST failure or a broken check.`;

const { values } = parseArgs({
  options: {
    variant: { type: "string", multiple: true },
    depth: { type: "string", multiple: true },
    seed: { type: "string", multiple: true },
    runs: { type: "string", default: "25" },
    json: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const variants = values.variant ?? ["plain", ...VARIANTS.map((v) => v.name)];
const depths = (values.depth ?? ["default", "deep"]).flatMap((d) =>
  d === "both" ? ["default", "deep"] : [d],
);
for (const d of depths) if (d !== "default" && d !== "deep") throw new Error(`--depth ${d}: default or deep`);
const seeds = (values.seed ?? ["1", "2", "3"]).map(Number);

interface Row {
  variant: string;
  depth: "default" | "deep";
  seed: number;
  checks: number;
  requests: number;
  durationMs: number;
  problems: { id: string; status: string; message: string }[];
}

const rows: Row[] = [];
console.log(`${"variant".padEnd(36)} ${"depth".padEnd(7)} seed MUST  failures`);
for (const variant of variants) {
  for (const depth of depths as ("default" | "deep")[]) {
    for (const seed of seeds) {
      const embedded = await startEmbeddedTarget({
        variants: variant === "plain" ? [] : [variant],
        faults: [],
      });
      const plan = planRun(allChecks, { target: embedded.target, drivableClock: true });
      const result = await runPlan(plan, {
        fetch: embedded.fetch,
        clock: embedded.clock,
        seed,
        runs: Number(values.runs),
        depth,
      });
      const problems = result.checks
        .filter((c) => c.status === "broken" || (c.status === "failed" && c.level === "MUST"))
        .map((c) => ({ id: c.id, status: c.status, message: (c.message ?? c.reason ?? "").slice(0, 2000) }));
      const row: Row = {
        variant,
        depth,
        seed,
        checks: result.checks.length,
        requests: result.requestsSent,
        durationMs: result.durationMs,
        problems,
      };
      rows.push(row);
      const shown = problems.map((p) => `${p.status === "broken" ? "broken " : ""}${p.id}`).join(", ");
      console.log(
        `${variant.padEnd(36)} ${depth.padEnd(7)} ${String(seed).padStart(3)}  ${String(problems.length).padStart(2)}  ${shown}`,
      );
      if (values.json) writeFileSync(values.json, `${JSON.stringify(rows, null, 2)}\n`);
    }
  }
}
const bad = rows.filter((r) => r.problems.length > 0);
console.log(`\n${rows.length} runs; ${bad.length} with a MUST failure or a broken check`);
process.exit(bad.length > 0 ? 1 : 0);
