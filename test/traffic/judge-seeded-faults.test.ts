// scripts/judge-seeded-faults.ts kept working on a sample: the correct reference and three faults of
// different kinds (a scroll's filter, a token error's body against the contract, a token request's
// grant_type read from the query, which the judge has no rule of) each run embedded with its evidence.har,
// judged, and put in
// the table with the outcome each has in test/traffic/fixtures/judge-seeded-faults.json (every fault).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packagePath } from "../../src/package-root.ts";

const script = packagePath("scripts", "judge-seeded-faults.ts");

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: packagePath(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Row {
  fault: string;
  caughtBy: string[];
  service: { id: string }[];
  outcome: string;
  why: string;
}

const SAMPLE = {
  "scan-ignores-filter": "agree",
  "token-error-not-json": "agree",
  "grant-in-query-refused": "silent",
} as const;

describe("scripts/judge-seeded-faults.ts", () => {
  it("says its usage", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--fault NAME[\s\S]*--json FILE[\s\S]*--parallel N/);
  }, 60_000);

  it("judges a sample of faults as the table of every fault does", async () => {
    const json = join(mkdtempSync(join(tmpdir(), "lckit-judge-faults-")), "rows.json");
    const faults = Object.keys(SAMPLE).flatMap((f) => ["--fault", f]);
    const { code, stdout, stderr } = await run([...faults, "--json", json, "--parallel", "2"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/4 rows \(the correct reference and 3 faults\): 3 agree, 1 silent, 0 disagree/);
    const { rows } = JSON.parse(readFileSync(json, "utf8")) as { rows: Row[] };
    expect(rows.map((r) => [r.fault, r.outcome])).toEqual([["correct", "agree"], ...Object.entries(SAMPLE)]);
    const row = (fault: string) => rows.find((r) => r.fault === fault) as Row;
    expect(row("correct").service).toEqual([]);
    expect(row("scan-ignores-filter").service.map((s) => s.id)).toEqual(["service/scroll-filter-kept"]);
    expect(row("token-error-not-json").service.map((s) => s.id)).toEqual(["service/contract/issueToken"]);
    expect(row("grant-in-query-refused").why).toMatch(/^the judge has no service rule of TOKEN-ENDPOINT-03 /);
    // The committed table of every fault names the same outcomes for the sample.
    const committed = JSON.parse(
      readFileSync(packagePath("test", "traffic", "fixtures", "judge-seeded-faults.json"), "utf8"),
    ) as { rows: Row[] };
    for (const [fault, outcome] of Object.entries(SAMPLE))
      expect(committed.rows.find((r) => r.fault === fault)?.outcome, fault).toBe(outcome);
    expect(row("correct").caughtBy).toEqual([]);
    for (const fault of Object.keys(SAMPLE)) expect(row(fault).caughtBy.length, fault).toBeGreaterThan(0);
  }, 300_000);
});
