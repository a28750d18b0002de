// The in-toto test-result statement as a pure function of the run: PASSED only for a passing verdict with
// no warning; FAILED for a failed MUST check, a broken check or a failing verdict; WARNED otherwise
// (SHOULD findings, INCOMPLETE, a verdict or status this version does not know); the check ids by the
// same mapping as ctrf.json; the configuration from report.json alone.
import { beforeAll, describe, expect, it } from "vitest";
import { buildCtrf } from "../../src/report/ctrf.ts";
import { testResultOf, testResultStatement } from "../../src/report/in-toto.ts";
import type { CheckResult, RunResult, Verdict } from "../../src/result/model.ts";
import { sampleRun } from "./sample-run.ts";

let sample: RunResult;
beforeAll(async () => {
  sample = await sampleRun();
});

const check = (id: string, status: string, level: "MUST" | "SHOULD" = "MUST") =>
  ({
    id,
    status,
    level,
    suite: "s",
    title: id,
    requirements: [],
    safety: "read",
    durationMs: 1,
    requests: 1,
  }) as unknown as CheckResult;

describe("testResultOf", () => {
  it.each<[string, { verdict: string; checks: CheckResult[] }, string]>([
    ["every check passed, CONFORMANT", { verdict: "CONFORMANT", checks: [check("a", "passed")] }, "PASSED"],
    ["CERTIFIED", { verdict: "CERTIFIED", checks: [check("a", "passed")] }, "PASSED"],
    ["a passing subset", { verdict: "PASSED (subset)", checks: [check("a", "passed")] }, "PASSED"],
    [
      "a SHOULD finding on a conformant run",
      { verdict: "CONFORMANT", checks: [check("a", "passed"), check("b", "failed", "SHOULD")] },
      "WARNED",
    ],
    [
      "MUST checks that did not run",
      { verdict: "INCOMPLETE", checks: [check("a", "passed"), check("b", "skipped")] },
      "WARNED",
    ],
    ["a MUST failure", { verdict: "NOT CONFORMANT", checks: [check("a", "failed")] }, "FAILED"],
    ["a broken check", { verdict: "BROKEN", checks: [check("a", "broken")] }, "FAILED"],
    [
      "a run cut short with nothing failed",
      { verdict: "INTERRUPTED", checks: [check("a", "passed")] },
      "FAILED",
    ],
    [
      "a verdict this version does not know",
      { verdict: "SOMETHING NEW", checks: [check("a", "passed")] },
      "WARNED",
    ],
    [
      "a MUST check that could not decide (it fails the job by default)",
      { verdict: "INCOMPLETE", checks: [check("a", "inconclusive")] },
      "FAILED",
    ],
  ])("%s: %s", (_what, run, want) => {
    expect(testResultOf({ checks: run.checks, verdict: run.verdict as Verdict }).result).toBe(want);
  });

  it("lists the check ids as ctrf.json shows them: passed, other (warned), failed; skipped in none", () => {
    const r = testResultOf(sample);
    const ctrf = buildCtrf(sample).results.tests;
    const ids = (status: string) => ctrf.filter((t) => t.status === status).map((t) => t.name);
    expect(r.passedTests).toEqual(ids("passed"));
    expect(r.warnedTests).toEqual(ids("other"));
    expect(r.failedTests).toEqual(ids("failed"));
    expect(r.failedTests).toEqual(["service/echo-secret", "auth/broken"]);
    expect(r.warnedTests).toEqual(["scan/property"]);
    expect([...r.passedTests, ...r.warnedTests, ...r.failedTests]).not.toContain("scan/skips");
  });
});

describe("testResultStatement", () => {
  it("is a Statement v1 of the test-result predicate, its subject the given files, its configuration the run's", () => {
    const s = testResultStatement(sample, [{ path: "report.json", sha256: "ab".repeat(32) }], {
      status: 200,
      body: '{"rdm-service":"1.2"}',
    });
    expect(Object.keys(s)).toEqual(["_type", "subject", "predicateType", "predicate"]);
    expect(s._type).toBe("https://in-toto.io/Statement/v1");
    expect(s.predicateType).toBe("https://in-toto.io/attestation/test-result/v0.1");
    expect(s.subject).toEqual([{ name: "report.json", digest: { sha256: "ab".repeat(32) } }]);
    expect(Object.keys(s.predicate)).toEqual([
      "result",
      "configuration",
      "passedTests",
      "warnedTests",
      "failedTests",
    ]);
    expect(s.predicate.result).toBe("FAILED");
    const byName = new Map(s.predicate.configuration.map((d) => [d.name, d]));
    expect(byName.get("kit")).toMatchObject({
      uri: `pkg:npm/${sample.kit.name}@${sample.kit.version}`,
      annotations: { version: sample.kit.version, runId: sample.runId, verdict: "BROKEN", seed: 42, runs: 5 },
    });
    expect(byName.get("requirements/catalogue.yaml")?.digest).toEqual({
      sha256: sample.spec.catalogue.sha256,
    });
    expect(byName.get("contract")?.digest).toEqual({ sha256: sample.spec.contract });
    const target = sample.target as NonNullable<typeof sample.target>;
    expect(target.baseUrl).toMatch(/^http/);
    expect(byName.get("target")).toMatchObject({
      uri: target.baseUrl,
      annotations: { tenant: target.tenant },
    });
    expect(byName.get("target /version")).toEqual({
      name: "target /version",
      uri: `${target.rdmUrl.replace(/\/+$/, "")}/version`,
      annotations: { status: 200, body: '{"rdm-service":"1.2"}' },
    });
    // Every descriptor names a resource (uri or digest), as the resource descriptor requires.
    for (const d of s.predicate.configuration) expect(d.uri ?? d.digest).toBeDefined();
  });

  it("names the user's interface document by sha256 when one was given, and a /version that failed", () => {
    const run = {
      ...sample,
      spec: { ...sample.spec, interfaceDocument: "cd".repeat(32), interfaceDocumentFile: "iface.md" },
    };
    const s = testResultStatement(run, [], { error: "connect ECONNREFUSED" });
    const byName = new Map(s.predicate.configuration.map((d) => [d.name, d]));
    expect(byName.get("interface document")).toEqual({
      name: "interface document",
      digest: { sha256: "cd".repeat(32) },
      annotations: { file: "iface.md" },
    });
    expect(byName.get("target /version")?.annotations).toEqual({ error: "connect ECONNREFUSED" });
  });
});
