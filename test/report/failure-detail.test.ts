// Failures as data: a check that fails with a structured detail (expected, actual, request, record, field,
// pages) carries it through the runner into report.json (valid against the schema) and all four renderers;
// a check that passes, or fails with a bare sentence, reports exactly as before.
import { beforeAll, describe, expect, it } from "vitest";
import { CheckFailure, fail, failureDetail, requestOf } from "../../src/check/index.ts";
import { curlForCheck } from "../../src/report/curl.ts";
import { renderHtml } from "../../src/report/html.ts";
import { renderJson } from "../../src/report/json.ts";
import { renderJunit } from "../../src/report/junit.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { pickEvidence } from "../../src/result/evidence.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeFetch, fakeTarget, ISSUED_TOKEN, SECRET } from "../runner/fake-target.ts";
import { reportValidator } from "./report-schema.ts";
import { REPEATED, scanFailureRun } from "./scan-failure-run.ts";

const validate = reportValidator();

function byId(result: RunResult, id: string): CheckResult {
  const found = result.checks.find((c) => c.id === id);
  if (found === undefined) throw new Error(`no check ${id} in the result`);
  return found;
}

let faulty: RunResult;
let correct: RunResult;
beforeAll(async () => {
  [faulty, correct] = await Promise.all([scanFailureRun(true), scanFailureRun(false)]);
});

describe("a failure with a structured detail", () => {
  it("reaches the run result with every field the check gave", () => {
    const c = byId(faulty, "lookup-scan/every-record-once");
    expect(c.status).toBe("failed");
    expect(c.details).toEqual({
      expected: "each record once in a scan",
      actual: `${REPEATED} on page 2 and on page 7`,
      request: { method: "GET", path: "/scan?page=7" },
      record: REPEATED,
      field: "items.0.key",
      pages: [2, 7],
    });
  });

  it("keeps as evidence the pages that hold the record at fault, even before the last five exchanges", () => {
    const c = byId(faulty, "lookup-scan/every-record-once");
    const urls = (c.evidence ?? []).map((x) => new URL(x.request.url).search);
    // Pages 1..7 were sent: the last five (3..7) and, before them, page 2, the first that holds the record.
    expect(urls).toEqual(["?page=2", "?page=3", "?page=4", "?page=5", "?page=6", "?page=7"]);
  });

  it("report.json validates against the schema, and the schema refuses a malformed detail", () => {
    expect(validate(JSON.parse(renderJson(faulty))), JSON.stringify(validate.errors)).toBe(true);
    const c = byId(faulty, "lookup-scan/every-record-once");
    for (const bad of [
      { ...c.details, pages: [0] },
      { ...c.details, request: { path: "/scan" } },
      { ...c.details, record: 31 },
      { ...c.details, culprit: "x" },
    ]) {
      const broken = { ...faulty, checks: faulty.checks.map((x) => (x === c ? { ...x, details: bad } : x)) };
      expect(validate(JSON.parse(JSON.stringify(broken))), JSON.stringify(bad)).toBe(false);
    }
  });

  it("junit.xml carries it in the failure body", () => {
    const xml = renderJunit(faulty);
    const failure = /<testcase[^>]*every-record-once[\s\S]*?<failure[^>]*>([\s\S]*?)<\/failure>/.exec(
      xml,
    )?.[1];
    expect(failure).toBeDefined();
    for (const line of [
      "expected: each record once in a scan",
      `actual: ${REPEATED} on page 2 and on page 7`,
      "request: GET /scan?page=7",
      `record: ${REPEATED}`,
      "field: items.0.key",
      "pages: page 2 and page 7",
    ])
      expect(failure).toContain(line);
  });

  it("summary.md shows it in the failure's cell without adding a column", () => {
    const row = renderMarkdown(faulty)
      .split("\n")
      .find((l) => l.includes("every-record-once") && l.startsWith("|"));
    expect(row).toBeDefined();
    expect(row?.split(/(?<!\\)\|/)).toHaveLength(7);
    expect(row).toContain(`**record** <code>${REPEATED}</code>`);
    expect(row).toContain("**pages** <code>page 2 and page 7</code>");
    expect(row).toContain("**request** <code>GET /scan?page=7</code>");
  });

  it("report.html has a compact detail grid and pinpoints the record and its two pages", () => {
    const html = renderHtml(faulty);
    expect(html).toContain(`<dt>record</dt><dd class="detail-record"><code>${REPEATED}</code></dd>`);
    expect(html).toContain(`<dt>pages</dt><dd class="detail-pages"><code>page 2 and page 7</code></dd>`);
    // In the failures list, before any evidence is opened.
    expect(html).toMatch(
      new RegExp(
        `class="finding"[^\\n]*record <code>${REPEATED}</code>, field <code>items.0.key</code> at page 2 and page 7`,
      ),
    );
    // In the evidence: the two pages whose answers hold the record are marked, the pages between are not.
    const marked = [
      ...html.matchAll(
        /<div class="exchange cited"><p class="cited">[^<]*<\/p><pre class="request">GET ([^\n]*)/g,
      ),
    ].map((m) => new URL(m[1] ?? "").search);
    expect(marked).toEqual(["?page=2", "?page=7"]);
    expect(html.match(/<div class="exchange">/g)).toHaveLength(4);
  });
});

describe("failures without detail and passing checks report as before", () => {
  it("a bare fail(message) has no details key in any form", () => {
    const c = byId(faulty, "lookup-scan/bare");
    expect(c.status).toBe("failed");
    expect(c).not.toHaveProperty("details");
    expect(failureDetail(new CheckFailure("only words"))).toBeUndefined();
    expect(failureDetail(new CheckFailure("undefined fields", { expected: undefined }))).toBeUndefined();
  });

  it("a passing check carries no details and no evidence; the passing run's report validates", () => {
    const c = byId(correct, "lookup-scan/every-record-once");
    expect(c.status).toBe("passed");
    for (const key of ["details", "evidence", "message", "counterexample"]) expect(c).not.toHaveProperty(key);
    expect(validate(JSON.parse(renderJson(correct))), JSON.stringify(validate.errors)).toBe(true);
    expect(renderHtml(correct)).not.toContain('class="detail"');
  });

  it("the curl line resends the request the detail names, else the last exchange", () => {
    const x = (path: string) => ({
      request: { method: "GET", url: `http://t${path}`, headers: {} },
      response: { status: 200, headers: {}, body: "{}" },
      durationMs: 1,
    });
    const evidence = [x("/a"), x("/faulty?x=1"), x("/b")];
    expect(curlForCheck({ evidence })).toContain("'http://t/b'");
    expect(
      curlForCheck({ evidence, details: { request: { method: "GET", path: "/faulty?x=1" } } }),
    ).toContain("'http://t/faulty?x=1'");
    // A detail naming a request the evidence does not hold: the last exchange, as without a detail.
    expect(curlForCheck({ evidence, details: { request: { method: "POST", path: "/a" } } })).toContain(
      "'http://t/b'",
    );
  });

  it("evidence is the last five exchanges when the detail cites nothing earlier", () => {
    const xs = Array.from({ length: 8 }, (_, i) => ({
      request: { method: "GET", url: `http://t/scan?page=${i + 1}`, headers: {} },
      response: { status: 200, headers: {}, body: `{"items":[{"key":"k${i + 1}"}]}` },
      durationMs: 1,
    }));
    const pages = (picked: typeof xs) => picked.map((x) => x.request.url.slice(-1));
    expect(pages(pickEvidence(xs, undefined))).toEqual(["4", "5", "6", "7", "8"]);
    expect(pages(pickEvidence(xs, { record: "k2" }))).toEqual(["2", "4", "5", "6", "7", "8"]);
    expect(pages(pickEvidence(xs, { request: { method: "get", path: "/scan?page=1" } }))).toEqual([
      "1",
      "4",
      "5",
      "6",
      "7",
      "8",
    ]);
  });
});

describe("a failure detail holds no secret", () => {
  it("a token in the request's query and a secret in the record are redacted in every format", async () => {
    const target = fakeTarget({ loopback: false });
    const leaky = check(
      "service/leaky-detail",
      async (ctx) => {
        const token = await ctx.token("viewer");
        const url = `${ctx.target.rdmUrl}/healthcheck?access_token=${token}`;
        await ctx.fetch(url, { headers: { authorization: `Bearer ${token}` } });
        fail("the target echoed a credential", {
          expected: "no credential in the answer",
          actual: `token ${token}`,
          request: requestOf("GET", url),
          record: `client viewer-id with secret ${SECRET}`,
          field: `echo.${token}`,
        });
      },
      { needs: { roles: ["viewer"] }, requirements: ["SERVICE-02"] },
    );
    const result = await runPlan(planRun([leaky], { target }), {
      fetch: fakeFetch,
      clock: systemClock(),
      seed: 1,
      runs: 1,
      timeoutMs: 1000,
      catalogue: { path: "requirements/catalogue.yaml", requirements: [] },
    });
    const c = byId(result, "service/leaky-detail");
    expect(c.details?.request?.path).toMatch(/^\/healthcheck\?access_token=/);
    for (const text of [
      renderJson(result),
      renderJunit(result),
      renderMarkdown(result),
      renderHtml(result),
    ]) {
      expect(text).not.toContain(ISSUED_TOKEN);
      expect(text).not.toContain(SECRET);
    }
  });
});
