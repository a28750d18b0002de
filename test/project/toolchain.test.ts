// The project's own hygiene, run as tests so that CI counts them: types, lint/format, generated files.
import "../support/background.ts";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { staleFiles } from "../../scripts/generate.ts";

const root = join(new URL(".", import.meta.url).pathname, "..", "..");
const bin = (name: string) => join(root, "node_modules", ".bin", name);

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { cwd: root, encoding: "utf8", timeout: 180_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("toolchain", () => {
  it("typechecks (tsc --noEmit, strict)", () => {
    const { status, output } = run(bin("tsc"), ["--noEmit"]);
    expect(output).toBe("");
    expect(status).toBe(0);
  }, 180_000);

  it("passes biome lint and format", () => {
    const { status, output } = run(bin("biome"), ["check", "--diagnostic-level=error", "."]);
    expect(status, output).toBe(0);
  }, 120_000);

  it("has no stale generated files (npm run generate)", async () => {
    expect(await staleFiles()).toEqual([]);
  }, 120_000);
});
