// The reader of the docs' code blocks that test/package runs from the installed tarball: which blocks it
// runs, what a `<!-- not-run: reason -->` or `<!-- exits: ... -->` comment changes, and that a block that
// fails or exits otherwise than it says is caught.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { blocksOf, commandLines, type DocBlock, docBlocks, runDocBlock } from "../package/doc-blocks.ts";

const sample = [
  "<!-- not-run: a server that keeps running -->",
  "```sh",
  "lckit serve",
  "```",
  "",
  "1. A list item:",
  "",
  "   <!-- exits: 0 3 -->",
  "   ```sh",
  "   true",
  "   sh -c \\",
  "     'exit 3'",
  "   ```",
  "```yaml",
  "a: 1",
  "```",
  "```js",
  "console.log(1)",
  "```",
  "<!-- with: rabbitmq -->",
  "```sh",
  "lckit events publish --to amqp://guest:guest@127.0.0.1:5672 --count 1",
  "```",
].join("\n");

describe("docBlocks", () => {
  it("reads shell and JavaScript blocks with their markers, indentation off, other languages left out", () => {
    const blocks = blocksOf("x.md", sample);
    expect(blocks.map((b) => [b.line, b.lang, b.notRun, b.exits])).toEqual([
      [2, "sh", "a server that keeps running", undefined],
      [9, "sh", undefined, [0, 3]],
      [17, "js", undefined, undefined],
      [21, "sh", undefined, undefined],
    ]);
    expect(blocks.map((b) => b.withRabbit === true)).toEqual([false, false, false, true]);
    expect(blocks[1]?.text.split("\n")[0]).toBe("true");
    // A continued line is one command.
    expect(commandLines(blocks[1]?.text ?? "").map((l) => l.replace(/\s+/g, " "))).toEqual([
      "true",
      "sh -c 'exit 3'",
    ]);
  });

  it("finds the README's and docs' blocks", () => {
    const blocks = docBlocks(join(import.meta.dirname, "..", ".."));
    expect(blocks.some((b) => b.file === "README.md")).toBe(true);
    expect(blocks.some((b) => b.file === "docs/consumers.md" && b.notRun === undefined)).toBe(true);
  });

  it("a block passes only when it exits 0, or each line exits as its comment says", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "lckit-doc-block-"));
    const [, lines, js] = blocksOf("x.md", sample) as [DocBlock, DocBlock, DocBlock];
    expect((await runDocBlock(lines, cwd, process.execPath)).codes).toEqual([0, 3]);
    expect((await runDocBlock(lines, cwd, process.execPath)).code).toBe(0);
    expect((await runDocBlock({ ...lines, exits: [0, 0] }, cwd, process.execPath)).code).toBe(1);
    expect((await runDocBlock(js, cwd, process.execPath)).code).toBe(0);
    const failing = { file: "x.md", line: 1, lang: "sh" as const, text: "true\nfalse\necho never" };
    const ran = await runDocBlock(failing, cwd, process.execPath);
    expect(ran.code).not.toBe(0);
    expect(ran.output).not.toContain("never");
  });
});
