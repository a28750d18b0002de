// report.html in a real headless Chromium (Debian's package; scripts/chromium.mjs installs it for the test
// command): a failing report opened as a user would, with a probe script appended that reads what the
// browser laid out and drives the page's own filter script. A screenshot is kept in the test output
// (.tmp/report-html.png). Where no Chromium can be installed the test says so and checks the HTML only.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html.ts";
import type { RunResult } from "../../src/result/model.ts";
import { retriedRun } from "./retried-run.ts";
import { sampleRun } from "./sample-run.ts";
import { REPEATED, scanFailureRun } from "./scan-failure-run.ts";

const repo = join(import.meta.dirname, "..", "..");
const chromium = [process.env.LCKIT_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (path): path is string => path !== undefined && path !== "" && existsSync(path),
);
const dir = mkdtempSync(join(tmpdir(), "lckit-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Runs in the page after the report's own script; leaves its findings as JSON in <pre id="probe">.
const probe = `<script>
(function(){
  var out = {};
  // checkVisibility also sees content inside a closed <details> (content-visibility: hidden) as hidden.
  var visible = function(el){ var r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true }); };
  var h1 = document.querySelector("header.verdict h1");
  out.verdict = h1.textContent;
  out.verdictVisible = visible(h1) && h1.getBoundingClientRect().top < window.innerHeight;
  out.verdictBackground = getComputedStyle(document.querySelector("header.verdict")).backgroundColor;
  out.failuresAboveChecks = document.getElementById("failures").getBoundingClientRect().top < document.getElementById("checks").getBoundingClientRect().top;
  out.failureLinks = Array.prototype.map.call(document.querySelectorAll("#failures a[href^='#check-']"), function(a){ return a.getAttribute("href"); });
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.checks tbody tr"));
  out.rowStatuses = rows.map(function(r){ return r.getAttribute("data-status"); });
  var status = document.querySelector('select[data-filter="status"]');
  status.value = "failed"; status.dispatchEvent(new Event("change"));
  out.shownWhenFailed = rows.filter(visible).map(function(r){ return r.getAttribute("data-status"); });
  out.counterWhenFailed = document.getElementById("shown").textContent;
  var level = document.querySelector('select[data-filter="level"]');
  level.value = "SHOULD"; level.dispatchEvent(new Event("change"));
  out.shownWhenFailedShould = rows.filter(visible).map(function(r){ return r.getAttribute("data-level") + " " + r.getAttribute("data-status"); });
  status.value = ""; status.dispatchEvent(new Event("change"));
  level.value = ""; level.dispatchEvent(new Event("change"));
  out.shownWhenAll = rows.filter(visible).length;
  var evidence = Array.prototype.find.call(document.querySelectorAll("table.checks details"), function(d){ return /evidence/.test(d.querySelector("summary").textContent); });
  var exchange = evidence.querySelector(".exchange");
  out.evidenceVisibleClosed = visible(exchange);
  evidence.querySelector("summary").click();
  out.evidenceVisibleOpen = visible(exchange);
  out.evidenceText = exchange.textContent.slice(0, 200);
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`;

// Reads how a failure's detail is laid out: the grid's label and value side by side, the record and its
// pages named in the failures list, and which exchanges of the opened evidence are marked as cited.
const detailProbe = `<script>
(function(){
  var out = {};
  var grid = document.querySelector("table.checks dl.detail");
  var dt = grid.querySelector("dt"), dd = grid.querySelector("dd");
  out.sideBySide = Math.abs(dt.getBoundingClientRect().top - dd.getBoundingClientRect().top) < 2 && dt.getBoundingClientRect().right <= dd.getBoundingClientRect().left;
  out.labels = Array.prototype.map.call(grid.querySelectorAll("dt"), function(e){ return e.textContent; });
  out.pinpoint = document.querySelector("#failures .pinpoint").textContent;
  out.rows = document.querySelectorAll("table.checks tbody tr").length;
  var evidence = Array.prototype.find.call(document.querySelectorAll("table.checks details"), function(d){ return /evidence/.test(d.querySelector("summary").textContent); });
  evidence.querySelector("summary").click();
  out.cited = Array.prototype.map.call(evidence.querySelectorAll(".exchange.cited pre.request"), function(p){ return p.textContent.split("\\n")[0]; });
  out.citedBorder = getComputedStyle(evidence.querySelector(".exchange.cited")).borderLeftColor;
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`;

// Reads the retries of a flaky run: the summary under the verdict, a passed row's folded retries (closed,
// then opened), the evidence location inside them, and the status filter still counting every passed row.
const retriesProbe = `<script>
(function(){
  var out = {};
  var visible = function(el){ var r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true }); };
  var summary = document.querySelector("header.verdict .retries-summary");
  out.summary = summary.textContent;
  out.summaryVisible = visible(summary) && summary.getBoundingClientRect().top < window.innerHeight;
  var row = document.getElementById("check-service-rate-limited");
  var retries = row.querySelector("details.retries");
  var line = retries.querySelector("li");
  out.retriesSummary = retries.querySelector("summary").textContent;
  out.lineVisibleClosed = visible(line);
  retries.querySelector("summary").click();
  out.lineVisibleOpen = visible(line);
  out.line = line.textContent;
  out.location = retries.querySelector(".evidence-location").textContent;
  out.steadyCell = document.getElementById("check-service-steady").lastElementChild.innerHTML;
  var status = document.querySelector('select[data-filter="status"]');
  status.value = "passed"; status.dispatchEvent(new Event("change"));
  out.shownWhenPassed = Array.prototype.filter.call(document.querySelectorAll("table.checks tbody tr"), visible).map(function(r){ return r.id; });
  var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`;

/** Opens html with a probe script appended; returns what the probe wrote (null: no probe output). */
function probed(
  html: string,
  script: string,
  name: string,
): { out: Record<string, unknown> | null; stderr: string } {
  const page = join(dir, name);
  writeFileSync(page, html.replace("</body>", `${script}\n</body>`));
  const got = browse(["--dump-dom", `file://${page}`]);
  const json = /<pre id="probe">([\s\S]*?)<\/pre>/.exec(got.stdout)?.[1];
  if (json === undefined) return { out: null, stderr: `exit ${got.status}: ${got.stderr.slice(-1500)}` };
  const text = json
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
  return { out: JSON.parse(text), stderr: "" };
}

function browse(args: string[]) {
  return spawnSync(
    chromium ?? "chromium",
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      `--user-data-dir=${join(dir, "profile")}`,
      "--window-size=1280,1600",
      ...args,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 90_000 },
  );
}

describe("report.html in headless Chromium", () => {
  let run: RunResult;
  let html: string;
  beforeAll(async () => {
    run = await sampleRun();
    html = renderHtml(run);
    if (!chromium)
      process.stdout.write(
        "html-browser test: NO CHROMIUM here (scripts/chromium.mjs could not install Debian's chromium); " +
          "report.html is checked as HTML only, not in a browser\n",
      );
  });

  it("shows the verdict, failures first, working filters and evidence that expands", () => {
    if (!chromium) {
      // Without a browser: what the probe reads, read from the markup instead.
      expect(html.indexOf('id="failures"')).toBeLessThan(html.indexOf('id="checks"'));
      expect(html).toContain('data-filter="status"');
      return;
    }
    const page = join(dir, "report-probe.html");
    writeFileSync(page, html.replace("</body>", `${probe}\n</body>`));
    const got = browse(["--dump-dom", `file://${page}`]);
    const json = /<pre id="probe">([\s\S]*?)<\/pre>/.exec(got.stdout)?.[1];
    expect(
      json,
      `chromium printed no probe result (exit ${got.status}): ${got.stderr.slice(-1500)}`,
    ).toBeDefined();
    const out = JSON.parse(
      (json ?? "{}")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&"),
    );

    expect(out.verdict).toBe(run.verdict);
    expect(run.verdict).toBe("BROKEN");
    expect(out.verdictVisible).toBe(true);
    expect(out.verdictBackground).toBe("rgb(110, 64, 201)");
    expect(out.failuresAboveChecks).toBe(true);
    expect(out.failureLinks.length).toBe(
      run.checks.filter((c) => c.status === "failed" || c.status === "broken").length,
    );
    // Broken and failed rows come before skipped and passed ones.
    const rank: Record<string, number> = { broken: 0, failed: 1, skipped: 2, passed: 3 };
    const ranks = out.rowStatuses.map((s: string) => rank[s]);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(out.rowStatuses[0]).not.toBe("passed");

    const failed = run.checks.filter((c) => c.status === "failed");
    expect(out.shownWhenFailed).toEqual(failed.map(() => "failed"));
    expect(out.counterWhenFailed).toBe(`${failed.length} of ${run.checks.length} checks`);
    expect(out.shownWhenFailedShould).toEqual(
      failed.filter((c) => c.level === "SHOULD").map(() => "SHOULD failed"),
    );
    expect(out.shownWhenAll).toBe(run.checks.length);
    expect(out.evidenceVisibleClosed).toBe(false);
    expect(out.evidenceVisibleOpen).toBe(true);
    expect(out.evidenceText).toMatch(/POST http/);
  });

  it("lays out a failure's detail as a grid and marks the two pages that hold the repeated record", async () => {
    const scan = await scanFailureRun(true);
    const page = renderHtml(scan);
    if (!chromium) {
      expect(page).toContain('<dl class="detail">');
      return;
    }
    const { out, stderr } = probed(page, detailProbe, "detail-probe.html");
    expect(out, `chromium printed no probe result (${stderr})`).not.toBeNull();
    expect(out?.sideBySide).toBe(true);
    expect(out?.labels).toEqual(["expected", "actual", "request", "record", "field", "pages"]);
    expect(out?.pinpoint).toBe(`(record ${REPEATED}, field items.0.key at page 2 and page 7)`);
    expect(out?.rows).toBe(scan.checks.length);
    expect(out?.cited).toEqual(["GET http://127.0.0.1:9/scan?page=2", "GET http://127.0.0.1:9/scan?page=7"]);
    expect(out?.citedBorder).toBe("rgb(207, 34, 46)");
  });

  it("shows a flaky run's retries: a summary under the verdict, folded per check with where the evidence is", async () => {
    const flaky = await retriedRun();
    const page = renderHtml(flaky.result);
    if (!chromium) {
      expect(page).toContain('<details class="retries">');
      return;
    }
    const { out, stderr } = probed(page, retriesProbe, "retries-probe.html");
    expect(out, `chromium printed no probe result (${stderr})`).not.toBeNull();
    expect(out?.summary).toMatch(
      /^3 requests retried in 3 checks: 1 after a reset, 1 after a 503, 1 after a 429/,
    );
    expect(out?.summaryVisible).toBe(true);
    expect(out?.retriesSummary).toBe("1 retry (no finding by itself)");
    expect(out?.lineVisibleClosed).toBe(false);
    expect(out?.lineVisibleOpen).toBe(true);
    expect(out?.line).toMatch(
      /^exchange \d+: GET \S+\/flaky\/rate-limited\/\[redacted\]\S* answered 429; waited 1 s/,
    );
    expect(out?.location).toMatch(/^evidence evidence\.har log\.entries\[\d/);
    expect(out?.steadyCell).toBe("");
    expect(out?.shownWhenPassed).toEqual(
      flaky.result.checks.filter((c) => c.status === "passed").map((c) => `check-${c.id.replace("/", "-")}`),
    );
  }, 60_000);

  it("renders to a screenshot kept in the test output", () => {
    if (!chromium) return;
    const shots = join(repo, ".tmp");
    mkdirSync(shots, { recursive: true });
    const page = join(dir, "report.html");
    writeFileSync(page, html);
    const shot = join(shots, "report-html.png");
    rmSync(shot, { force: true });
    const got = browse([`--screenshot=${shot}`, `file://${page}`]);
    expect(existsSync(shot), got.stderr.slice(-1500)).toBe(true);
    process.stdout.write(`html-browser test: screenshot of a failing report.html in ${shot}\n`);
  });
});
