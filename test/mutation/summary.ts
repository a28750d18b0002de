// Prints the mutation score and the surviving mutants of a Stryker JSON report (default
// reports/mutation/mutation.json), per file, as Markdown: `npx tsx test/mutation/summary.ts [report.json]`.
import { readFileSync } from "node:fs";
import { classify } from "./classification.ts";

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

const path = process.argv[2] ?? "reports/mutation/mutation.json";
let report: Report;
try {
  report = JSON.parse(readFileSync(path, "utf8")) as Report;
} catch (error) {
  console.error(`summary: cannot read ${path} (${(error as Error).message}); run npm run mutation first`);
  process.exit(2);
}

const counted = ["Killed", "Timeout", "Survived", "NoCoverage"];
const rows: string[] = [
  "| File | Mutants | Killed | Timeout | Survived | No coverage | Score |",
  "|---|---|---|---|---|---|---|",
];
const totals = new Map<string, number>();
const survivors: string[] = [];
const classes = new Map<string, number>();
for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) =>
  a.localeCompare(b),
)) {
  const by = new Map<string, number>();
  for (const mutant of mutants) by.set(mutant.status, (by.get(mutant.status) ?? 0) + 1);
  for (const [status, n] of by) totals.set(status, (totals.get(status) ?? 0) + n);
  const valid = counted.reduce((sum, status) => sum + (by.get(status) ?? 0), 0);
  const detected = (by.get("Killed") ?? 0) + (by.get("Timeout") ?? 0);
  const score = valid === 0 ? "n/a" : `${((100 * detected) / valid).toFixed(1)}%`;
  rows.push(
    `| ${file} | ${valid} | ${by.get("Killed") ?? 0} | ${by.get("Timeout") ?? 0} | ${by.get("Survived") ?? 0} | ${by.get("NoCoverage") ?? 0} | ${score} |`,
  );
  const lines = source.split("\n");
  for (const mutant of mutants.filter((m) => m.status === "Survived" || m.status === "NoCoverage")) {
    const { start, end } = mutant.location;
    const line = lines[start.line - 1] ?? "";
    const original = start.line === end.line ? line.slice(start.column - 1, end.column - 1) : line.trim();
    const replacement = (mutant.replacement ?? "").replace(/\s+/g, " ");
    const fullOriginal =
      start.line === end.line
        ? original
        : [
            (lines[start.line - 1] ?? "").slice(start.column - 1),
            ...lines.slice(start.line, end.line - 1),
            (lines[end.line - 1] ?? "").slice(0, end.column - 1),
          ].join("\n");
    const verdict = classify({
      file,
      line,
      original,
      fullOriginal,
      mutatorName: mutant.mutatorName,
      replacement,
      status: mutant.status,
    });
    classes.set(verdict.class, (classes.get(verdict.class) ?? 0) + 1);
    const md = (text: string) => `\`${text.slice(0, 70).replaceAll("|", "\\|").replaceAll("`", "'")}\``;
    survivors.push(
      `| ${file.replace("src/reference/", "")}:${start.line} | ${mutant.status === "NoCoverage" ? "no coverage" : "survived"} | ${mutant.mutatorName} | ${md(original)} | ${md(replacement)} | ${verdict.class} | ${verdict.why} |`,
    );
  }
}
const valid = counted.reduce((sum, status) => sum + (totals.get(status) ?? 0), 0);
const detected = (totals.get("Killed") ?? 0) + (totals.get("Timeout") ?? 0);
const covered = valid - (totals.get("NoCoverage") ?? 0);
console.log(`Mutation score: ${((100 * detected) / valid).toFixed(1)}% (${detected} of ${valid} detected)`);
console.log(
  `Score on covered code: ${((100 * detected) / covered).toFixed(1)}% (${detected} of ${covered}); ignored (static): ${totals.get("Ignored") ?? 0}`,
);
// The rule code's score: mutants the document lets a check see, i.e. all but the equivalent, the not
// shown, those of the fixture world and the static ones Stryker cannot switch on.
const gaps = (classes.get("gap") ?? 0) + (classes.get("unclassified") ?? 0);
console.log(
  `Rule code: ${((100 * detected) / (detected + gaps)).toFixed(1)}% (${detected} detected of ${detected + gaps}; ${gaps} gaps or unclassified)`,
);
console.log(
  `Not detected, by class: ${[...classes]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([c, n]) => `${c} ${n}`)
    .join(", ")}`,
);
console.log("");
console.log(rows.join("\n"));
console.log("");
console.log("| Where | Status | Mutator | Original | Replacement | Class | Why |");
console.log("|---|---|---|---|---|---|---|");
console.log(survivors.join("\n"));
