// lckit run --request-budget N: the run's request budget from the command line (the target file's
// requestBudget otherwise); a spent budget interrupts the run, a budget below one request is refused.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { RunResult } from "../../src/result/model.ts";
import { INTERRUPTED_EXIT_CODE } from "../../src/result/verdict.ts";
import { captureIo } from "./capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-budget-flag-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]) {
  const io = captureIo();
  // The CLI tests' own checks: sample/health asks for a token, then for /healthcheck (two requests).
  io.env = { LCKIT_CHECKS_MODULE: join(import.meta.dirname, "..", "runner", "cli-checks.ts") };
  io.cwd = dir;
  const code = await main(["run", "--check", "sample/health", "--seed", "1", ...argv], io);
  return { code, err: io.stderr(), out: io.stdout() };
}

function lastReport(reportDir: string): RunResult {
  const [runId] = readdirSync(join(dir, reportDir));
  return JSON.parse(readFileSync(join(dir, reportDir, runId ?? "", "report.json"), "utf8")) as RunResult;
}

describe("lckit run --request-budget", () => {
  it("stops the run when one request is all it may send", async () => {
    const got = await run(["--request-budget", "1", "--report-dir", "spent"]);
    expect(got.code).toBe(INTERRUPTED_EXIT_CODE);
    expect(got.out).toMatch(/verdict: INTERRUPTED/);
    expect(JSON.stringify(lastReport("spent"))).toMatch(/request budget of 1 requests is spent/);
  });

  it("lets the run finish when the budget covers it", async () => {
    const got = await run(["--request-budget", "100", "--report-dir", "enough"]);
    expect(got.code).toBe(0);
    expect(lastReport("enough").verdict).toBe("PASSED (subset)");
  });

  it.each([["0"], ["1.5"], ["lots"]])("refuses %s with exit code 2, naming the flag", async (value) => {
    const got = await run(["--request-budget", value, "--report-dir", "never"]);
    expect(got.code).toBe(2);
    expect(got.err).toMatch(
      new RegExp(`--request-budget expects an integer >= 1, got "${value.replace(".", "\\.")}"`),
    );
  });
});
