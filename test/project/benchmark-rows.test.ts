// The README's "Figures today" says docs/benchmarks.md holds what each figure measures and how: every
// bench script the README's figures table names has its row there, and every row names a script that
// package.json defines.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(repo, file), "utf8");
/** The bench scripts a table row names in its first cell ("| `npm run bench:x` |"). */
const rowScripts = (text: string) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("| "))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`npm run (bench:[a-z0-9:-]+)`/g)])
    .map((m) => m[1] as string);

describe("docs/benchmarks.md", () => {
  it("has a row for every bench script of the README's figures, each a script of package.json", () => {
    const readme = rowScripts(read("README.md"));
    const documented = new Set(rowScripts(read("docs/benchmarks.md")));
    expect(readme).toContain("bench:proxy");
    expect(readme.filter((s) => !documented.has(s))).toEqual([]);
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    expect([...documented].filter((s) => scripts[s] === undefined)).toEqual([]);
  });
});
