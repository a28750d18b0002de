// Retries and evidence locations in html, markdown and junit: a flaky target's retries show per check (a
// count, a line each: what happened, the wait) and in one summary line per format, a passed check without
// retries renders as before, every format says where a check's evidence is (evidence.har entries,
// events.ndjson lines), the folder still verifies (report.json and junit.xml agree), and the secret in the
// retried requests' URL never appears.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summaryText } from "../../src/cli/commands/run.ts";
import { evidenceLocation, ranges } from "../../src/report/citations.ts";
import { renderHtml } from "../../src/report/html.ts";
import { renderJson } from "../../src/report/json.ts";
import { renderJunit } from "../../src/report/junit.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { readRetry, retrySummary } from "../../src/report/retries.ts";
import { verifyFolder, writeManifest } from "../../src/report-folder/manifest.ts";
import { writeReport } from "../../src/report-folder/write.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { ISSUED_TOKEN, SECRET } from "../runner/fake-target.ts";
import { type RetriedRun, retriedRun } from "./retried-run.ts";
import { sampleRun } from "./sample-run.ts";
import { xmlProblems } from "./xml-problems.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-retries-render-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let run: RetriedRun;
let rendered: { markdown: string; html: string; junit: string };
const byId = (id: string) => run.result.checks.find((c) => c.id === id) as CheckResult;
beforeAll(async () => {
  run = await retriedRun();
  rendered = {
    markdown: renderMarkdown(run.result),
    html: renderHtml(run.result),
    junit: renderJunit(run.result),
  };
}, 30_000);

const SUMMARY = "3 requests retried in 3 checks: 1 after a reset, 1 after a 503, 1 after a 429 (waited 1 s)";

describe("the transport's retries, as lines", () => {
  it("names each cause, the status and the wait", () => {
    const url = "http://t/x";
    const request = `GET ${url}`;
    expect(
      readRetry({ exchange: 4, cause: "rate-limit", request, status: 429, waitMs: 2000, note: "n" }),
    ).toEqual({
      exchange: 4,
      cause: "rate-limit",
      status: 429,
      waitMs: 2000,
      line: `exchange 4: GET ${url} answered 429; waited 2 s (Retry-After), then sent again`,
    });
    expect(
      readRetry({ exchange: 5, cause: "status", request, status: 502, waitMs: 250, note: "n" }),
    ).toMatchObject({
      cause: "status",
      status: 502,
      line: `exchange 5: GET ${url} answered 502; sent again once after 250 ms`,
    });
    const error = "fetch failed: read ECONNRESET (ECONNRESET)";
    expect(readRetry({ exchange: 6, cause: "reset", request, error, waitMs: 250, note: "n" })).toMatchObject({
      cause: "reset",
      line: `exchange 6: GET ${url}: no answer (${error}); sent again once after 250 ms`,
    });
    expect(
      readRetry({
        exchange: -1,
        cause: "connection",
        request,
        error: "connect ECONNREFUSED",
        waitMs: 250,
        note: "n",
      }).line,
    ).toBe(`GET ${url}: no answer (connect ECONNREFUSED); sent again once after 250 ms`);
  });

  it("compacts numbers into ranges and counts what it leaves out", () => {
    expect(ranges([9, 3, 4, 5, 5, 12])).toBe("3-5, 9, 12");
    expect(ranges(Array.from({ length: 20 }, (_, i) => i * 2))).toBe("0, 2, 4, 6, 8, 10, 12, 14 and 12 more");
  });
});

describe("a run against a flaky target", () => {
  it("ends with the retried checks passed and the one that failed on its own terms failed", () => {
    expect(run.result.checks.map((c) => [c.id, c.status, c.retries?.length ?? 0])).toEqual([
      ["service/rate-limited", "passed", 1],
      ["service/reset", "passed", 1],
      ["service/unavailable", "failed", 1],
      ["service/steady", "passed", 0],
    ]);
    expect(retrySummary(run.result)).toContain(SUMMARY);
  });

  it("summary.md: the summary line, a Retries section with a line per retry, the evidence of the failure", () => {
    const md = rendered.markdown;
    expect(md).toContain(`**Retries:** ${SUMMARY}`);
    const section = md.slice(md.indexOf("### Retries (3 checks)"));
    expect(section).toMatch(
      /- <code>service\/rate-limited<\/code> passed, 1 retry; evidence <code>evidence\.har\.gz log\.entries\[\d+(-\d+)?(, \d+(-\d+)?)*\]<\/code>/,
    );
    expect(section).toMatch(
      / {2}- <code>exchange \d+: GET http:\/\/\S+ answered 429; waited 1 s \(Retry-After\), then sent again<\/code>/,
    );
    expect(section).toMatch(/ {2}- <code>exchange \d+: GET \S+: no answer \(fetch failed: read ECONNRESET/);
    expect(section).not.toContain("service/steady");
    const row = md.split("\n").find((l) => l.startsWith("| <code>service/unavailable</code>")) ?? "";
    expect(row).toMatch(
      /<br>\*\*evidence\*\* <code>evidence\.har\.gz log\.entries\[[\d, -]+\]<\/code>; \*\*1 retry\*\* \(see Retries\)/,
    );
  });

  it("report.html: the summary under the verdict, folded retries on the passed rows, nothing new on a steady one", () => {
    const html = rendered.html;
    expect(html).toContain(`<p class="retries-summary">${SUMMARY}`);
    const row = (id: string) =>
      new RegExp(`<tr [^>]*id="check-${id.replace("/", "-")}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? "";
    expect(row("service/rate-limited")).toMatch(
      /<details class="retries"><summary>1 retry \(no finding by itself\)<\/summary><ul><li>exchange \d+: GET [^<]+ answered 429; waited 1 s \(Retry-After\), then sent again<\/li><\/ul><p class="evidence-location"><b>evidence<\/b> <code>evidence\.har\.gz log\.entries\[/,
    );
    // A passed check without retries: its details cell is empty, as before.
    expect(row("service/steady")).toMatch(/<td><\/td>$/);
    const failed = row("service/unavailable");
    expect(failed).toMatch(
      /<p class="evidence-location"><b>evidence<\/b> <code>evidence\.har\.gz log\.entries\[/,
    );
    expect(failed).toContain("answered 503; sent again once after 250 ms");
  });

  it("junit.xml: a retries property, RETRIED in the passed testcases' system-out, the evidence in the failure; well-formed", () => {
    const xml = rendered.junit;
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml).toContain(`<property name="retries" value="${SUMMARY}`);
    const testcase = (id: string) =>
      new RegExp(`<testcase name="${id.replace("/", "\\/")}"[^>]*?(/>|>[\\s\\S]*?</testcase>)`).exec(
        xml,
      )?.[0] ?? "";
    expect(testcase("service/rate-limited")).toMatch(
      /<system-out>RETRIED: 1 request sent again \(no finding by itself\)\nexchange \d+: GET \S+ answered 429; waited 1 s \(Retry-After\), then sent again\nevidence: evidence\.har\.gz log\.entries\[/,
    );
    expect(testcase("service/reset")).not.toMatch(/<failure|<error/);
    expect(testcase("service/steady")).toMatch(/^<testcase [^>]*\/>$/);
    expect(testcase("service/unavailable")).toMatch(
      /<failure [^>]*>[\s\S]*evidence: evidence\.har\.gz log\.entries\[[\s\S]*retried \(no finding by itself\):\n {2}exchange \d+: GET \S+ answered 503/,
    );
  });

  it("the terminal summary of lckit run says it in one line, after the counts", () => {
    const text = summaryText(run.result, "reports/x");
    const lines = text.split("\n");
    expect(lines[2]).toBe(
      `retries: ${SUMMARY}; a retry is no failure: the target was flaky, and each check judged the answer it finally got`,
    );
    expect(summaryText({ ...run.result, checks: [byId("service/steady")] }, "reports/x")).not.toMatch(/retr/);
  });

  it("the evidence each format names is where the check's exchanges are", () => {
    const har = JSON.parse(readFileSync(run.har, "utf8")) as {
      log: { entries: { request: { url: string }; _exchangeId: number }[] };
    };
    for (const id of ["service/rate-limited", "service/reset", "service/unavailable"]) {
      const c = byId(id);
      const cited = (c.harEntries ?? []).map((i) => har.log.entries[i]);
      // The retried attempt and the answer after it are both cited, both of this check's read.
      expect(cited.filter((e) => e?.request.url.includes("/flaky/")).length).toBeGreaterThanOrEqual(2);
      expect(cited.map((e) => e?._exchangeId)).toContain(c.retries?.[0]?.exchange);
      expect(evidenceLocation(c)).toBe(`evidence.har.gz log.entries[${ranges(c.harEntries ?? [])}]`);
    }
  });

  it("the report folder with the retries still verifies: junit.xml agrees with report.json", () => {
    const written = writeReport(run.result, dir);
    copyFileSync(run.har, join(written.dir, "evidence.har"));
    writeManifest(written.dir, run.result.runId);
    const verified = verifyFolder(written.dir);
    expect(verified.problems).toEqual([]);
    expect(verified.checked.join("\n")).toMatch(/report\.json and junit\.xml agree on 4 checks/);
  });

  it("no format shows the client secret or the token that were in the retried requests' URL", () => {
    const all = { ...rendered, json: renderJson(run.result) };
    for (const [format, text] of Object.entries(all)) {
      expect({ format, secret: text.includes(SECRET) }).toEqual({ format, secret: false });
      expect({ format, token: text.includes(ISSUED_TOKEN) }).toEqual({ format, token: false });
    }
    // The retried URL is shown, redacted where it held them.
    expect(rendered.html).toMatch(
      /GET http:\/\/\S+\/flaky\/rate-limited\/\[redacted\]\?access_token=\[redacted\]&amp;client_secret=\[redacted\] answered 429/,
    );
    expect(rendered.markdown).toMatch(
      /\/flaky\/unavailable\/\[redacted\]\?access_token=\[redacted\]&amp;client_secret=\[redacted\] answered 503/,
    );
    expect(rendered.junit).toMatch(/GET http:\/\/\S+\/flaky\/reset\/\[redacted\]\?access_token=\[redacted\]/);
  });
});

describe("a run without retries", () => {
  it("has no retries line in any format, and its passed checks render as one-line testcases and empty cells", async () => {
    const sample: RunResult = await sampleRun();
    expect(sample.checks.some((c) => (c.retries ?? []).length > 0)).toBe(false);
    const md = renderMarkdown(sample);
    const html = renderHtml(sample);
    const xml = renderJunit(sample);
    expect(md).not.toMatch(/Retries/);
    expect(html).not.toMatch(/<p class="retries-summary"|<details class="retries"/);
    expect(xml).not.toMatch(/name="retries"|RETRIED/);
    expect(xml).toMatch(/<testcase name="service\/health"[^>]*\/>/);
    expect(html).toMatch(/id="check-service-health"><td>[\s\S]*?<td><\/td><\/tr>/);
  });
});

describe("event checks cite their events.ndjson lines in every format", () => {
  it("names the lines of a failed event check", async () => {
    const sample = await sampleRun();
    const withLines: RunResult = {
      ...sample,
      checks: sample.checks.map((c) =>
        c.id === "service/echo-secret"
          ? { ...c, exchangeIds: [], harEntries: [], eventLines: [2, 3, 4, 9] }
          : c,
      ),
    };
    const where = "events.ndjson lines 2-4, 9";
    expect(renderMarkdown(withLines)).toContain(`**evidence** <code>${where}</code>`);
    expect(renderHtml(withLines)).toContain(`<b>evidence</b> <code>${where}</code>`);
    expect(renderJunit(withLines)).toContain(`evidence: ${where}`);
  });
});
