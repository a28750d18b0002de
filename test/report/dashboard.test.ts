// The report's dashboard as data and markup (the browser test looks at it laid out): outcomes that never
// call a SHOULD finding a failure, the timeline's data from the runner (start, lane, waits), schema
// departures grouped by (status, JSON pointer), summary.md's first screen, and a status the model may add
// later (inconclusive) rendered like any other.
import { beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html.ts";
import { renderJson } from "../../src/report/json.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { countOutcomes, outcomeOf } from "../../src/report/outcome.ts";
import { timelineOf } from "../../src/report/timeline.ts";
import type { CheckResult, RunResult } from "../../src/result/model.ts";
import { conformantWithFindings, eventCheckRun, notConformant } from "./dashboard-runs.ts";
import { reportValidator } from "./report-schema.ts";
import { sampleRun } from "./sample-run.ts";

let conformant: RunResult;
let failing: RunResult;
beforeAll(async () => {
  conformant = await conformantWithFindings();
  failing = await notConformant();
}, 120_000);

describe("outcomes", () => {
  it.each([
    ["a failed MUST check is a failure", { status: "failed", level: "MUST" }, "failure"],
    ["a failed SHOULD check is a finding", { status: "failed", level: "SHOULD" }, "finding"],
    ["a failed MAY check is a finding", { status: "failed", level: "MAY" }, "finding"],
    [
      "a failed check under a live waiver is waived",
      {
        status: "failed",
        level: "MUST",
        waiver: { check: "x", reason: "r", who: "w", expires: "2099-01-01", expired: false },
      },
      "waived",
    ],
    ["a passed check is passed", { status: "passed", level: "MUST" }, "passed"],
    ["a status added later stands for itself", { status: "inconclusive", level: "MUST" }, "inconclusive"],
  ] as [string, Pick<CheckResult, "status" | "level" | "waiver">, string][])("%s", (_, check, want) => {
    expect(outcomeOf(check)).toBe(want);
  });
});

describe("a conformant run with SHOULD findings", () => {
  it("calls them findings, never failures, in report.html and summary.md", () => {
    expect(conformant.verdict).toBe("CONFORMANT");
    const findings = conformant.checks.filter((c) => outcomeOf(c) === "finding").length;
    expect(findings).toBeGreaterThan(5);
    expect(conformant.verdictReason).toContain(`${findings} SHOULD/MAY findings (warnings, not failures)`);
    const html = renderHtml(conformant);
    const md = renderMarkdown(conformant);
    for (const text of [html, md]) {
      expect(text).not.toMatch(/Failures \(\d+\)|SHOULD\/MAY checks? failed/);
      expect(text).toContain("MUST failures (0)");
      expect(text).toMatch(
        new RegExp(`SHOULD/MAY findings \\(${findings}\\)(</b>)?: warnings, not failures`),
      );
    }
    const body = html.slice(html.indexOf("<body>"), html.indexOf("<script>"));
    expect(body).not.toMatch(/class="badge o-failure"|data-outcome="failure"|c-failing/);
    expect(md).not.toContain("🟥");
    expect(md).toMatch(/\| schema \| \d+ \| 🟩*🟨+ \|/u);
  });

  it("groups each schema finding's departures by (status, JSON pointer) with a count and an example", () => {
    const schema = conformant.checks.filter((c) => c.id.startsWith("schema/") && c.status === "failed");
    expect(schema.length).toBeGreaterThan(0);
    for (const c of schema) {
      const departures = c.details?.departures ?? [];
      expect(departures.length, c.id).toBeGreaterThan(0);
      const keys = departures.map((d) => `${d.status} ${d.pointer}`);
      expect(new Set(keys).size).toBe(keys.length);
      for (const d of departures) {
        expect(d.pointer).not.toMatch(/\/\d+(\/|$)/);
        expect(d.example).toContain(`-> ${d.status}:`);
        expect(d.count).toBeGreaterThanOrEqual(1);
      }
    }
    const html = renderHtml(conformant);
    const first = schema[0]?.details?.departures?.[0];
    expect(html).toContain(`<span class="count">×${first?.count}</span> <code>${first?.status}</code>`);
  });

  it("validates against report.schema.json with its timeline and departures", () => {
    for (const run of [conformant, failing]) {
      const validate = reportValidator();
      expect(validate(JSON.parse(renderJson(run))), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    }
  });
});

describe("a NOT CONFORMANT run", () => {
  it("lists its MUST failures first, with expected and actual, in both formats", () => {
    expect(failing.verdict).toBe("NOT CONFORMANT");
    const failures = failing.checks.filter((c) => outcomeOf(c) === "failure");
    const html = renderHtml(failing);
    const md = renderMarkdown(failing);
    expect(html).toContain(`MUST failures (${failures.length})`);
    expect(md).toContain(`### MUST failures (${failures.length})`);
    const list = html.slice(html.indexOf('<ol class="must-failures">'), html.indexOf("</ol>"));
    expect(list).toContain("<dt>expected</dt>");
    expect(list).toContain("<dt>actual</dt>");
    expect(md.indexOf("### MUST failures")).toBeLessThan(md.indexOf("SHOULD/MAY findings ("));
    expect(md).toContain("🟥");
  });
});

describe("an event check's report", () => {
  it("names the stream it read, not a target, its URLs, requests or /version", async () => {
    const events = await eventCheckRun();
    const md = renderMarkdown(events);
    const html = renderHtml(events);
    expect(md).toContain("Messages from <code>invalid.ndjson</code>");
    expect(html).toContain("<dt>Messages from</dt><dd>invalid.ndjson</dd>");
    for (const text of [md, html]) expect(text).not.toMatch(/Target \/version|Target <code><\/code>/);
    expect(html).toContain("holds no start times of its checks");
  });
});

describe("the size of report.html", () => {
  it("stays under 2 MB when every check fails with the largest evidence of the run, naming what it left out", () => {
    const richest = [...failing.checks].sort(
      (a, b) => JSON.stringify(b.evidence ?? []).length - JSON.stringify(a.evidence ?? []).length,
    )[0] as CheckResult;
    expect(JSON.stringify(richest.evidence).length).toBeGreaterThan(10_000);
    const worst: RunResult = {
      ...failing,
      checks: failing.checks.map((c) => ({
        ...c,
        status: "failed",
        message: richest.message ?? "",
        ...(richest.evidence ? { evidence: richest.evidence } : {}),
      })),
    };
    const html = renderHtml(worst);
    expect(Buffer.byteLength(html)).toBeLessThan(2 * 1024 * 1024);
    expect(html).toMatch(
      /left out of report\.html to keep it under 2 MB; report\.json and evidence\.har\.gz hold it/,
    );
    // The failures come first, so the first check's exchanges are all there.
    const first = html.indexOf('<tr class="failed"');
    expect(html.slice(first, html.indexOf("</tr>", first))).not.toContain("left out of report.html");
  });
});

describe("the timeline", () => {
  it("places every check that ran by its start time; a drivable clock runs them one at a time", () => {
    const ran = conformant.checks.filter((c) => c.status !== "skipped");
    for (const c of ran) expect(c.startedMs, c.id).toBeGreaterThanOrEqual(0);
    const starts = ran.map((c) => c.startedMs ?? 0);
    expect(Math.max(...starts)).toBeLessThanOrEqual(conformant.durationMs);
    const timeline = timelineOf(conformant);
    expect(timeline?.rows.map((r) => r.label)).toEqual(["one at a time"]);
    expect(timeline?.rows[0]?.bars.length).toBe(ran.length);
  });

  it("draws lanes and waits from the result (start, lane, waits in ms)", async () => {
    const base = await sampleRun();
    const [a, b] = base.checks.filter((c) => c.status !== "skipped");
    if (a === undefined || b === undefined) throw new Error("the sample run has two checks that ran");
    const run: RunResult = {
      ...base,
      durationMs: 10_000,
      checks: [
        { ...a, startedMs: 0, durationMs: 8000, lane: 0, waitMs: 6000, waits: [{ atMs: 1000, ms: 6000 }] },
        { ...b, startedMs: 500, durationMs: 2000, lane: 1 },
      ],
    };
    const timeline = timelineOf(run);
    expect(timeline?.rows.map((r) => [r.label, r.bars.length, r.busyMs, r.waitedMs])).toEqual([
      ["lane 1", 1, 8000, 6000],
      ["lane 2", 1, 2000, 0],
    ]);
    const html = renderHtml(run);
    expect(html).toContain('style="left:min(0.000%,calc(100% - 3px));width:80.000%"');
    expect(html).toContain('<span class="wait" style="left:12.50%;width:75.00%"></span>');
    expect(html).toContain('style="left:min(5.000%,calc(100% - 3px));width:20.000%"');
    expect(html).toMatch(/busy 8\.0 s · waiting 6\.0 s/);
  });

  it("says so when the result holds no start times", async () => {
    const base = await sampleRun();
    const run: RunResult = { ...base, checks: base.checks.map(({ startedMs: _, ...c }) => c) };
    expect(timelineOf(run)).toBeUndefined();
    expect(renderHtml(run)).toContain("holds no start times of its checks");
  });
});

describe("inconclusive, like any status the model has or adds", () => {
  it("is counted, filtered, coloured and tabled like any other", async () => {
    const base = await sampleRun();
    const odd = {
      ...(base.checks[0] as CheckResult),
      id: "scan/undecided",
      status: "inconclusive",
      reason: "could not decide: both readings fit",
    };
    const run = { ...base, checks: [...base.checks, odd as unknown as CheckResult] };
    expect(countOutcomes(run.checks).inconclusive).toBe(1);
    const html = renderHtml(run);
    expect(html).toContain('data-outcome="inconclusive"');
    expect(html).toContain('<option value="inconclusive">inconclusive</option>');
    expect(html).toContain('class="seg o-inconclusive"');
    expect(html).toContain("Could not decide (1)");
    expect(html).toContain("could not decide: both readings fit");
    const md = renderMarkdown(run);
    expect(md).toMatch(/\| Level \| [^\n]*\| inconclusive \|/);
    expect(md).toContain("🟧");
  });
});
