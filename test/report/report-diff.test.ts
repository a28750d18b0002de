// lckit report diff on two real runs of the embedded reference: clean against clean is quiet (exit 0), a
// seeded fault shows as regressions (exit 1) naming exactly the checks the fault breaks, and the way back
// shows them fixed. A few checks and small --runs keep it to seconds.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { RunResult } from "../../src/result/model.ts";
import { diffReports, type ReportDiff } from "../../src/result/run-diff.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lckit(argv: string[]) {
  const io = captureIo();
  io.cwd = dir;
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** Runs the reference (optionally with a fault) into its own report dir and returns the report folder. */
async function reference(name: string, faults: string[] = []): Promise<string> {
  const reportDir = join(dir, name);
  const { code, err } = await lckit([
    "run",
    "--check",
    "lookup-scan/*",
    "--runs",
    "3",
    "--seed",
    "7",
    "--report-dir",
    reportDir,
    ...faults.flatMap((f) => ["--fault", f]),
  ]);
  expect(code, err).toBe(faults.length === 0 ? 0 : 1);
  const [runId] = readdirSync(reportDir);
  return join(reportDir, runId as string);
}

let clean: string;
let cleanAgain: string;
let faulty: string;
beforeAll(async () => {
  clean = await reference("clean");
  cleanAgain = await reference("clean-again");
  faulty = await reference("faulty", ["scan-ignores-order"]);
}, 120_000);

const read = (folder: string) => JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as RunResult;

describe("lckit report diff", () => {
  it("finds nothing between two clean runs and exits 0", async () => {
    const { code, out } = await lckit([
      "report",
      "diff",
      clean,
      join(cleanAgain, "report.json"),
      "--format",
      "json",
    ]);
    expect(code).toBe(0);
    const diff = JSON.parse(out) as ReportDiff;
    expect(diff.regressed).toEqual([]);
    expect(diff.fixed).toEqual([]);
    expect(diff.changedStatus).toEqual([]);
  });

  it("names the checks a seeded fault breaks as regressed, exit 1, in JSON and Markdown", async () => {
    const json = await lckit(["report", "diff", clean, faulty, "--format", "json"]);
    expect(json.code).toBe(1);
    const diff = JSON.parse(json.out) as ReportDiff;
    expect(diff.regressed.map((r) => r.id).sort()).toEqual([
      "lookup-scan/order-respected",
      "lookup-scan/sort-fields-accepted",
    ]);
    expect(diff.regressed.every((r) => r.from === "passed" && r.to === "failed")).toBe(true);
    expect(diff.fixed).toEqual([]);
    const markdown = await lckit(["report", "diff", clean, faulty]);
    expect(markdown.code).toBe(1);
    expect(markdown.out).toMatch(/2 checks regressed, 0 checks fixed/);
    expect(markdown.out).toMatch(/\| lookup-scan\/order-respected \| MUST \| passed \| failed \|/);
  });

  it("shows the way back as fixed, exit 0", async () => {
    const { code, out } = await lckit(["report", "diff", faulty, clean, "--format", "json"]);
    expect(code).toBe(0);
    const diff = JSON.parse(out) as ReportDiff;
    expect(diff.fixed.map((r) => r.id).sort()).toEqual([
      "lookup-scan/order-respected",
      "lookup-scan/sort-fields-accepted",
    ]);
    expect(diff.regressed).toEqual([]);
  });

  it("reports a changed level, changed evidence, added and removed checks", () => {
    const before = read(faulty);
    const after = structuredClone(before);
    const order = after.checks.find(
      (c) => c.id === "lookup-scan/order-respected",
    ) as RunResult["checks"][number];
    order.message = "another message";
    const other = after.checks.find((c) => c.status === "passed") as RunResult["checks"][number];
    other.level = other.level === "MUST" ? "SHOULD" : "MUST";
    const removed = after.checks.pop() as RunResult["checks"][number];
    after.checks.push({ ...removed, id: "lookup-scan/brand-new", status: "failed" });
    const diff = diffReports(before, after);
    expect(diff.changedEvidence.map((c) => c.id)).toEqual(["lookup-scan/order-respected"]);
    expect(diff.changedLevel).toEqual([
      { id: other.id, from: before.checks.find((c) => c.id === other.id)?.level, to: other.level },
    ]);
    expect(diff.added).toEqual(["lookup-scan/brand-new"]);
    expect(diff.removed).toEqual([removed.id]);
    expect(diff.regressed.map((r) => r.id)).toEqual(["lookup-scan/brand-new"]);
  });

  it("refuses what is not a report, naming it (exit 2)", async () => {
    const missing = await lckit(["report", "diff", clean, join(dir, "nowhere")]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nowhere: no such report/);
    const one = await lckit(["report", "diff", clean]);
    expect(one.code).toBe(2);
    expect(one.err).toMatch(/diff expects two reports/);
  });
});
