// Other folders reach the event generator only through its index (src/events/generate/index.ts): its
// inner files (world, builders, steps, mutations) can then be split or renamed without touching src/pact
// or src/cli. Test code and benchmarks may reach in; the kit's own folders may not.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const generator = join(root, "src", "events", "generate");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The relative module paths a source text imports or re-exports. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:import|export)[^"']*?from\s+["'](\.[^"']+)["']/g)].map(
    (match) => match[1] ?? "",
  );
}

/** Files outside the generator that import one of its inner files, as "file -> import". */
function reachingIn(files: { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (path.startsWith(generator)) continue;
    for (const specifier of importsOf(text)) {
      const target = resolve(path, "..", specifier);
      if (target.startsWith(`${generator}/`) && target !== join(generator, "index.ts")) {
        found.push(`${relative(root, path)} -> ${specifier}`);
      }
    }
  }
  return found;
}

describe("the event generator's boundary", () => {
  it("is crossed only through src/events/generate/index.ts", () => {
    const paths = [...sourceFiles(join(root, "src")), ...sourceFiles(join(root, "suites"))];
    const files = paths.map((path) => ({ path, text: readFileSync(path, "utf8") }));
    expect(files.some(({ text }) => text.includes("events/generate/index.ts"))).toBe(true);
    // Import src/events/generate/index.ts instead, and export from it what is missing.
    expect(reachingIn(files)).toEqual([]);
  });

  it("is seen crossed when a file reaches in", () => {
    const path = join(root, "src", "pact", "probe.ts");
    const text = [
      'import { StreamWorld } from "../events/generate/stream-world.ts";',
      'export { Random } from "../events/generate/index.ts";',
    ].join("\n");
    expect(reachingIn([{ path, text }])).toEqual(["src/pact/probe.ts -> ../events/generate/stream-world.ts"]);
  });
});
