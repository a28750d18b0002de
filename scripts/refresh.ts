// npm run refresh: after adding or changing a rule of any kind, brings every file derived from the rules up
// to date and prints, for review, what a person must still decide (CONTRIBUTING.md, "Add a rule"):
//   1. src/generated/ and the generated docs (scripts/generate.ts: traceability of every kind,
//      docs/faults.md, the caller rules' table of docs/consumers.md, ...);
//   2. the rule-id snapshot of every kind (test/suites/__snapshots__/ids.test.ts.snap);
//   3. the proofs of the event and caller rules: every event rule has a line of the invalid fixture (or a
//      reason it is proven elsewhere) and the generator's mutations are caught by their rule only; every
//      caller rule has a faulty example client it catches (tests, run here, printed for review);
//   4. the table of what passes against the Prism mock (test/suites/prism-run.test.ts) and the counts of
//      docs/prism-run.md, from a run against Prism;
//   5. each seeded fault run against every check: the checks it now fails beside or instead of its caughtBy
//      (src/reference/faults.ts), printed, never written: which check must catch a fault is a decision;
//   6. each variant (a correct provider choice) run against every check: any MUST check that does not pass,
//      and any broken one (SHOULD checks may report the kit's preference against a variant).
// Flags: --no-proofs, --no-prism, --no-faults (steps 5 and 6), --fault NAME (only that fault; repeatable).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { freePort } from "../src/http/index.ts";
import { startMock } from "../src/mock/index.ts";
import { FAULTS, type FaultEntry } from "../src/reference/faults.ts";
import { VARIANTS } from "../src/reference/variants.ts";
import type { RunResult } from "../src/result/model.ts";
import { runEmbedded } from "../test/suites/embedded-run.ts";
import { runAgainstPrism } from "../test/suites/prism-target.ts";

const root = join(dirname(new URL(import.meta.url).pathname), "..");
const args = process.argv.slice(2);
const onlyFaults = args.flatMap((arg, i) => (arg === "--fault" ? [args[i + 1] ?? ""] : []));
const known = new Set(["--no-proofs", "--no-prism", "--no-faults", "--fault", ...onlyFaults]);
const unknown = args.filter((arg) => !known.has(arg));
if (unknown.length > 0) {
  console.error(
    `refresh: unknown argument ${unknown.join(" ")}; flags: --no-proofs, --no-prism, --no-faults, --fault NAME`,
  );
  process.exit(2);
}
const review: string[] = [];
const step = (text: string) => console.error(`\nrefresh: ${text}`);
const tsx = join(root, "node_modules/.bin/tsx");
const vitest = join(root, "node_modules/.bin/vitest");

step("1/6 generated files (npm run generate)");
execFileSync(tsx, [join(root, "scripts/generate.ts")], { cwd: root, stdio: "inherit" });

step("2/6 the rule-id snapshot (every kind of rule)");
const snapshot = join(root, "test/suites/__snapshots__/ids.test.ts.snap");
execFileSync(vitest, ["run", "test/suites/ids.test.ts", "-u"], { cwd: root, stdio: "inherit" });
// Against the last commit, so that a second refresh still says it.
const committed = (() => {
  try {
    return execFileSync("git", ["show", `HEAD:${relative(snapshot)}`], { cwd: root, encoding: "utf8" });
  } catch {
    return undefined;
  }
})();
if (committed !== readFileSync(snapshot, "utf8"))
  review.push(`rule ids changed: review git diff ${relative(snapshot)}`);

if (!args.includes("--no-proofs")) {
  step("3/6 the proofs of the event and caller rules (about a minute)");
  const proofs = [
    "test/project/rules.test.ts",
    "test/events/fixtures.test.ts",
    "test/events/properties.test.ts",
    "test/workbench/client-check.test.ts",
  ];
  try {
    execFileSync(vitest, ["run", ...proofs], { cwd: root, stdio: "inherit" });
  } catch {
    review.push(
      `a proof of a rule failed (${proofs.join(", ")}, output above): an event rule needs a line of fixtures/events/invalid.ndjson (or a reason in provenElsewhere of test/events/fixtures.test.ts) and a mutation of src/events/generate/mutations.ts; a caller rule a faulty example client`,
    );
  }
}

if (!args.includes("--no-prism")) {
  step("4/6 what passes against the Prism mock (a run of every check, about a minute)");
  const mock = await startMock({ platformPort: await freePort(), lookupDataPort: await freePort() });
  let result: RunResult;
  try {
    result = await runAgainstPrism(mock);
  } finally {
    await mock.stop();
  }
  refreshPrismTable(result);
}

if (!args.includes("--no-faults")) {
  const faults = onlyFaults.length > 0 ? FAULTS.filter((f) => onlyFaults.includes(f.name)) : FAULTS;
  if (onlyFaults.length > 0 && faults.length !== onlyFaults.length) {
    console.error(`refresh: --fault names no fault of src/reference/faults.ts: ${onlyFaults.join(", ")}`);
    process.exit(2);
  }
  step(`5/6 ${faults.length} seeded faults, each against every check (a few seconds each)`);
  for (const [n, fault] of faults.entries()) {
    const { result } = await runEmbedded({ faults: [fault.name] });
    const caught = result.checks.filter((c) => c.status === "failed").map((c) => c.id);
    const other = result.checks.filter((c) => c.status === "broken" || c.status === "inconclusive");
    const expected: readonly string[] = fault.caughtBy;
    const added = caught.filter((id) => !expected.includes(id));
    const gone = expected.filter((id) => !caught.includes(id));
    process.stderr.write(`  [${n + 1}/${faults.length}] ${fault.name}: ${caught.length} failed\n`);
    if (added.length > 0)
      review.push(`fault ${fault.name} is now also caught by ${added.join(", ")}: add to its caughtBy`);
    if (gone.length > 0) review.push(`fault ${fault.name} is no longer caught by ${gone.join(", ")}`);
    for (const c of other)
      if (!(c.status === "inconclusive" && (fault as FaultEntry).leavesUndecided?.includes(c.id)))
        review.push(`fault ${fault.name}: ${c.status} ${c.id}: ${c.message ?? c.reason}`);
  }
  step(`6/6 ${VARIANTS.length} variants (correct provider choices), each against every check`);
  for (const variant of VARIANTS) {
    const { result } = await runEmbedded({ variants: [variant.name] });
    // A variant is correct: a SHOULD check may report the kit's preference, no MUST check may fail.
    const notPassed = result.checks.filter(
      (c) => c.status === "broken" || (c.level === "MUST" && c.status !== "passed" && c.status !== "skipped"),
    );
    process.stderr.write(`  ${variant.name}: ${notPassed.length === 0 ? "every check passed" : "REVIEW"}\n`);
    for (const c of notPassed)
      review.push(
        `variant ${variant.name} (a correct choice): ${c.status} ${c.id}: ${c.message ?? c.reason}`,
      );
  }
}

console.log(
  review.length === 0
    ? "\nrefresh: everything derived is up to date; nothing to review"
    : `\nrefresh: to review (${review.length}):\n${review.map((line) => `  - ${line}`).join("\n")}`,
);

/** Rewrites the expected table of prism-run.test.ts from the run (a check that moved goes to the end of
 *  its new list; the comments that say why stay with the checks they explain) and the counts of
 *  docs/prism-run.md. */
function refreshPrismTable(result: RunResult): void {
  const file = join(root, "test/suites/prism-run.test.ts");
  let text = readFileSync(file, "utf8");
  const actual = new Map(result.checks.map((c) => [c.id, c.status]));
  const table = /const expected: Record<Status, string\[\]> = \{\n([\s\S]*?)\n\};/.exec(text);
  if (table?.[1] === undefined) throw new Error(`${file}: the expected table was not found`);
  let body = table[1];
  const listed = new Map<string, string>();
  for (const section of body.matchAll(/^ {2}(\w+): \[\n([\s\S]*?)^ {2}\],/gm))
    for (const id of (section[2] ?? "").matchAll(/^ {4}"([^"]+)",$/gm))
      listed.set(id[1] ?? "", section[1] ?? "");
  const moves: string[] = [];
  for (const [id, status] of listed)
    if (actual.get(id) !== status) {
      body = body.replace(new RegExp(`^ {4}"${regexpSource(id)}",\\n`, "m"), "");
      if (actual.get(id) === undefined) moves.push(`${id} is gone`);
    }
  for (const [id, status] of actual) {
    if (listed.get(id) === status) continue;
    const section = new RegExp(`(^ {2}${status}: \\[\\n[\\s\\S]*?)(^ {2}\\],)`, "m");
    if (section.test(body)) body = body.replace(section, `$1    "${id}",\n$2`);
    else body = `${body}\n  ${status}: [\n    "${id}",\n  ],`;
    moves.push(`${id}: ${listed.get(id) ?? "new"} -> ${status}`);
  }
  text = text.replace(table[1], body);
  writeFileSync(file, text);
  for (const move of moves)
    review.push(`against Prism ${move}: say why beside it in ${relative(file)} and in docs/prism-run.md`);
  const count = (status: string) => result.checks.filter((c) => c.status === status).length;
  const doc = join(root, "docs/prism-run.md");
  const counted = readFileSync(doc, "utf8")
    .replace(
      /^## What it shows \(.*\)$/m,
      `## What it shows (${result.checks.length} checks: ${count("passed")} passed, ${count("failed")} failed, ${count("inconclusive")} inconclusive, ${count("skipped")} skipped, ${count("broken")} broken)`,
    )
    .replace(/\*\*Passed \(\d+\)\*\*/, `**Passed (${count("passed")})**`)
    .replace(/\*\*Failed \(\d+\)\*\*/, `**Failed (${count("failed")})**`)
    .replace(/\*\*inconclusive \(\d+\)\*\*/, `**inconclusive (${count("inconclusive")})**`)
    .replace(/\*\*skipped \(\d+\)\*\*/, `**skipped (${count("skipped")})**`);
  writeFileSync(doc, counted);
  if (count("broken") > 0)
    review.push(`${count("broken")} checks BROKEN against Prism: a check must fail or skip, never break`);
}

function regexpSource(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function relative(path: string): string {
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}
