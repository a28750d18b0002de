// What CI views read: junit.xml in the shape of the common JUnit XSD (Jenkins junit-10.xsd) with SHOULD
// failures as warnings, a subset run never called CONFORMANT, --fail-on deciding the exit code, and
// report.html putting failures first.
import { beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html.ts";
import { renderJunit } from "../../src/report/junit.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { decideVerdict, exitCodeOf, type FailOn } from "../../src/result/verdict.ts";
import { sampleRun } from "./sample-run.ts";

function result(id: string, level: CheckResult["level"], status: CheckResult["status"]): CheckResult {
  return {
    id,
    suite: id.split("/")[0] ?? "s",
    title: id,
    level,
    requirements: [],
    safety: "read",
    status,
    durationMs: 1,
    requests: 0,
  };
}

describe("a subset run is never CONFORMANT", () => {
  const passing = [result("a/one", "MUST", "passed"), result("a/two", "SHOULD", "passed")];
  it.each<[string, CheckResult[], number, string]>([
    ["every check selected", passing, 0, "CONFORMANT"],
    ["a selection that passes", passing, 96, "PASSED (subset)"],
    ["a selection with a MUST failure", [...passing, result("a/x", "MUST", "failed")], 96, "NOT CONFORMANT"],
    ["a selection with a MUST skipped", [...passing, result("a/x", "MUST", "skipped")], 96, "INCOMPLETE"],
  ])("%s", (_name, checks, notSelected, verdict) => {
    expect(decideVerdict(checks, undefined, notSelected).verdict).toBe(verdict);
  });

  it("says how many of the kit's checks were selected and passed", () => {
    const { reason } = decideVerdict(passing, undefined, 96);
    expect(reason).toMatch(
      /^2 of 2 selected checks passed \(2 of 98 checks selected; .*no conformance claim/,
    );
  });
});

describe("--fail-on decides which outcomes exit non-zero", () => {
  const shouldFailed = [result("a/one", "MUST", "passed"), result("a/two", "SHOULD", "failed")];
  it.each<[string, RunResult["verdict"], FailOn[] | undefined, CheckResult[], number]>([
    ["MUST failures by default", "NOT CONFORMANT", undefined, [], 1],
    ["INCOMPLETE passes by default", "INCOMPLETE", undefined, [], 0],
    ["INCOMPLETE fails with incomplete", "INCOMPLETE", ["must", "incomplete"], [], 1],
    ["a SHOULD failure passes by default", "CONFORMANT", undefined, shouldFailed, 0],
    ["a SHOULD failure fails with should", "CONFORMANT", ["must", "should"], shouldFailed, 1],
    ["a subset that passes", "PASSED (subset)", ["must", "incomplete"], [], 0],
    ["BROKEN stays 3", "BROKEN", ["must", "should"], shouldFailed, 3],
    ["INTERRUPTED stays 4", "INTERRUPTED", ["must", "incomplete"], [], 4],
  ])("%s", (_name, verdict, failOn, checks, code) => {
    const subject = {
      kind: "provider" as const,
      target: { name: "t", baseUrl: "", rdmUrl: "", tenant: "", loopback: false, roles: [] },
    };
    expect(exitCodeOf({ verdict, checks, requestsSent: 0, subject }, failOn)).toBe(code);
  });
});

describe("junit.xml", () => {
  let run: RunResult;
  let xml: string;
  beforeAll(async () => {
    run = await sampleRun();
    xml = renderJunit(run);
  });

  // Attributes junit-10.xsd allows on each element; anything else fails the schema.
  const allowed: Record<string, string[]> = {
    testsuites: ["name", "time", "tests", "failures", "disabled", "errors"],
    testsuite: [
      "name",
      "tests",
      "failures",
      "errors",
      "group",
      "time",
      "disabled",
      "skipped",
      "timestamp",
      "hostname",
      "id",
      "package",
      "file",
      "log",
      "url",
      "version",
    ],
    testcase: ["name", "assertions", "time", "classname", "status", "group", "file", "line"],
  };

  it.each(Object.keys(allowed))("<%s> carries only attributes the common JUnit XSD allows", (element) => {
    const tags = [...xml.matchAll(new RegExp(`<${element}\\s([^>]*)>`, "g"))];
    expect(tags.length).toBeGreaterThan(0);
    for (const [, attrs] of tags) {
      const names = [...(attrs ?? "").matchAll(/([\w-]+)="/g)].map((m) => m[1]);
      expect(names.filter((n) => !allowed[element]?.includes(n ?? ""))).toEqual([]);
    }
  });

  it("reports a failed SHOULD check as a passed testcase with a warning in system-out", () => {
    const should = run.checks.find((c) => c.level === "SHOULD" && c.status === "failed");
    expect(should?.id).toBe("scan/property");
    const testcase = /<testcase name="scan\/property"[^>]*>([\s\S]*?)<\/testcase>/.exec(xml)?.[1];
    expect(testcase).toBeDefined();
    expect(testcase).not.toMatch(/<failure/);
    expect(testcase).toMatch(/<system-out>WARNING: SHOULD finding, not a failure \(does not fail the run\)/);
  });

  it("counts only MUST failures as failures", () => {
    const mustFailed = run.checks.filter((c) => c.level === "MUST" && c.status === "failed").length;
    expect(mustFailed).toBeGreaterThan(0);
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*failures="${mustFailed}"`));
    expect([...xml.matchAll(/<failure /g)].length).toBe(mustFailed);
  });

  it("names the catalogue and the contract with their sha256 in the properties", () => {
    expect(xml).toMatch(
      /<property name="catalogue" value="requirements\/catalogue\.yaml [^"]+ sha256:[0-9a-f]{64}"\/>/,
    );
    expect(xml).toMatch(/<property name="contract" value="[^"]+ sha256:[0-9a-f]{64}"\/>/);
  });
});

describe("report.html and summary.md", () => {
  let run: RunResult;
  let html: string;
  beforeAll(async () => {
    run = await sampleRun();
    html = renderHtml(run);
  });

  it("shows the failures before the facts and the checks table, each linking to its row", () => {
    const failures = html.indexOf('<section id="failures">');
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThan(html.indexOf('<dl class="facts">'));
    expect(failures).toBeLessThan(html.indexOf('<h2 id="checks">'));
    const section = html.slice(failures, html.indexOf("</section>", failures));
    const links = [...section.matchAll(/href="#(check-[^"]+)"/g)].map((m) => m[1]);
    expect(links.length).toBe(
      run.checks.filter((c) => c.status === "failed" || c.status === "broken").length,
    );
    for (const id of links) expect(html).toContain(`id="${id}"`);
  });

  it("orders the checks table broken, failed, skipped, passed", () => {
    const rank = { broken: 0, failed: 1, skipped: 2, passed: 3 };
    const body = html.slice(html.indexOf('<table class="checks">'));
    const statuses = [...body.matchAll(/<tr class="(\w+)" data-suite/g)].map(
      (m) => m[1] as keyof typeof rank,
    );
    expect(statuses.length).toBe(run.checks.length);
    expect(statuses.map((s) => rank[s])).toEqual([...statuses.map((s) => rank[s])].sort((a, b) => a - b));
  });

  it("links to the coverage and names the verdict's reason", () => {
    expect(html).toContain('<a href="#coverage">');
    expect(html).toContain('id="coverage"');
    expect(html).toContain(run.verdictReason.replace(/&/g, "&amp;").replace(/</g, "&lt;").slice(0, 20));
  });

  it.each(["html", "markdown"] as const)(
    "%s identifies the catalogue and the contract, not a path outside",
    (f) => {
      const text = f === "html" ? html : renderMarkdown(run);
      expect(text).toContain(run.spec.catalogue.sha256.slice(0, 16));
      expect(text).toContain(run.spec.contract.slice(0, 16));
      expect(text).not.toMatch(/\.\.\/shared|\/work\/shared/);
    },
  );

  it("shows a subset verdict as such in every format", () => {
    const subset: RunResult = {
      ...run,
      verdict: "PASSED (subset)",
      verdictReason: "2 of 2 selected checks passed",
    };
    expect(renderHtml(subset)).toMatch(
      /<header class="verdict passed-subset">\s*<h1>PASSED \(subset\)<\/h1>/,
    );
    expect(renderMarkdown(subset)).toMatch(/^## ☑️ PASSED \(subset\):/);
    expect(renderJunit(subset)).toMatch(/<testsuites name="lckit run [^"]+: PASSED \(subset\)"/);
  });
});
