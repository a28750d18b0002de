// The README's exit codes and verdict words are what the commands say: each row of its exit-code table
// names the codes the command's own --help lists (and no other), and its verdict words are the report
// schema's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureIo } from "../cli/capture-io.ts";

const repo = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(repo, "README.md"), "utf8");

/** The exit-code table: each row's command words and the codes it fills. */
const rows = readme
  .split("\n")
  .filter((line) => /^\s*\| `lckit /.test(line))
  .map((line) => {
    const cells = line.trim().split("|").slice(1, -1);
    const command = /`lckit ([^`]+)`/.exec(cells[0] ?? "")?.[1] ?? "";
    const codes = cells
      .slice(1)
      .map((cell, code) => (cell.trim() === "" ? undefined : code))
      .filter((c): c is number => c !== undefined);
    return { command, codes };
  });

/** The codes the help's "Exit codes:" notes list ("0 ..., 1 ...; 2 ..."). */
async function helpCodes(words: string[]): Promise<number[]> {
  const io = captureIo();
  expect(await main([...words, "--help"], io)).toBe(0);
  const notes = /Exit codes[^:]*:([\s\S]*)$/.exec(io.stdout())?.[1] ?? "";
  const codes = [...notes.matchAll(/(?:^|[:;,\n])\s*([0-4]) [a-zA-Z]/g)].map((m) => Number(m[1]));
  return [...new Set(codes)].sort();
}

describe("README.md", () => {
  it("has a row for every command that exits by a policy of its own", () => {
    expect(rows.map((r) => r.command)).toEqual([
      "run",
      "events check",
      "client check",
      "events consumer check",
      "report verify",
      "contract diff",
      "pact verify",
      "restore",
      "events publish",
      "judge",
      "proxy",
    ]);
  });

  it.each(rows.map((r) => [r.command, r.codes] as const))(
    "lckit %s: the codes of the README's row are those its --help lists",
    async (command, codes) => {
      const words = command.split(" ");
      expect(await helpCodes(words)).toEqual(codes);
      if (command === "report verify") expect(await helpCodes(["report", "diff"])).toEqual(codes);
    },
  );

  it("names every verdict word of the report schema", () => {
    const schema = JSON.parse(readFileSync(join(repo, "src", "report", "report.schema.json"), "utf8")) as {
      properties: { verdict: { enum: string[] } };
    };
    const section = /\*\*The verdict\*\* comes first:([\s\S]*?)\n- \*\*/.exec(readme)?.[1] ?? "";
    const named = [...section.replace(/\n\s*/g, " ").matchAll(/`([A-Z][A-Z ()a-z]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual([...schema.properties.verdict.enum].sort());
  });
});
