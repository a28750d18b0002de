// A run's request budget (--request-budget, requestBudget:) and its time limit (--deadline, deadline:) both
// cut a run short the same way: the check that hit the limit and every check after it are skipped (never
// failed: the target did nothing wrong), the verdict is INTERRUPTED and says the run was cut short, and a
// certified run refuses the certificate naming the flag and the key that lift the limit.
import { describe, expect, it } from "vitest";
import { fail } from "../../src/check/index.ts";
import { Redactor } from "../../src/redaction/redact.ts";
import { certify } from "../../src/result/certification.ts";
import type { RunResult } from "../../src/result/model.ts";
import { exitCodeOf } from "../../src/result/verdict.ts";
import { planRun } from "../../src/runner/plan.ts";
import { type RunDeps, runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import {
  CheckScope,
  RESTORE_SCOPE,
  RequestBudgetSpent,
  TargetTransport,
} from "../../src/transport/transport.ts";
import { check, fakeFetch, fakeTarget } from "../runner/fake-target.ts";

const emptyCatalogue = { path: null, requirements: [] };

function deps(over: Partial<RunDeps> = {}): RunDeps {
  return { fetch: fakeFetch, clock: systemClock(), seed: 1, runs: 1, catalogue: emptyCatalogue, ...over };
}

/** Checks that each read the health endpoint `requests` times (a token request comes first, once). */
function readers(n: number, requests: number) {
  return Array.from({ length: n }, (_, i) =>
    check(`sample/c${i}`, async (ctx) => {
      for (let k = 0; k < requests; k++) {
        const response = await ctx.fetch(`${ctx.target.rdmUrl}/healthcheck`, {
          headers: { authorization: `Bearer ${await ctx.token("viewer")}` },
        });
        if (response.status !== 200) fail(`healthcheck answered ${response.status}`);
      }
    }),
  );
}

const mustIds = (result: RunResult) => result.checks.map((c) => c.id);

describe("the transport's request budget", () => {
  const transport = (budget: number, spent: number[]) =>
    new TargetTransport({
      fetch: fakeFetch,
      redactor: new Redactor(),
      timeoutMs: 1000,
      requestBudget: budget,
      onBudgetSpent: (b) => spent.push(b),
    });

  it("sends exactly the budget, then refuses every request, telling the runner once", async () => {
    const spent: number[] = [];
    const t = transport(3, spent);
    const fetch = t.bind(new CheckScope("sample/a"));
    for (let i = 0; i < 3; i++) expect((await fetch("http://127.0.0.1:9/healthcheck")).status).toBe(401);
    await expect(fetch("http://127.0.0.1:9/healthcheck")).rejects.toBeInstanceOf(RequestBudgetSpent);
    await expect(fetch("http://127.0.0.1:9/healthcheck")).rejects.toThrow(
      /request budget of 3 requests is spent \(--request-budget, or requestBudget: in the target file\)/,
    );
    expect(t.requestsSent).toBe(3);
    expect(spent).toEqual([3]);
  });

  it("never refuses the runner's undo requests: a budget must not leave a target changed", async () => {
    const t = transport(1, []);
    await t.bind(new CheckScope("sample/a"))("http://127.0.0.1:9/healthcheck");
    const restore = t.bind(new CheckScope(RESTORE_SCOPE));
    for (let i = 0; i < 3; i++) expect((await restore("http://127.0.0.1:9/healthcheck")).status).toBe(401);
    expect(t.requestsSent).toBe(4);
  });

  it("without a budget sends as much as asked", async () => {
    const t = new TargetTransport({ fetch: fakeFetch, redactor: new Redactor(), timeoutMs: 1000 });
    const fetch = t.bind(new CheckScope("sample/a"));
    for (let i = 0; i < 20; i++) await fetch("http://127.0.0.1:9/healthcheck");
    expect(t.requestsSent).toBe(20);
  });
});

describe("a run cut short by its request budget", () => {
  // 4 checks of 3 reads each, after one token request: 13 requests for the whole run; 8 ends it in the
  // third check.
  const plan = planRun(readers(4, 3), { target: fakeTarget() });

  it("sends no more than the budget; the rest is skipped naming the budget, never failed", async () => {
    const result = await runPlan(plan, deps({ requestBudget: 8 }));
    expect(result.requestsSent).toBe(8);
    expect(result.checks.map((c) => c.status)).toEqual(["passed", "passed", "skipped", "skipped"]);
    for (const c of result.checks.slice(2)) {
      expect(c.skipCause).toBe("interrupted");
      expect(c.reason).toMatch(/request budget of 8 requests is spent.*--request-budget.*requestBudget/);
    }
    expect(result.interruption?.cause).toBe("budget");
    expect(result.verdict).toBe("INTERRUPTED");
    expect(result.verdictReason).toMatch(/^the run was cut short: its request budget of 8 requests/);
    expect(exitCodeOf(result, ["must"])).toBe(4);
  });

  it("a budget the run does not reach changes nothing", async () => {
    const result = await runPlan(plan, deps({ requestBudget: 13 }));
    expect(result.requestsSent).toBe(13);
    expect(result.verdict).toBe("CONFORMANT");
    expect(result.interruption).toBeUndefined();
  });

  it("a certified run gets no certificate, and each missing check names the flag and the key", async () => {
    const result = await runPlan(plan, deps({ requestBudget: 8 }));
    const certified = certify(result, mustIds(result), { status: 200, body: "{}" }, {});
    expect(certified.verdict).toBe("INTERRUPTED");
    expect(certified.certification?.certified).toBe(false);
    expect(certified.certification?.reason).toMatch(
      /^the run was cut short: its request budget of 8 requests is spent.*; 2 MUST checks of the kit did not run/,
    );
    expect(certified.certification?.missing.map((m) => m.id)).toEqual(["sample/c2", "sample/c3"]);
    for (const m of certified.certification?.missing ?? [])
      expect(m.fix).toMatch(/--request-budget \(requestBudget: in the target file\)/);
  });
});

describe("a run cut short by its deadline is reported likewise", () => {
  it("skips what it did not finish, says it was cut short, and the certificate names --deadline", async () => {
    const plan = planRun([check("sample/waits", (ctx) => ctx.clock.sleep(30_000)), ...readers(2, 1)], {
      target: fakeTarget(),
    });
    const result = await runPlan(plan, deps({ deadlineMs: 50 }));
    expect(result.interruption?.cause).toBe("deadline");
    expect(result.checks.map((c) => c.status)).toEqual(["skipped", "skipped", "skipped"]);
    expect(result.verdictReason).toMatch(/^the run was cut short: its deadline of 50 ms passed \(--deadline/);
    const certified = certify(result, mustIds(result), {}, {});
    expect(certified.certification?.certified).toBe(false);
    expect(certified.certification?.reason).toMatch(/^the run was cut short: its deadline of 50 ms/);
    for (const m of certified.certification?.missing ?? [])
      expect(m.fix).toMatch(/--deadline \(deadline: in the target file\)/);
  });
});
