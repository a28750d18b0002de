// A requirement the catalogue marks not checkable is untested in every command's coverage, and its reason
// stands beside it, instead of a bare "untested", where it applies: in report.json, summary.md, report.html
// and the terminal summary of lckit run (the three marked are a provider's). lckit events check and lckit
// client check (test/workbench/client-check.test.ts) leave a provider's reasons out.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { summaryText } from "../../src/cli/commands/run.ts";
import { main } from "../../src/cli/main.ts";
import { renderHtml, renderMarkdown } from "../../src/report/index.ts";
import { loadCatalogue } from "../../src/requirements/catalogue.ts";
import { computeCoverage } from "../../src/result/coverage.ts";
import type { RunResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { captureIo } from "../cli/capture-io.ts";
import { check, fakeFetch, fakeTarget } from "../runner/fake-target.ts";
import { reportValidator } from "./report-schema.ts";

const marked = loadCatalogue().requirements.filter((r) => r.notCheckable !== undefined && !r.retired);
const quota = marked.find((r) => r.id === "TOKEN-QUOTA-05");

it("the catalogue marks some requirements not checkable (what this file proves is about them)", () => {
  expect(marked.map((r) => r.id).sort()).toEqual(["BLOCKED-06", "CONFIG-CLIENT-05", "TOKEN-QUOTA-05"]);
  expect(quota?.notCheckable).toMatch(/client_credentials/);
});

describe("coverage", () => {
  it("carries the reason beside an untested requirement, never beside one a check traces", () => {
    const coverage = computeCoverage(
      [
        { id: "A-01", level: "MUST", notCheckable: "nothing shows it" },
        { id: "B-01", level: "MUST", notCheckable: "stale mark" },
        { id: "C-01", level: "MUST" },
      ],
      [{ id: "x/b", requirements: ["B-01"], result: { status: "passed" } }],
      null,
    );
    expect(coverage.requirements.map((r) => [r.id, r.status, r.notCheckable])).toEqual([
      ["A-01", "untested", "nothing shows it"],
      ["B-01", "proven", undefined],
      ["C-01", "untested", undefined],
    ]);
  });
});

describe("lckit run", () => {
  let result: RunResult;
  beforeAll(async () => {
    result = await runPlan(planRun([check("service/fine", async () => {})], { target: fakeTarget() }), {
      fetch: fakeFetch,
      clock: systemClock(),
      seed: 1,
      runs: 1,
      timeoutMs: 1000,
    });
  });

  it("report.json, summary.md, report.html and the terminal say why", () => {
    const entry = result.coverage.requirements.find((r) => r.id === "TOKEN-QUOTA-05");
    expect(entry).toMatchObject({ status: "untested", notCheckable: quota?.notCheckable });
    const validate = reportValidator();
    expect(validate(JSON.parse(JSON.stringify(result))), JSON.stringify(validate.errors)).toBe(true);
    expect(renderMarkdown(result)).toMatch(
      /- <code>TOKEN-QUOTA-05<\/code> [^\n]+ \*\*Not checkable:\*\* The kit holds client\\_credentials clients only/,
    );
    const html = renderHtml(result);
    expect(html).toContain("<strong>Not checkable:</strong> The kit holds client_credentials clients only");
    expect(html).toMatch(
      /<td><code>BLOCKED-06<\/code><\/td><td>MUST<\/td><td>untested<\/td><td>not checkable: Autopilot/,
    );
    const text = summaryText(result, "reports/x");
    expect(text).toContain("not checkable by any command of the kit (3, untested in the coverage):");
    expect(text).toContain(`  TOKEN-QUOTA-05 (MUST): ${quota?.notCheckable}`);
  });
});

describe("lckit events check", () => {
  it("leaves a provider's not-checkable reasons out of a stream's verdict, in every format", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-not-checkable-"));
    const io = captureIo();
    const fixture = join(import.meta.dirname, "..", "..", "fixtures", "events", "valid", "entity.ndjson");
    expect(await main(["events", "check", fixture, "--report-dir", dir], io)).toBe(0);
    expect(io.stdout()).not.toMatch(/not checkable|CONFIG-CLIENT-05/);
    const folder = join(dir, readdirSync(dir)[0] ?? "");
    const report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8"));
    const blocked = report.coverage.requirements.find((r: { id: string }) => r.id === "BLOCKED-06");
    expect(blocked.status).toBe("untested");
    expect(blocked.notCheckable).toBeUndefined();
    expect(readFileSync(join(folder, "summary.md"), "utf8")).not.toContain("Not checkable");
    expect(readFileSync(join(folder, "report.html"), "utf8")).not.toContain("Not checkable");
  });
});
