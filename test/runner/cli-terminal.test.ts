// Text a target sent reaches the terminal only with its control characters escaped: no cleared screen,
// no bell, no reordered line, in the progress lines and in the summary.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { terminalSafe } from "../../src/report/escape.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-terminal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("terminal output of lckit run", () => {
  it.each([
    ["ESC and CSI", "a\x1b[2Jb", "a\\x1b[2Jb"],
    ["BEL and NUL", "\x07\x00", "\\x07\\x00"],
    ["C1 CSI", "\x9b31m", "\\x9b31m"],
    ["a bidi override", "a\u202eb", "a\\u202eb"],
    ["plain text", 'ok: 200 {"a":1}', 'ok: 200 {"a":1}'],
  ])("terminalSafe escapes %s", (_name, given, want) => {
    expect(terminalSafe(given)).toBe(want);
  });

  it("escapes a finding's control bytes on stderr and stdout", async () => {
    for (const isTty of [false, true]) {
      const io = captureIo();
      io.env = { LCKIT_CHECKS_MODULE: join(import.meta.dirname, "cli-terminal-checks.ts") };
      io.cwd = dir;
      io.isTty = isTty;
      const code = await main(["run", "--check", "sample/*", "--seed", "1", "--report-dir", "out"], io);
      expect(code).toBe(1);
      const output = io.stdout() + io.stderr();
      expect(output).toContain("\\x1b[2J\\x07cleared\\u202eevil\\x00 and \\x9b31m");
      // The kit's own progress line may clear itself on a terminal ("\r\x1b[2K"); nothing else may.
      const foreign = output.replaceAll("\r\x1b[2K", "");
      const controlClass = "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e]";
      const controls = new RegExp(controlClass);
      expect(foreign).not.toMatch(controls);
    }
  });
});
