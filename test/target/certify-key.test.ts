// `certify: true` in a target file is `lckit run --certify`: a certified run (its record in report.json,
// evidence.har always written) without the flag, the same refusals named by the key; with a request budget
// that cuts the run short, the certificate is refused naming the budget.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { createReference } from "../../src/reference/index.ts";
import type { RunResult } from "../../src/result/model.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-certify-key-"));
let server: { baseUrl: string; rdmUrl: string; close(): Promise<void> };
beforeAll(async () => {
  server = await createReference().listen({ port: 0 });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function lckit(argv: string[]) {
  const io = captureIo();
  io.cwd = dir;
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

function targetFile(name: string, extra: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: reference without credentials\nbaseUrl: ${server.baseUrl}\nrdmUrl: ${server.rdmUrl}\ntenant: acme\n${extra}`,
  );
  return file;
}

function onlyReport(reportDir: string) {
  const folder = join(reportDir, readdirSync(reportDir)[0] as string);
  return { folder, result: JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as RunResult };
}

describe("certify: true in the target file", () => {
  it("makes the run a certified run, as --certify does", async () => {
    const reportDir = join(dir, "certified");
    const { code, err } = await lckit([
      "run",
      "--target",
      targetFile("certify", "certify: true\n"),
      "--runs",
      "1",
      "--report-dir",
      reportDir,
    ]);
    expect(code, err).toBe(0);
    expect(err).toMatch(/no certificate: \d+ MUST checks of the kit did not run/);
    const { folder, result } = onlyReport(reportDir);
    expect(result.certification?.certified).toBe(false);
    expect(result.certification?.target).toBe("reference without credentials");
    expect(existsSync(join(folder, "evidence.har.gz"))).toBe(true);
  }, 60_000);

  it("without it (or with certify: false) a run is an ordinary one", async () => {
    const reportDir = join(dir, "ordinary");
    const { code } = await lckit([
      "run",
      "--target",
      targetFile("ordinary", "certify: false\n"),
      "--runs",
      "1",
      "--report-dir",
      reportDir,
    ]);
    expect(code).toBe(0);
    const { folder, result } = onlyReport(reportDir);
    expect(result.certification).toBeUndefined();
    expect(existsSync(join(folder, "evidence.har.gz"))).toBe(false);
  }, 60_000);

  it.each([
    [
      ["--check", "service/*"],
      /certify: true, which runs every check of the kit; it refuses a selection \(got --check service\/\*\)/,
    ],
    [
      ["--no-har"],
      /certify: true, which keeps every exchange as evidence \(evidence\.har\.gz\); it cannot be used with --no-har/,
    ],
  ])("refuses %j as --certify would, naming the key (exit 2)", async (flags, want) => {
    const { code, err } = await lckit([
      "run",
      "--target",
      targetFile("refused", "certify: true\n"),
      ...flags,
    ]);
    expect(code).toBe(2);
    expect(err).toMatch(want);
  });

  it("a request budget that cuts the run short refuses the certificate, naming the budget", async () => {
    const reportDir = join(dir, "budget");
    const { code, err } = await lckit([
      "run",
      "--target",
      targetFile("budget", "certify: true\nrequestBudget: 2\n"),
      "--runs",
      "1",
      "--report-dir",
      reportDir,
    ]);
    expect(code).toBe(4);
    expect(err).toMatch(/no certificate: the run was cut short: its request budget of 2 requests is spent/);
    const { result } = onlyReport(reportDir);
    expect(result.verdict).toBe("INTERRUPTED");
    expect(result.interruption?.cause).toBe("budget");
    expect(result.requestsSent).toBe(2);
    expect(result.certification?.missing.some((m) => /--request-budget/.test(m.fix))).toBe(true);
  }, 60_000);
});
