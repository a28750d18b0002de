import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html.ts";
import { renderJson } from "../../src/report/json.ts";
import { renderJunit } from "../../src/report/junit.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { writeReport } from "../../src/report-folder/write.ts";
import type { RunResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeFetch, fakeTarget, ISSUED_TOKEN, SECRET } from "../runner/fake-target.ts";
import { reportValidator } from "./report-schema.ts";
import { sampleRun } from "./sample-run.ts";
import { xmlProblems } from "./xml-problems.ts";

let result: RunResult;
let rendered: Record<string, string>;
beforeAll(async () => {
  result = await sampleRun();
  rendered = {
    json: renderJson(result),
    junit: renderJunit(result),
    markdown: renderMarkdown(result),
    html: renderHtml(result),
  };
});

describe("report renderers", () => {
  it("runs the sample to a BROKEN verdict with every status but inconclusive present (inconclusive.test.ts has that)", () => {
    expect(result.verdict).toBe("BROKEN");
    expect(result.counts.byStatus).toEqual({
      passed: 1,
      failed: 2,
      inconclusive: 0,
      "not-exercised": 0,
      skipped: 2,
      broken: 1,
    });
  });

  it("report.json validates against report.schema.json", () => {
    const validate = reportValidator();
    const parsed = JSON.parse(rendered.json ?? "");
    expect(validate(parsed), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each<[string, { mutate: (r: Record<string, unknown>) => void }]>([
    ["a wrong report version", { mutate: (r) => Object.assign(r, { reportVersion: 2 }) }],
    ["an unknown verdict", { mutate: (r) => Object.assign(r, { verdict: "PASSED" }) }],
    ["a missing run id", { mutate: (r) => Reflect.deleteProperty(r, "runId") }],
    ["an extra top-level field", { mutate: (r) => Object.assign(r, { secrets: [] }) }],
    [
      "a failed check without a message",
      { mutate: (r) => Reflect.deleteProperty((r.checks as Record<string, unknown>[])[1] ?? {}, "message") },
    ],
  ])("the schema rejects %s", (_name, { mutate }: { mutate: (r: Record<string, unknown>) => unknown }) => {
    const parsed = JSON.parse(rendered.json ?? "");
    mutate(parsed);
    expect(reportValidator()(parsed)).toBe(false);
  });

  it.each(["json", "junit", "markdown", "html"])("%s never shows a client secret or a token", (format) => {
    const text = rendered[format] ?? "";
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(ISSUED_TOKEN);
    expect(text).not.toContain(Buffer.from(`viewer-id:${SECRET}`).toString("base64"));
    expect(text).toMatch(/\\?\[redacted\\?\]/);
  });

  it("junit.xml is well-formed with one testcase per check", () => {
    const xml = rendered.junit ?? "";
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml.match(/<testcase /g)).toHaveLength(result.checks.length);
    expect(xml).toMatch(/<failure message="[^"]*" type="MUST">/);
    expect(xml).toMatch(/<skipped message="safety: destructive/);
    expect(xml).toMatch(/<error message="Error: kit bug/);
  });

  it("the xml checker catches what it claims to", () => {
    expect(xmlProblems("<a><b></a>")).not.toEqual([]);
    expect(xmlProblems('<a x="1 & 2"/>')).not.toEqual([]);
    expect(xmlProblems("<a>1 < 2</a>")).not.toEqual([]);
    expect(xmlProblems("<a/><b/>")).not.toEqual([]);
    expect(xmlProblems("<a>\u0001</a>")).not.toEqual([]);
  });

  it("report.html is one self-contained file with its data escaped", () => {
    const html = rendered.html ?? "";
    expect(html).not.toMatch(/\s(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b|<script\s+src|@import|url\(/i);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).not.toContain('<script>alert("x")');
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)");
    expect(html).toMatch(/data-filter="suite"/);
    expect(html).toMatch(/Untested requirements \(1\)/);
    expect(html).toMatch(/EVENT-01/);
  });

  it("report.html shows the transport's note on an exchange (a retry, a wait, a redirect not followed)", () => {
    const withNote = structuredClone(result);
    const failed = withNote.checks.find((c) => c.status === "failed");
    if (!failed) throw new Error("the sample run has no failed check");
    failed.evidence = [
      {
        request: { method: "GET", url: "https://t.example/healthcheck", headers: {} },
        response: { status: 200, headers: {}, body: "{}" },
        durationMs: 3,
        note: "retried once after <ECONNRESET>",
      },
    ];
    expect(renderHtml(withNote)).toContain('<p class="note">retried once after &lt;ECONNRESET&gt;</p>');
  });

  it("summary.md has the verdict, the counts, a failures table with replay commands, and coverage", () => {
    const md = rendered.markdown ?? "";
    expect(md).toMatch(/^## 💥 BROKEN: fake/);
    // Counts by outcome: passed, failures (MUST), findings (SHOULD/MAY), skipped, broken.
    expect(md).toMatch(/\| Level \| passed \| failures \| findings \| skipped \| broken \|/);
    expect(md).toMatch(/\| MUST \| 1 \| 1 \| 0 \| 2 \| 1 \|/);
    expect(md).toMatch(/\| SHOULD \| 0 \| 0 \| 1 \| 0 \| 0 \|/);
    expect(md).toContain("### MUST failures (1)");
    expect(md).toContain("<summary><b>SHOULD/MAY findings (1)</b>: warnings, not failures</summary>");
    expect(md).toMatch(/```mermaid\n[^`]*pie showData[^`]*"SHOULD\/MAY findings" : 1\n/);
    expect(md).toContain("<code>lckit run --check scan/property --seed 42 --path 4:2</code>");
    expect(md).toContain("<code>lckit run --target target.yaml --check service/echo-secret --seed 42</code>");
    expect(md).toMatch(/1 of 7 requirements proven/);
    expect(md).toMatch(/NOT-IN-CATALOGUE-01/);
    // A hostile message stays inside its table row: no raw pipe, no raw HTML.
    const row = md.split("\n").find((l) => l.includes("service/echo-secret") && l.startsWith("|")) ?? "";
    expect(row.split(/(?<!\\)\|/)).toHaveLength(7);
    expect(md).not.toContain("<script>");
  });

  it("coverage names proving checks and their statuses", () => {
    const byId = Object.fromEntries(result.coverage.requirements.map((r) => [r.id, r]));
    expect(byId["SERVICE-01"]).toMatchObject({
      status: "proven",
      checks: [{ id: "service/health", status: "passed" }],
    });
    expect(byId["SERVICE-02"]?.status).toBe("failing");
    expect(byId["AUTH-01"]?.status).toBe("broken");
    expect(byId["TASK-01"]?.status).toBe("not-run");
    expect(byId["EVENT-01"]?.status).toBe("untested");
    expect(result.coverage.unknown).toEqual([{ id: "NOT-IN-CATALOGUE-01", checks: ["service/echo-secret"] }]);
  });

  describe("writeReport", () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-report-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("writes the four files to <dir>/<run id>/", () => {
      const written = writeReport(result, dir);
      expect(written.dir).toBe(join(dir, result.runId));
      expect(readFileSync(written.files.json, "utf8")).toBe(rendered.json);
      expect(readFileSync(written.files.junit, "utf8")).toBe(rendered.junit);
      expect(readFileSync(written.files.markdown, "utf8")).toBe(rendered.markdown);
      expect(readFileSync(written.files.html, "utf8")).toBe(rendered.html);
    });
  });
});

describe("an interrupted run with a change it could not put back", () => {
  let interrupted: RunResult;
  beforeAll(async () => {
    const stop = new AbortController();
    const plan = planRun(
      [
        check("sample/done", async () => {}),
        check("sample/changes", async (ctx) => {
          // The fake target has no customer endpoint: the runner's undo fails and the change stays listed.
          ctx.journal.open({
            kind: "customer",
            customerId: "cust-x",
            role: "viewer",
            restore: { id: "cust-x" },
          });
          stop.abort("SIGTERM");
          await ctx.clock.sleep(60_000);
        }),
        check("sample/never", async () => {}),
      ],
      { target: fakeTarget() },
    );
    interrupted = await runPlan(plan, {
      fetch: fakeFetch,
      clock: systemClock(),
      seed: 1,
      runs: 1,
      timeoutMs: 200,
      catalogue: { path: null, requirements: [] },
      signal: stop.signal,
      journalFile: join(mkdtempSync(join(tmpdir(), "lckit-journal-")), "journal.ndjson"),
    });
  });

  it("validates against the schema with its interruption and what is left changed", () => {
    const validate = reportValidator();
    expect(validate(JSON.parse(renderJson(interrupted))), JSON.stringify(validate.errors)).toBe(true);
    expect(interrupted).toMatchObject({
      verdict: "INTERRUPTED",
      interruption: { cause: "SIGTERM" },
      configuration: { changes: 1, leftChanged: ["customer cust-x (changed by sample/changes)"] },
    });
  });

  it("says so in every format, with the command that puts the change back", () => {
    const md = renderMarkdown(interrupted);
    expect(md).toMatch(/^## ⏹️ INTERRUPTED/);
    expect(md).toMatch(/\*\*The run ended early\*\* \(SIGTERM/);
    expect(md).toMatch(
      /\*\*Configuration left changed\*\* \(1\).*<code>lckit restore .*journal\.ndjson --target &lt;target file&gt;<\/code>/,
    );
    const html = renderHtml(interrupted);
    expect(html).toContain('<header class="verdict interrupted">');
    expect(html).toMatch(/The run ended early \(SIGTERM/);
    expect(html).toMatch(/<code>lckit restore .*journal\.ndjson --target &lt;target file&gt;<\/code>/);
    const xml = renderJunit(interrupted);
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml).toMatch(/<property name="verdict" value="INTERRUPTED"\/>/);
    expect(xml).toMatch(/<property name="interrupted" value="the run received SIGTERM"\/>/);
    expect(xml).toMatch(/<skipped message="not run: the run received SIGTERM"\/>/);
  });
});
