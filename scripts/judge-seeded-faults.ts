// tsx scripts/judge-seeded-faults.ts: for the correct reference and every seeded fault (src/reference/
// faults.ts), an embedded `lckit run` with its evidence (--har), and that evidence.har judged as `lckit
// judge` judges it (judgeTraffic, with the clients' roles the embedded target file gives, as --roles would
// name them). One row per fault: the checks that caught it, the service findings of the judge, and
//   agree     the judge blames the service by a rule of a requirement the active checks failed (or the
//             fault's own requirement);
//   silent    the judge blames no service: why (the judge holds no rule of those requirements, or its rule
//             met no opportunity, could not decide, or passed the traffic the run showed);
//   disagree  the judge blames the service by rules of other requirements only, or, on the correct
//             reference, at all (a false service finding).
// Usage: npx tsx scripts/judge-seeded-faults.ts --help (USAGE below).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { packagePath } from "../src/package-root.ts";
import { FAULTS, type FaultEntry } from "../src/reference/faults.ts";
import type { CheckResult, RunResult } from "../src/result/model.ts";
import { embeddedTargetDescription } from "../src/target/embedded.ts";
import { judgeTraffic } from "../src/traffic/judge.ts";
import { accessOfTarget } from "../src/traffic/roles.ts";

const USAGE = `Usage: npx tsx scripts/judge-seeded-faults.ts [options]
  --fault NAME ...   only these faults (default: every fault of src/reference/faults.ts); "correct" is the
                     reference without a fault, always judged first
  --json FILE        write every row (fault, caught by, service findings, outcome, why) as JSON
  --parallel N       runs at once (default 1; each is an lckit run process)
  --seed N           the runs' seed (default 1)
  --work DIR         where the runs' report folders go; a fault whose evidence.har.gz is there already is
                     judged again without a new run (default: a new temporary folder)
  --help, -h         this text
Exit code 1 when a row disagrees (a service finding by a rule of another requirement, or any on the
correct reference).`;

const { values } = parseArgs({
  options: {
    fault: { type: "string", multiple: true },
    json: { type: "string" },
    parallel: { type: "string", default: "1" },
    seed: { type: "string", default: "1" },
    work: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const known = new Map<string, FaultEntry>(FAULTS.map((f) => [f.name, f]));
const asked = values.fault ?? FAULTS.map((f) => f.name);
for (const name of asked)
  if (name !== "correct" && !known.has(name)) throw new Error(`--fault ${name}: no such fault`);
const names = ["correct", ...asked.filter((n) => n !== "correct")];
const parallel = Math.max(1, Number(values.parallel));
const work = values.work ?? mkdtempSync(join(tmpdir(), "lckit-judge-faults-"));
mkdirSync(work, { recursive: true });

export interface Row {
  fault: string;
  /** The fault's requirement (none for the correct reference). */
  rule?: string;
  /** The checks of the run that failed. */
  caughtBy: string[];
  /** The judge's failed service rules, with their requirements and first finding. */
  service: { id: string; requirements: string[]; message: string }[];
  outcome: "agree" | "silent" | "disagree";
  why: string;
}

/** The report folder of the fault's run, run now unless there already. */
async function runOf(fault: string): Promise<string> {
  const dir = join(work, fault);
  const folder = () =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((d) => !d.startsWith("."))
          .map((d) => join(dir, d))
          .find((d) => existsSync(join(d, "evidence.har.gz")) && existsSync(join(d, "report.json")))
      : undefined;
  const there = folder();
  if (there !== undefined) return there;
  const argv = [packagePath("bin", "lckit.mjs"), "run", "--har", "--seed", String(values.seed)];
  argv.push("--report-dir", dir, ...(fault === "correct" ? [] : ["--fault", fault]));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    // lckit run exits 1 on a fault it catches: what counts is the report it wrote.
    child.on("close", (code) =>
      code !== null && code <= 1
        ? resolve()
        : reject(new Error(`lckit run --fault ${fault}: ${code} ${err}`)),
    );
  });
  const made = folder();
  if (made === undefined) throw new Error(`lckit run --fault ${fault} wrote no evidence.har.gz in ${dir}`);
  return made;
}

const access = accessOfTarget(embeddedTargetDescription());

/** What the judge said of a rule that blamed no one, in a few words. */
function stateOf(c: CheckResult): string {
  if (c.status === "passed") return `${c.id} passed (${c.opportunities ?? 0} opportunities)`;
  return `${c.id} ${c.status}${c.reason ? `: ${c.reason}` : ""}`;
}

async function rowOf(fault: string): Promise<Row> {
  const folder = await runOf(fault);
  const report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as RunResult;
  const { result } = await judgeTraffic({ source: join(folder, "evidence.har.gz"), access });
  const caught = report.checks.filter((c) => c.status === "failed");
  const rule = known.get(fault)?.rule;
  const wanted = new Set([...caught.flatMap((c) => c.requirements), ...(rule ? [rule] : [])]);
  const serviceChecks = result.checks.filter((c) => c.suite === "service");
  const blamed = serviceChecks.filter((c) => c.status === "failed");
  const service = blamed.map((c) => ({
    id: c.id,
    requirements: c.requirements,
    message: (c.message ?? "").slice(0, 400),
  }));
  const base = { fault, ...(rule ? { rule } : {}), caughtBy: caught.map((c) => c.id), service };
  if (fault === "correct")
    return blamed.length === 0
      ? { ...base, outcome: "agree", why: "no service finding on the correct reference" }
      : { ...base, outcome: "disagree", why: "a service finding on the correct reference" };
  const matching = blamed.filter((c) => c.requirements.some((id) => wanted.has(id)));
  if (matching.length > 0)
    return {
      ...base,
      outcome: "agree",
      why: `${matching.map((c) => c.id).join(", ")}: requirement ${[...new Set(matching.flatMap((c) => c.requirements.filter((id) => wanted.has(id))))].join(", ")}`,
    };
  if (blamed.length > 0)
    return {
      ...base,
      outcome: "disagree",
      why: `the judge blames the service by ${blamed.map((c) => c.id).join(", ")}, of none of the requirements the run failed (${[...wanted].join(", ")})`,
    };
  if (caught.length === 0)
    return { ...base, outcome: "silent", why: "the run itself caught nothing (no check failed)" };
  // The judge's rules of the fault's own requirement first; then those of the active checks' others.
  const own = serviceChecks.filter((c) => rule !== undefined && c.requirements.includes(rule));
  const others = serviceChecks.filter((c) => !own.includes(c) && c.requirements.some((id) => wanted.has(id)));
  const said = (checks: CheckResult[]) =>
    `${checks.slice(0, 3).map(stateOf).join("; ")}${checks.length > 3 ? `; and ${checks.length - 3} more` : ""}`;
  return {
    ...base,
    outcome: "silent",
    why:
      own.length > 0
        ? `the judge's rules of ${rule} blamed no one: ${said(own)}`
        : `the judge has no service rule of ${rule} (${known.get(fault)?.description})${others.length > 0 ? `; its rules of the active checks' other requirements blamed no one: ${said(others)}` : ""}`,
  };
}

async function pool<T, R>(items: readonly T[], n: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await each(items[i] as T);
      }
    }),
  );
  return out;
}

console.log(`runs in ${work}`);
console.log(`${"fault".padEnd(48)} ${"outcome".padEnd(8)} service finding(s) / why`);
const rows = await pool(names, parallel, async (fault) => {
  const row = await rowOf(fault);
  console.log(
    `${fault.padEnd(48)} ${row.outcome.padEnd(8)} ${row.service.length > 0 ? row.service.map((s) => s.id).join(", ") : row.why}`,
  );
  return row;
});
const totals = { agree: 0, silent: 0, disagree: 0 };
for (const row of rows) totals[row.outcome] += 1;
console.log(
  `\n${rows.length} rows (the correct reference and ${rows.length - 1} faults): ${totals.agree} agree, ${totals.silent} silent, ${totals.disagree} disagree`,
);
if (values.json)
  writeFileSync(values.json, `${JSON.stringify({ seed: Number(values.seed), totals, rows }, null, 2)}\n`);
process.exit(totals.disagree > 0 ? 1 : 0);
