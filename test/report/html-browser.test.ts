import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html.ts";
import { outcomeOf } from "../../src/report/outcome.ts";
import type { RunResult } from "../../src/result/model.ts";
import { findChromium } from "../support/chromium.ts";
import { judgedMinutes } from "../traffic/timed-traffic.ts";
import { conformantWithFindings, eventCheckRun, liveRun, notConformant } from "./dashboard-runs.ts";
import { retriedRun } from "./retried-run.ts";
import { sampleRun } from "./sample-run.ts";
import { REPEATED, scanFailureRun } from "./scan-failure-run.ts";

// The page's globals as the functions handed to page.evaluate see them: this project compiles without the
// DOM library, and those functions run in the browser, not here.
// biome-ignore lint/suspicious/noExplicitAny: typed by the page, not by this project
type Dom = any;
declare const document: Dom;
declare const window: Dom;
declare const location: Dom;
declare const Event: Dom;
declare function getComputedStyle(element: Dom): Dom;

const repo = join(import.meta.dirname, "..", "..");
const shots = join(repo, ".tmp", "report-screenshots");
const dir = mkdtempSync(join(tmpdir(), "lckit-html-"));

const chromium = findChromium();

const rowId = (id: string) => `check-${id.replace(/[^\w-]/g, "-")}`;
const WIDTHS = [1280, 390] as const;
const RED = "rgb(207, 34, 46)";
const AMBER = "rgb(154, 103, 0)";

let context: BrowserContext | undefined;
/** Requests the pages made to anything but their own file. */
const outside: string[] = [];

beforeAll(async () => {
  if (!chromium) {
    process.stdout.write(
      "html-browser test: NO CHROMIUM here (scripts/chromium.mjs could not install Debian's chromium); " +
        "report.html is checked as HTML only, not in a browser\n",
    );
    return;
  }
  const { chromium: driver } = await import("playwright-core");
  context = await driver.launchPersistentContext(join(dir, "profile"), {
    executablePath: chromium,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  context.on("request", (r) => {
    if (!/^(file|data|about):/.test(r.url())) outside.push(r.url());
  });
  mkdirSync(shots, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(html: string, name: string, width: number): Promise<Page> {
  const file = join(dir, `${name}.html`);
  writeFileSync(file, html);
  const page = await (context as BrowserContext).newPage();
  await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
  await page.goto(`file://${file}`);
  return page;
}

/** How far the page is wider than its window (0: no horizontal overflow); when it is, what sticks out
 *  (elements inside a box that scrolls or clips are that box's business, not the page's). */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    const excess = root.scrollWidth - root.clientWidth;
    const body = document.body.scrollWidth - root.clientWidth;
    const contained = (e: Dom) => {
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== "visible") return true;
      return false;
    };
    const culprits =
      excess === 0 && body <= 0
        ? []
        : Array.from<Dom>(document.querySelectorAll("body *"))
            .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1 && !contained(e))
            .slice(0, 5)
            .map(
              (e) =>
                `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`,
            );
    return { excess, body: Math.max(0, body), culprits };
  });
}

async function axeViolations(page: Page) {
  const require = createRequire(import.meta.url);
  const source = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.addScriptTag({ content: source });
  const violations = await page.evaluate(async () => {
    const axe = window.axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v: { id: string; impact: string; nodes: { target: string[] }[] }) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    }));
  });
  return (violations as { id: string; impact: string; nodes: string[] }[]).filter(
    (v) => v.impact === "serious" || v.impact === "critical",
  );
}

const fixtures: [string, () => Promise<RunResult>][] = [
  ["conformant-with-findings", conformantWithFindings],
  ["not-conformant", notConformant],
  ["event-check", eventCheckRun],
  ["broken-sample", sampleRun],
  ["traffic-judgement", async () => judgedMinutes()],
];

describe.each(fixtures)("report.html of %s in headless Chromium", (name, make) => {
  let run: RunResult;
  let html: string;
  beforeAll(async () => {
    run = await make();
    html = renderHtml(run);
  }, 120_000);

  it("keeps everything inside the page at 1280 px and 390 px, every excerpt opened, and asks nothing from outside", async () => {
    if (!context) {
      expect(html).not.toMatch(/<link\b|<script\s+src|@import|url\(/i);
      return;
    }
    for (const width of WIDTHS) {
      const page = await open(html, `${name}-${width}`, width);
      expect(await page.locator("header.verdict h1").textContent()).toBe(run.verdict);
      expect(await page.locator("header.verdict h1").isVisible()).toBe(true);
      await page.screenshot({ path: join(shots, `${name}-${width}-first-screen.png`) });
      expect({ width, ...(await overflow(page)) }).toEqual({ width, excess: 0, body: 0, culprits: [] });
      if (width === 1280)
        await page.screenshot({ path: join(shots, `${name}-${width}-full.png`), fullPage: true });
      await page.evaluate(() => {
        for (const d of Array.from<Dom>(document.querySelectorAll("details"))) d.open = true;
      });
      expect({ width, opened: true, ...(await overflow(page)) }).toEqual({
        width,
        opened: true,
        excess: 0,
        body: 0,
        culprits: [],
      });
      await page.close();
    }
    expect(outside).toEqual([]);
  }, 120_000);

  it("reaches every check by its id, even when the filters hide it", async () => {
    if (!context) {
      for (const c of run.checks) expect(html).toContain(`id="${rowId(c.id)}"`);
      return;
    }
    const page = await open(html, `${name}-reach`, 1280);
    const ids = run.checks.map((c) => rowId(c.id));
    const unreachable = await page.evaluate(async (ids) => {
      const missing: string[] = [];
      const search = document.querySelector("input[data-search]") as Dom;
      for (const id of ids) {
        // A search that matches nothing hides every row first.
        search.value = "no check has this text 0xdeadbeef";
        search.dispatchEvent(new Event("input"));
        location.hash = `#${id}`;
        await new Promise((r) => setTimeout(r, 0));
        const row = document.getElementById(id);
        const r = row?.getBoundingClientRect();
        if (!row?.checkVisibility() || !r || r.bottom < 0 || r.top > window.innerHeight) missing.push(id);
      }
      return missing;
    }, ids);
    expect(unreachable).toEqual([]);
    await page.close();
  }, 60_000);

  it("filters by outcome, level and suite and searches check ids, requirement ids and text", async () => {
    const findings = run.checks.filter((c) => outcomeOf(c) === "finding");
    const failures = run.checks.filter((c) => outcomeOf(c) === "failure");
    if (!context) {
      expect(html).toContain('data-filter="outcome"');
      return;
    }
    const page = await open(html, `${name}-filters`, 1280);
    const shown = () =>
      page.evaluate(() =>
        Array.from<Dom>(document.querySelectorAll("table.checks > tbody > tr"))
          .filter((r) => r.checkVisibility())
          .map((r) => r.id)
          .sort(),
      );
    const ids = (cs: RunResult["checks"]) => cs.map((c) => rowId(c.id)).sort();
    const options = await page
      .locator('select[data-filter="outcome"] option')
      .evaluateAll((os) => os.map((o) => (o as Dom).value));
    if (findings.length > 0) {
      await page.selectOption('select[data-filter="outcome"]', "finding");
      expect(await shown()).toEqual(ids(findings));
      expect(await page.locator("#shown").textContent()).toBe(
        `${findings.length} of ${run.checks.length} checks`,
      );
    } else expect(options).not.toContain("finding");
    if (failures.length > 0) {
      await page.selectOption('select[data-filter="outcome"]', "failure");
      expect(await shown()).toEqual(ids(failures));
      await page.selectOption('select[data-filter="level"]', "SHOULD");
      expect(await shown()).toEqual([]);
      await page.selectOption('select[data-filter="level"]', "");
    }
    await page.selectOption('select[data-filter="outcome"]', "");
    const suite = run.checks[0]?.suite ?? "";
    await page.selectOption('select[data-filter="suite"]', suite);
    expect(await shown()).toEqual(ids(run.checks.filter((c) => c.suite === suite)));
    await page.selectOption('select[data-filter="suite"]', "");
    // A requirement id finds the checks tracing to it; a check id finds that check.
    const traced = run.checks.find((c) => c.requirements.length > 0);
    const requirement = traced?.requirements[0] ?? "";
    await page.fill("input[data-search]", requirement);
    const found = await shown();
    for (const c of run.checks.filter((c) => c.requirements.includes(requirement)))
      expect(found).toContain(rowId(c.id));
    const one = run.checks.at(-1);
    await page.fill("input[data-search]", one?.id ?? "");
    expect(await shown()).toContain(rowId(one?.id ?? ""));
    await page.fill("input[data-search]", "");
    expect((await shown()).length).toBe(run.checks.length);
    await page.close();
  }, 60_000);

  it("has no serious or critical accessibility violation (axe-core)", async () => {
    if (!context) return;
    for (const width of WIDTHS) {
      const page = await open(html, `${name}-axe-${width}`, width);
      await page.evaluate(() => {
        for (const d of Array.from<Dom>(document.querySelectorAll("details"))) d.open = true;
      });
      expect({ width, violations: await axeViolations(page) }).toEqual({ width, violations: [] });
      await page.close();
    }
  }, 120_000);
});

describe("the first screen says what the run means", () => {
  it("a conformant run with SHOULD findings: findings in amber, nothing red, never called failures", async () => {
    const run = await conformantWithFindings();
    const html = renderHtml(run);
    const findings = run.checks.filter((c) => outcomeOf(c) === "finding");
    expect(run.verdict).toBe("CONFORMANT");
    expect(findings.length).toBeGreaterThan(5);
    expect(html).toContain("MUST failures (0)");
    expect(html).toContain(`SHOULD/MAY findings (${findings.length}): warnings, not failures`);
    expect(html).not.toMatch(/>Failures \(\d+\)/);
    // The schema findings group their departures by (status, JSON pointer).
    const schema = findings.find((c) => (c.details?.departures ?? []).length > 0);
    expect(schema, "a schema finding with departures").toBeDefined();
    expect(html).toContain('<div class="departures">');
    if (!context) return;
    const page = await open(html, "conformant-colours", 1280);
    const got = await page.evaluate(
      ([red]) => {
        const reds = Array.from<Dom>(document.querySelectorAll("body *")).filter((e) => {
          const s = getComputedStyle(e);
          return (s.backgroundColor === red || s.color === red) && e.getClientRects().length > 0;
        });
        const badge = document.querySelector('tr[data-outcome="finding"] .badge') as Dom;
        const verdict = getComputedStyle(document.querySelector("header.verdict") as Dom).backgroundColor;
        return {
          reds: reds.slice(0, 5).map((e) => e.outerHTML.slice(0, 120)),
          badge: badge.textContent,
          badgeColour: getComputedStyle(badge).backgroundColor,
          verdict,
        };
      },
      [RED],
    );
    expect(got).toEqual({ reds: [], badge: "finding", badgeColour: AMBER, verdict: "rgb(26, 127, 55)" });
    await page.close();
  }, 120_000);

  it("a NOT CONFORMANT run: MUST failures with expected and actual on the first screen, linking to their evidence", async () => {
    const run = await notConformant();
    const html = renderHtml(run);
    const failures = run.checks.filter((c) => outcomeOf(c) === "failure");
    expect(run.verdict).toBe("NOT CONFORMANT");
    expect(html).toContain(`MUST failures (${failures.length})`);
    if (!context) return;
    const page = await open(html, "not-conformant-first", 1280);
    const got = await page.evaluate(() => {
      const first = document.querySelector(".must-failures li") as Dom;
      const labels = Array.from<Dom>(first.querySelectorAll("dl.detail dt")).map((e) => e.textContent);
      const link = first.querySelector("a") as Dom;
      link.click();
      const row = document.getElementById(link.getAttribute("href")?.slice(1) ?? "");
      return {
        top: first.getBoundingClientRect().top < window.innerHeight,
        labels,
        rowVisible: !!row?.checkVisibility(),
        evidence: !!row?.querySelector("details summary"),
      };
    });
    expect(got.top).toBe(true);
    expect(got.labels).toEqual(expect.arrayContaining(["expected", "actual"]));
    expect(got.rowVisible).toBe(true);
    expect(got.evidence).toBe(true);
    await page.close();
  }, 120_000);

  it("a coverage cell leads to its requirement's row, and that row to the checks and their evidence", async () => {
    const run = await notConformant();
    const html = renderHtml(run);
    const failing = run.coverage.requirements.find((r) => r.status === "failing");
    expect(failing, "a failing requirement").toBeDefined();
    if (!context) return;
    const page = await open(html, "coverage-links", 1280);
    const id = failing?.id ?? "";
    await page.click(`#coverage a.cell[href="#req-${id}"]`);
    const row = page.locator(`#req-${id}`);
    expect(await row.isVisible()).toBe(true);
    const failed = failing?.checks.find((c) => c.status === "failed")?.id ?? "";
    await row.locator(`a[href="#${rowId(failed)}"]`).click();
    expect(await page.locator(`#${rowId(failed)}`).isVisible()).toBe(true);
    expect(
      await page
        .locator(`#${rowId(failed)} details summary`)
        .first()
        .textContent(),
    ).toMatch(/evidence|stack|log/);
    await page.close();
  }, 120_000);

  it("the timeline of a live run shows its lanes side by side and the token checks' waits as waits", async () => {
    const run = await liveRun();
    const html = renderHtml(run);
    const lanes = new Set(run.checks.flatMap((c) => (c.lane === undefined ? [] : [c.lane])));
    expect(lanes.size).toBeGreaterThanOrEqual(2);
    const waited = run.checks.filter((c) => (c.waits ?? []).length > 0);
    expect(waited.length).toBeGreaterThan(0);
    if (!context) return;
    for (const width of WIDTHS) {
      const page = await open(html, `live-run-${width}`, width);
      expect({ width, ...(await overflow(page)) }).toEqual({ width, excess: 0, body: 0, culprits: [] });
      await page.locator("#timeline").screenshot({ path: join(shots, `live-run-${width}-timeline.png`) });
      const drawn = await page.evaluate(() => ({
        rows: document.querySelectorAll("#timeline .lane").length,
        waits: Array.from<Dom>(document.querySelectorAll("#timeline .wait")).filter(
          (w) => w.getBoundingClientRect().width > 0,
        ).length,
        bars: document.querySelectorAll("#timeline a.tbar").length,
      }));
      expect(drawn.rows).toBeGreaterThanOrEqual(lanes.size);
      expect(drawn.waits).toBeGreaterThan(0);
      expect(drawn.bars).toBe(run.checks.filter((c) => c.startedMs !== undefined).length);
      await page.close();
    }
  }, 180_000);

  it("the timeline draws each check that ran on its lane, linking to its row, with its requests", async () => {
    const run = await sampleRun();
    const html = renderHtml(run);
    const ran = run.checks.filter((c) => c.startedMs !== undefined);
    expect(ran.length).toBeGreaterThan(0);
    expect(html.match(/class="tbar /g)?.length).toBe(ran.length);
    if (!context) return;
    const page = await open(html, "timeline", 1280);
    const bars = await page.evaluate(() =>
      Array.from<Dom>(document.querySelectorAll("#timeline a.tbar")).map((a) => ({
        href: a.getAttribute("href"),
        label: a.getAttribute("aria-label"),
        inside: a.getBoundingClientRect().right <= (a.parentElement?.getBoundingClientRect().right ?? 0) + 1,
      })),
    );
    for (const c of ran) {
      const bar = bars.find((b) => b.href === `#${rowId(c.id)}`);
      expect(bar?.label).toContain(`${c.requests} request`);
      expect(bar?.inside).toBe(true);
    }
    await page.close();
  }, 60_000);
});

describe("failure detail and retries in the browser", () => {
  it("lays out a failure's detail as a grid and marks the two pages that hold the repeated record", async () => {
    const scan = await scanFailureRun(true);
    const html = renderHtml(scan);
    if (!context) {
      expect(html).toContain('<dl class="detail">');
      return;
    }
    const page = await open(html, "detail", 1280);
    const out = await page.evaluate(() => {
      const grid = document.querySelector("table.checks dl.detail") as Dom;
      const dt = grid.querySelector("dt") as Dom;
      const dd = grid.querySelector("dd") as Dom;
      const evidence = Array.from<Dom>(document.querySelectorAll("table.checks details")).find((d) =>
        /evidence/.test(d.querySelector("summary")?.textContent ?? ""),
      ) as Dom;
      const closed = (evidence.querySelector(".exchange") as Dom).checkVisibility();
      (evidence.querySelector("summary") as Dom).click();
      return {
        sideBySide:
          Math.abs(dt.getBoundingClientRect().top - dd.getBoundingClientRect().top) < 2 &&
          dt.getBoundingClientRect().right <= dd.getBoundingClientRect().left,
        labels: Array.from<Dom>(grid.querySelectorAll("dt")).map((e) => e.textContent),
        pinpoint: document.querySelector("#failures .pinpoint")?.textContent,
        closed,
        opened: (evidence.querySelector(".exchange") as Dom).checkVisibility(),
        cited: Array.from<Dom>(evidence.querySelectorAll(".exchange.cited pre.request")).map(
          (p) => p.textContent?.split("\n")[0],
        ),
        citedBorder: getComputedStyle(evidence.querySelector(".exchange.cited") as Dom).borderLeftColor,
      };
    });
    expect(out.sideBySide).toBe(true);
    expect(out.labels).toEqual(["expected", "actual", "request", "record", "field", "pages"]);
    expect(out.pinpoint).toBe(`(record ${REPEATED}, field items.0.key at page 2 and page 7)`);
    expect(out.closed).toBe(false);
    expect(out.opened).toBe(true);
    expect(out.cited).toEqual(["GET http://127.0.0.1:9/scan?page=2", "GET http://127.0.0.1:9/scan?page=7"]);
    expect(out.citedBorder).toBe(RED);
    await page.close();
  }, 60_000);

  it("shows a flaky run's retries: a summary under the verdict, folded per check with where the evidence is", async () => {
    const flaky = await retriedRun();
    const html = renderHtml(flaky.result);
    if (!context) {
      expect(html).toContain('<details class="retries">');
      return;
    }
    const page = await open(html, "retries", 1280);
    const out = await page.evaluate(() => {
      const summary = document.querySelector("header.verdict .retries-summary") as Dom;
      const row = document.getElementById("check-service-rate-limited") as Dom;
      const retries = row.querySelector("details.retries") as Dom;
      const line = retries.querySelector("li") as Dom;
      const closed = line.checkVisibility();
      (retries.querySelector("summary") as Dom).click();
      return {
        summary: summary.textContent,
        summaryVisible: summary.checkVisibility() && summary.getBoundingClientRect().top < window.innerHeight,
        retriesSummary: retries.querySelector("summary")?.textContent,
        closed,
        opened: line.checkVisibility(),
        line: line.textContent,
        location: retries.querySelector(".evidence-location")?.textContent,
        steadyCell: document.getElementById("check-service-steady")?.lastElementChild?.innerHTML,
      };
    });
    expect(out.summary).toMatch(
      /^3 requests retried in 3 checks: 1 after a reset, 1 after a 503, 1 after a 429/,
    );
    expect(out.summaryVisible).toBe(true);
    expect(out.retriesSummary).toBe("1 retry (no finding by itself)");
    expect(out.closed).toBe(false);
    expect(out.opened).toBe(true);
    expect(out.line).toMatch(
      /^exchange \d+: GET \S+\/flaky\/rate-limited\/\[redacted\]\S* answered 429; waited 1 s/,
    );
    expect(out.location).toMatch(/^evidence evidence\.har\.gz log\.entries\[\d/);
    expect(out.steadyCell).toBe("");
    await page.close();
  }, 60_000);
});
