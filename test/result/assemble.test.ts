// One function assembles a run result: what it derives (run id, counts, coverage, verdict) from what a run
// produced, and the HTTP runner and the event checker both going through it (same keys, same derivations).
import { describe, expect, it } from "vitest";
import { rule } from "../../src/events/document/requirements.ts";
import { dottedPath, eventRunResult } from "../../src/events/judge/run-result.ts";
import { EVENT_RULES, eventFinding } from "../../src/events/rules/index.ts";
import { assembleRunResult, newRunId, type RunRecord } from "../../src/result/assemble.ts";
import type { CheckResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeFetch, fakeTarget } from "../runner/fake-target.ts";

function result(id: string, status: CheckResult["status"], requirements: string[], level = "MUST" as const) {
  return {
    id,
    suite: id.split("/")[0] ?? id,
    title: `${level} ${id}`,
    level,
    requirements,
    safety: "read" as const,
    status,
    durationMs: 1,
    requests: 0,
  } satisfies CheckResult;
}

const catalogue = {
  path: "requirements/catalogue.yaml",
  requirements: [
    { id: "A-01", level: "MUST", text: "a", kind: "scan" },
    { id: "B-01", level: "MUST", text: "b", kind: "scan" },
    { id: "C-01", level: "MUST", text: "c", kind: "scan" },
    { id: "E-01", level: "MUST", text: "e", kind: "event" },
  ],
};

const target = {
  name: "t",
  baseUrl: "http://t",
  rdmUrl: "http://t",
  tenant: "acme",
  loopback: false,
  roles: [],
};

function record(checks: CheckResult[], over: Partial<RunRecord> = {}): RunRecord {
  return {
    checks,
    notSelected: 0,
    catalogue,
    coverageScope: { elsewhere: [{ command: "lckit events check", requirements: ["E-01"] }] },
    subject: { kind: "provider", target },
    target,
    selection: { suites: [], checks: [], level: "MAY", allow: ["read"] },
    seed: 7,
    runs: 3,
    command: "lckit run",
    startedAt: new Date("2026-01-02T03:04:05.678Z"),
    finishedAt: new Date("2026-01-02T03:04:07.000Z"),
    requestsSent: 12,
    ...over,
  };
}

describe("assembleRunResult", () => {
  it("derives run id, duration, counts, coverage and verdict from the checks", () => {
    const run = assembleRunResult(
      record([
        result("s/a", "passed", ["A-01"]),
        result("s/b", "failed", ["B-01"]),
        result("s/c", "skipped", []),
      ]),
    );
    expect(run.runId).toMatch(/^20260102T030405Z-[0-9a-f]{6}$/);
    expect(run.durationMs).toBe(1322);
    expect(run.counts.byStatus).toEqual({
      passed: 1,
      failed: 1,
      inconclusive: 0,
      "not-exercised": 0,
      skipped: 1,
      broken: 0,
    });
    expect(run.counts.byLevel.MUST.failed).toBe(1);
    expect(run.verdict).toBe("NOT CONFORMANT");
    expect(run.verdictReason).toContain("s/b");
    const status = Object.fromEntries(run.coverage.requirements.map((r) => [r.id, r.status]));
    expect(status).toEqual({ "A-01": "proven", "B-01": "failing", "C-01": "untested", "E-01": "elsewhere" });
    expect(run).not.toHaveProperty("interruption");
    expect(run).not.toHaveProperty("configuration");
  });

  it("counts a known check the selection left out as not run, and a passing subset is no conformance claim", () => {
    const run = assembleRunResult(
      record([result("s/a", "passed", ["A-01"])], {
        known: [
          { id: "s/a", requirements: ["A-01"], result: { status: "passed" } },
          { id: "s/c", requirements: ["C-01"] },
        ],
        notSelected: 1,
      }),
    );
    expect(run.coverage.requirements.find((r) => r.id === "C-01")?.status).toBe("not-run");
    expect(run.counts.notSelected).toBe(1);
    expect(run.verdict).toBe("PASSED (subset)");
  });

  it("keeps a given run id, duration and interruption, and lets the caller add to the verdict's sentence", () => {
    const run = assembleRunResult(
      record([result("s/a", "passed", ["A-01"])], {
        runId: "given",
        durationMs: 12.5,
        interruption: { cause: "SIGINT", message: "the run received SIGINT", at: "2026-01-02T03:04:06Z" },
        verdictReason: (reason) => `${reason} (and more)`,
      }),
    );
    expect(run.runId).toBe("given");
    expect(run.durationMs).toBe(12.5);
    expect(run.verdict).toBe("INTERRUPTED");
    expect(run.verdictReason).toMatch(/^the run received SIGINT.*\(and more\)$/);
  });

  it("newRunId gives different ids to runs started in the same second", () => {
    const at = new Date("2026-01-02T03:04:05Z");
    expect(new Set(Array.from({ length: 20 }, () => newRunId(at))).size).toBeGreaterThan(1);
  });
});

/** Every event rule judged one message (the opportunities of a stream of one message). */
const everyRuleOnce = Object.fromEntries(EVENT_RULES.map((r) => [r.id, 1]));

describe("the HTTP runner and the event checker assemble alike", () => {
  it("give the same top-level keys and derive counts and verdict the same way", async () => {
    const target = fakeTarget();
    const http = await runPlan(
      planRun([check("service/fails", async () => Promise.reject(new Error("x")))], { target }),
      {
        fetch: fakeFetch,
        clock: systemClock(),
        seed: 1,
        runs: 1,
        timeoutMs: 1000,
        catalogue,
      },
    );
    const events = eventRunResult(
      {
        source: "stream.ndjson",
        total: 1,
        valid: 1,
        invalid: 0,
        warned: 0,
        duplicates: 0,
        evictedObjects: 0,
        reordered: 0,
        companions: {
          paired: 0,
          excused: 0,
          referenceTypes: [],
          undecided: [],
          window: { messages: 1000, ms: 60_000 },
          forgotten: 0,
        },
        inconclusive: [],
        byRule: {},
        opportunities: everyRuleOnce,
        errors: 0,
        warnings: 0,
        problems: [],
        droppedProblems: 0,
        notices: [],
        durationMs: 3.25,
      } as Parameters<typeof eventRunResult>[0],
      { command: "lckit events check stream.ndjson", config: false, catalogue },
    );
    // depth: how far HTTP checks explore a target; an event check judges the messages that come.
    const optional = new Set([
      "replayPath",
      "interruption",
      "configuration",
      "baseline",
      "certification",
      "depth",
      // A target only where requests went: an event stream has none, and says what it read instead.
      "target",
      // A seed and runs per property only where the run generated something: an event stream read has none.
      "seed",
      "runs",
    ]);
    const keys = (o: object) => Object.keys(o).filter((k) => !optional.has(k));
    expect(keys(events)).toEqual(keys(http));
    expect(http.subject).toEqual({ kind: "provider", target: http.target });
    expect(events).not.toHaveProperty("target");
    expect(events).not.toHaveProperty("seed");
    expect(events).not.toHaveProperty("runs");
    expect([http.seed, http.runs]).toEqual([1, 1]);
    expect(events.subject).toEqual({ kind: "events", source: "stream.ndjson", messages: 1 });
    expect(http.verdict).toBe("BROKEN");
    expect(events.durationMs).toBe(3.25);
    expect(events.runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(events.counts.byStatus.passed + events.counts.byStatus.skipped).toBe(events.checks.length);
    // No check or rule of either command traces these made-up ids: neither report claims them for the
    // other command, whatever their kind.
    expect(events.coverage.requirements.find((r) => r.id === "A-01")?.status).toBe("untested");
    expect(http.coverage.requirements.find((r) => r.id === "E-01")?.status).toBe("untested");
  });

  it("an event check that failed carries its first problem as data: the message, the field, what was wrong", () => {
    const id = Object.values(rule)[0] as string;
    const problem = {
      position: "line 3",
      instancePath: "/payload/object/a~1b/0",
      requirement: id,
      keyword: "type",
      message: "must be string",
    };
    const events = eventRunResult(
      {
        source: "stream.ndjson",
        total: 4,
        valid: 3,
        invalid: 1,
        warned: 0,
        duplicates: 0,
        evictedObjects: 0,
        reordered: 0,
        companions: {
          paired: 0,
          excused: 0,
          referenceTypes: [],
          undecided: [],
          window: { messages: 1000, ms: 60_000 },
          forgotten: 0,
        },
        inconclusive: [],
        byRule: { [id]: 2 },
        opportunities: everyRuleOnce,
        errors: 2,
        warnings: 0,
        problems: [problem, { ...problem, position: "line 4", instancePath: "" }].map(eventFinding),
        droppedProblems: 0,
        notices: [],
        durationMs: 1,
      } as Parameters<typeof eventRunResult>[0],
      { command: "lckit events check stream.ndjson", config: true, catalogue },
    );
    const failed = events.checks.filter((c) => c.status === "failed");
    expect(failed.map((c) => c.details)).toEqual([
      { actual: "must be string", record: "line 3", field: "payload.object.a/b.0" },
    ]);
    expect(events.checks.filter((c) => c.status === "passed").every((c) => c.details === undefined)).toBe(
      true,
    );
    expect(dottedPath("")).toBe("");
    expect(dottedPath("/headers/objectVersion")).toBe("headers.objectVersion");
  });
});
