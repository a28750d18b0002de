// ctrf.json: valid against the CTRF schema the `ctrf` package ships, one test per check with the status
// junit.xml implies (only a failure that fails the job is "failed"; SHOULD and waived failures are "other"
// with a WARNING/WAIVED message; skipped stays skipped; a status CTRF lacks, inconclusive, is "other" with
// a message saying so), summary counts that add up, and written beside junit.xml.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCtrf, type CtrfReport, ctrfStatusOf, renderCtrf } from "../../src/report/ctrf.ts";
import { isFailure, renderJunit } from "../../src/report/junit.ts";
import { junitTestcases } from "../../src/report/junit-testcases.ts";
import { writeReport } from "../../src/report-folder/write.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { ISSUED_TOKEN, SECRET } from "../runner/fake-target.ts";
import { sampleRun } from "./sample-run.ts";

/** The CTRF JSON schema as the `ctrf` package ships it (the package exports only its code, so by path). */
function ctrfValidator() {
  const packageDir = dirname(dirname(createRequire(import.meta.url).resolve("ctrf")));
  const schema = JSON.parse(readFileSync(join(packageDir, "src", "ctrf-schema-0.0.json"), "utf8"));
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

const validate = ctrfValidator();
const dir = mkdtempSync(join(tmpdir(), "lckit-ctrf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let result: RunResult;
beforeAll(async () => {
  result = await sampleRun();
});

const byName = (ctrf: CtrfReport, name: string) => ctrf.results.tests.find((t) => t.name === name);

/** The sample run with one check changed (a waiver, a status this version does not know). */
function withCheck(id: string, change: (c: CheckResult) => CheckResult): RunResult {
  return { ...result, checks: result.checks.map((c) => (c.id === id ? change(c) : c)) };
}

describe("ctrf.json", () => {
  it("validates against the ctrf package's schema, for a run with every status and hostile text", () => {
    const ctrf = JSON.parse(renderCtrf(result));
    expect(validate(ctrf) ? [] : validate.errors).toEqual([]);
    expect(ctrf).toMatchObject({ reportFormat: "CTRF", specVersion: "0.0.0", runId: result.runId });
    expect(ctrf.results.tool).toEqual({ name: "lckit", version: result.kit.version });
  });

  it.each([
    ["a passed MUST check", "service/health", { status: "passed", rawStatus: "passed" }],
    ["a failed MUST check", "service/echo-secret", { status: "failed", rawStatus: "failed" }],
    ["a failed SHOULD check", "scan/property", { status: "other", rawStatus: "failed" }],
    ["a check that skipped itself", "scan/skips", { status: "skipped", rawStatus: "skipped" }],
    ["a check not allowed to run", "delete-task/unsafe", { status: "skipped", rawStatus: "skipped" }],
    ["a broken check", "auth/broken", { status: "failed", rawStatus: "broken" }],
  ])("%s: %s", (_what, id, want) => {
    const test = byName(buildCtrf(result), id);
    expect(test).toMatchObject({ ...want, testId: id, suite: [id.split("/")[0]], type: "conformance" });
  });

  it("a SHOULD failure is reported as a warning that does not turn the CI view red", () => {
    const test = byName(buildCtrf(result), "scan/property");
    expect(test?.message).toMatch(
      /^WARNING: SHOULD finding, not a failure \(does not fail the run\): page boundary/,
    );
    expect(test?.trace).toMatch(/replay: lckit run --check scan\/property --seed 42 --path 4:2/);
    expect(test?.tags).toEqual(["SHOULD", "SCAN-04"]);
  });

  it("a waived MUST failure is a warning too, naming the waiver", () => {
    const waived = withCheck("service/echo-secret", (c) => ({
      ...c,
      waiver: { check: c.id, reason: "vendor ticket 12", who: "jane", expires: "2099-12-31", expired: false },
    }));
    const test = byName(buildCtrf(waived), "service/echo-secret");
    expect(test?.status).toBe("other");
    expect(test?.message).toMatch(
      /^WAIVED: MUST check failed, a known failure of the baseline \(vendor ticket 12; jane; until 2099-12-31\)/,
    );
  });

  it.each([
    ["MUST", "failed"],
    ["SHOULD", "other"],
  ] as const)(
    "an undecided (inconclusive) %s check is %s, with a message saying it could not decide",
    (level, status) => {
      const undecided = withCheck("service/health", (c) => ({
        ...c,
        level,
        status: "inconclusive" as CheckResult["status"],
        message: "the quota client holds tokens from before the run",
      }));
      const ctrf = buildCtrf(undecided);
      expect(validate(JSON.parse(JSON.stringify(ctrf))) ? [] : validate.errors).toEqual([]);
      expect(byName(ctrf, "service/health")).toMatchObject({
        status,
        rawStatus: "inconclusive",
        message: `INCONCLUSIVE: the ${level} check ran but could not decide from the target's answers: the quota client holds tokens from before the run`,
      });
    },
  );

  it("skipped checks carry their reason; the summary counts add up", () => {
    const ctrf = buildCtrf(result);
    expect(byName(ctrf, "scan/skips")?.message).toMatch(/^no data /);
    const s = ctrf.results.summary;
    expect(s).toMatchObject({ tests: 6, passed: 1, failed: 2, skipped: 2, pending: 0, other: 1, suites: 4 });
    expect(s.passed + s.failed + s.skipped + s.pending + s.other).toBe(s.tests);
    expect(s.stop).toBeGreaterThanOrEqual(s.start);
    expect(s.extra).toMatchObject({ verdict: "BROKEN", warnings: ["scan/property"] });
  });

  it("agrees with junit.xml: a test is failed exactly when its testcase has a <failure> or <error>", () => {
    const ctrf = buildCtrf(result);
    const red = new Set(
      [...junitTestcases(renderJunit(result))]
        .filter((t) => /<(failure|error)[\s>]/.test(t.body ?? ""))
        .map((t) => t.name),
    );
    for (const c of result.checks) {
      expect({ id: c.id, failed: byName(ctrf, c.id)?.status === "failed" }).toEqual({
        id: c.id,
        failed: red.has(c.id),
      });
      expect(ctrfStatusOf(c) === "failed").toBe(isFailure(c) || c.status === "broken");
    }
  });

  it("no credential reaches it", () => {
    const text = renderCtrf(result);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(ISSUED_TOKEN);
  });

  it("is written beside junit.xml", () => {
    const written = writeReport(result, dir);
    expect(written.files.ctrf).toBe(join(written.dir, "ctrf.json"));
    expect(JSON.parse(readFileSync(written.files.ctrf, "utf8"))).toEqual(JSON.parse(renderCtrf(result)));
  });
});
