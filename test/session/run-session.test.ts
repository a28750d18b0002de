// The run session below the CLI: settings merged by one declared table (a flag wins over the target file,
// allow adds up), a whole run from the library writes the same report folder lckit run writes, and what the
// user must fix is refused before anything is sent.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RunRequest, RunSession } from "../../src/session/run-session.ts";
import { mergeSettings, SETTING_SOURCES } from "../../src/session/settings.ts";
import type { TargetConfig } from "../../src/target/target-file.ts";
import { UsageError } from "../../src/usage-error.ts";

function request(over: Partial<RunRequest> = {}): RunRequest {
  return {
    cwd: process.cwd(),
    env: {},
    suites: [],
    checks: ["service/*"],
    level: "MAY",
    allow: [],
    runs: 5,
    seed: 7,
    faults: [],
    variants: [],
    reportDir: mkdtempSync(join(tmpdir(), "lckit-session-")),
    certify: false,
    attest: false,
    har: false,
    ...over,
  };
}

describe("mergeSettings: one declared place for file and flags", () => {
  const file = {
    allow: ["write"],
    confirmTenant: "acme",
    deadlineMs: 60_000,
    unresponsiveAfter: 4,
    requestBudget: 900,
    rateLimit: 5,
    timeoutMs: 9_000,
  } as unknown as TargetConfig;

  it("lets a flag win over the file's key, adds allow up, takes file-only keys from the file", () => {
    const merged = mergeSettings({ allow: ["quota"], deadlineMs: 30_000, requestBudget: 50 }, file);
    expect(merged).toMatchObject({
      allow: ["write", "quota"],
      confirmTenant: "acme",
      deadlineMs: 30_000,
      unresponsiveAfter: 4,
      requestBudget: 50,
      rateLimit: 5,
      timeoutMs: 9_000,
    });
  });

  it("leaves unset what neither gives (the runner's default), and a rate limit of 0 unset (unlimited)", () => {
    const merged = mergeSettings({ allow: [] }, { allow: [], rateLimit: 0 } as unknown as TargetConfig);
    expect(merged).toEqual({ allow: [] });
  });

  it("declares every setting it merges", () => {
    const merged = mergeSettings(
      {
        allow: [],
        confirmTenant: "t",
        deadlineMs: 1,
        unresponsiveAfter: 1,
        requestBudget: 1,
        interfaceDocument: "d",
        depth: "deep",
      },
      { ...file, maxResponseBytes: 1, checkTimeoutMs: 1 } as unknown as TargetConfig,
    );
    expect(Object.keys(merged).sort()).toEqual(SETTING_SOURCES.map((s) => s.setting).sort());
  });
});

describe("RunSession from the library", () => {
  it("runs a selection against the embedded reference and writes the report folder with its manifest", async () => {
    const events: string[] = [];
    const session = await RunSession.open(request());
    expect(session.planData().checks.filter((c) => c.action === "run").length).toBeGreaterThan(0);
    const outcome = await session.run({ onEvent: (event) => events.push(event.type) });
    expect(outcome.result.verdict).toBe("PASSED (subset)");
    expect(outcome.result.seed).toBe(7);
    for (const file of [
      "report.json",
      "junit.xml",
      "summary.md",
      "report.html",
      "ctrf.json",
      "manifest.json",
    ])
      expect(existsSync(join(outcome.dir, file)), file).toBe(true);
    expect(JSON.parse(readFileSync(join(outcome.dir, "report.json"), "utf8")).runId).toBe(
      outcome.result.runId,
    );
    expect(events[0]).toBe("starting");
    expect(events).toContain("check-finished");
    // A run that does not certify explores at the default depth, and says so.
    expect(outcome.result.depth).toBe("default");
  });

  it("explores at the depth asked for, and its replay commands keep it", async () => {
    const outcome = await (
      await RunSession.open(request({ depth: "deep", faults: ["healthcheck-not-ok"] }))
    ).run();
    expect(outcome.result.depth).toBe("deep");
    const failed = outcome.result.checks.find((c) => c.id === "service/healthcheck-ok");
    expect(failed?.status).toBe("failed");
    const summary = readFileSync(join(outcome.dir, "summary.md"), "utf8");
    expect(summary).toContain("--depth deep --check service/healthcheck-ok");
    // The coverage says what the service checks reached.
    const coverage = outcome.result.coverage.requirements.find((r) => r.id === "SERVICE-02");
    expect(coverage?.explored).toEqual({ endpoint: ["GET /status"] });
  });

  it("refuses, before anything is sent, a selection in certified mode, a report folder under /proc and an unknown check", async () => {
    await expect(RunSession.open(request({ certify: true }))).resolves.toBeInstanceOf(RunSession);
    const certified = await RunSession.open(request({ checks: [], certify: true, reportDir: "/proc/lckit" }));
    await expect(certified.run()).rejects.toThrow(/--report-dir \/proc\/lckit is under \/proc/);
    await expect(RunSession.open(request({ checks: ["no-such/check"] }))).rejects.toThrow(
      /--check no-such\/check matches no check id/,
    );
    await expect(RunSession.open(request({ faults: ["no-such-fault"] }))).rejects.toBeInstanceOf(UsageError);
  });
});
