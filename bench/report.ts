import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Check } from "../src/check/index.ts";
import { renderHtml } from "../src/report/html.ts";
import { renderMarkdown } from "../src/report/markdown.ts";
import type { RunResult } from "../src/result/model.ts";
import { planRun } from "../src/runner/plan.ts";
import { runPlan } from "../src/runner/run.ts";
import { startEmbeddedTarget } from "../src/target/embedded.ts";
import { findChromium } from "../test/support/chromium.ts";

const { values } = parseArgs({ options: { runs: { type: "string" } } });
const runs = Number(values.runs ?? 20);
const _repo = join(import.meta.dirname, "..");

async function run(options: { variants?: string[]; faults?: string[] }): Promise<RunResult> {
  const { allChecks } = (await import("../suites/index.ts")) as { allChecks: Check[] };
  const embedded = await startEmbeddedTarget(options);
  const plan = planRun(allChecks, { target: embedded.target, drivableClock: true });
  return runPlan(plan, { fetch: embedded.fetch, clock: embedded.clock, seed: 1, runs });
}

/** Every check failed, each with the evidence of the longest failure of the run: the largest report the
 *  same checks can make. */
function worstCase(result: RunResult): RunResult {
  const richest = [...result.checks].sort(
    (a, b) => JSON.stringify(b.evidence ?? []).length - JSON.stringify(a.evidence ?? []).length,
  )[0];
  return {
    ...result,
    checks: result.checks.map((c) => ({
      ...c,
      status: "failed",
      message: c.message ?? richest?.message ?? "failed",
      ...(richest?.details ? { details: richest.details } : {}),
      ...(richest?.evidence ? { evidence: richest.evidence } : {}),
      ...(richest?.log ? { log: richest.log } : {}),
    })),
  };
}

const reports: [string, RunResult][] = [];
const conformant = await run({
  variants: ["quota-refusal-400", "missing-token-403", "error-body-plain-text", "version-as-number"],
});
reports.push(["conformant with findings", conformant]);
const failing = await run({ faults: ["quota-off-by-one", "scan-repeats-record-at-page-boundary"] });
reports.push(["not conformant", failing]);
reports.push(["every check failed (worst case)", worstCase(failing)]);

const dir = mkdtempSync(join(tmpdir(), "lckit-bench-report-"));
const files: [string, string, number][] = [];
console.log(`runs per property ${runs}`);
for (const [name, result] of reports) {
  const started = performance.now();
  const html = renderHtml(result);
  const renderMs = performance.now() - started;
  const file = join(dir, `${files.length}.html`);
  writeFileSync(file, html);
  files.push([name, file, html.length]);
  const md = renderMarkdown(result);
  console.log(
    `${name.padEnd(32)} ${result.checks.length} checks, report.html ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB ` +
      `(rendered in ${renderMs.toFixed(0)} ms), summary.md ${(Buffer.byteLength(md) / 1024).toFixed(0)} KiB`,
  );
}

const chromium = findChromium();
if (chromium === undefined)
  console.log("first paint: no Chromium here (scripts/chromium.mjs could not provide one)");
else {
  const { chromium: driver } = await import("playwright-core");
  const context = await driver.launchPersistentContext(join(dir, "profile"), {
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
    ],
  });
  const baseline = join(dir, "baseline.html");
  writeFileSync(baseline, "<!doctype html><title>baseline</title><p>one line</p>");
  const paint = async (file: string): Promise<number> => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`file://${file}`, { waitUntil: "load" });
    const ms = await page.evaluate(
      "new Promise((resolve) => { const read = () => { const e = performance.getEntriesByName('first-contentful-paint')[0]; if (e) resolve(e.startTime); else setTimeout(read, 10); }; read(); })",
    );
    await page.close();
    return Number(ms);
  };
  // The median of five loads, each in a fresh page.
  const median = async (file: string) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push(await paint(file));
    return times.sort((a, b) => a - b)[2] ?? 0;
  };
  const base = await median(baseline);
  console.log(`first contentful paint, one-line page (baseline): ${base.toFixed(0)} ms`);
  for (const [name, file] of files) {
    const ms = await median(file);
    console.log(
      `first contentful paint, ${name.padEnd(32)} ${ms.toFixed(0)} ms (${(ms / Math.max(base, 1)).toFixed(1)}x the baseline)`,
    );
  }
  await context.close();
}
rmSync(dir, { recursive: true, force: true });
