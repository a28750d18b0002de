// The defaults of lckit run are stated in three places a reader meets (--help, docs/target-file.md and the
// code that applies them); src/run-defaults.ts is the one that decides, and the other two must say the same.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSpec } from "../../src/cli/commands/run-flags.ts";
import { commandHelp } from "../../src/cli/help.ts";
import { packageRoot } from "../../src/package-root.ts";
import { RUN_DEFAULTS } from "../../src/run-defaults.ts";

const help = commandHelp(runSpec).replace(/\s+/g, " ");
const targetDoc = readFileSync(join(packageRoot, "docs", "target-file.md"), "utf8");

/** The target-file table's row of one key. */
function docRow(key: string): string {
  const row = targetDoc.split("\n").find((line) => line.startsWith(`| \`${key}\``));
  if (row === undefined) throw new Error(`docs/target-file.md has no row for ${key}`);
  return row;
}

describe("the defaults of lckit run", () => {
  it("--help states the flags' defaults from RUN_DEFAULTS", () => {
    expect(help).toContain(`runs per property (default ${RUN_DEFAULTS.runs})`);
    expect(help).toContain(`(default ${RUN_DEFAULTS.deadlineMs / 60_000}m)`);
    expect(help).toMatch(
      new RegExp(`"unresponsiveAfter" in the target file\\) \\(default ${RUN_DEFAULTS.unresponsiveAfter}\\)`),
    );
    expect(help).toContain(`checked before the run starts (default ${RUN_DEFAULTS.reportDir})`);
  });

  it("docs/target-file.md states the target-file keys' defaults from RUN_DEFAULTS", () => {
    expect(docRow("rateLimit")).toContain(`default ${RUN_DEFAULTS.rateLimit};`);
    expect(docRow("timeoutMs")).toContain(`default ${RUN_DEFAULTS.timeoutMs},`);
    expect(docRow("checkTimeoutMs")).toContain(`default ${RUN_DEFAULTS.checkTimeoutMs},`);
    expect(docRow("maxResponseBytes")).toContain(`default ${RUN_DEFAULTS.maxResponseBytes} =`);
    expect(docRow("deadline")).toContain(`Default \`${RUN_DEFAULTS.deadlineMs / 60_000}m\``);
    expect(docRow("unresponsiveAfter")).toContain(`default ${RUN_DEFAULTS.unresponsiveAfter};`);
  });
});
