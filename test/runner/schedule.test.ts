// Against a real clock the checks that wait on token validity overlap with the read checks; everything
// else runs alone afterwards, and a drivable clock keeps the run one check at a time.
import { describe, expect, it } from "vitest";
import type { Check, Clock } from "../../src/check/index.ts";
import { planRun, schedule } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { check, fakeFetch, fakeTarget } from "./fake-target.ts";

const noop = async () => {};
const checks: Check[] = [
  check("service/health", noop),
  check("token-quota/exhaust", noop, { safety: "quota", needs: { roles: ["viewer"] } }),
  check("auth/expired", noop, { safety: "write", needs: { roles: ["viewer", "quota"] } }),
  check("lookup-scan/order", noop, { needs: { roles: ["viewer"] } }),
  check("config/update", noop, { safety: "write", needs: { roles: ["viewer"] } }),
  check("auth/quota-read", noop, { needs: { roles: ["quota"] } }),
  check("delete-task/by-type", noop, {
    safety: "destructive",
    changes: "data",
    needs: { roles: ["viewer"] },
  }),
  check("config/reset", noop, { safety: "destructive", needs: { roles: ["viewer"] } }),
  check("schema/responses", noop, { readsOthersTraffic: true }),
];
const target = fakeTarget({
  disposable: true,
  credentials: { ...fakeTarget().credentials, quota: { clientId: "quota-id", clientSecret: "q" } },
});

const ids = (entries: ReturnType<typeof planRun>["entries"], indexes: number[]) =>
  indexes.map((i) => entries[i]?.check.id);

describe("schedule", () => {
  it("puts token-waiting checks in one lane, reads without the quota client then data changes in another, the rest after", () => {
    const { entries } = planRun(checks, { target });
    const { lanes, after } = schedule(entries, { concurrent: true });
    expect(lanes.map((lane) => ids(entries, lane))).toEqual([
      ["token-quota/exhaust", "auth/expired", "auth/quota-read"],
      ["service/health", "lookup-scan/order", "delete-task/by-type"],
    ]);
    expect(ids(entries, after)).toEqual(["config/update", "config/reset", "schema/responses"]);
  });

  it("puts a read check that asks the token endpoint itself in the token lane, not beside it", () => {
    const asks = check("auth/token-shape", noop, {
      needs: { roles: ["viewer"] },
      issuesTokensFor: ["viewer"],
    });
    const { entries } = planRun([...checks.slice(0, 4), asks], { target });
    const { lanes } = schedule(entries, { concurrent: true });
    expect(lanes.map((lane) => ids(entries, lane))).toEqual([
      ["token-quota/exhaust", "auth/expired", "auth/token-shape"],
      ["service/health", "lookup-scan/order"],
    ]);
  });

  it("runs checks that only ask the token endpoint with the rest, one at a time, when no token check waits", () => {
    const asks = check("auth/token-shape", noop, {
      needs: { roles: ["viewer"] },
      issuesTokensFor: ["viewer"],
    });
    const { entries } = planRun([checks[0] as Check, asks], { target });
    expect(schedule(entries, { concurrent: true })).toEqual({ lanes: [], after: [0, 1] });
  });

  it("keeps a check that reads the others' traffic out of the lanes, whatever its suite", () => {
    const reader = check("audit/traffic", noop, { readsOthersTraffic: true });
    const { entries } = planRun([...checks.slice(0, 4), reader], { target });
    const { lanes, after } = schedule(entries, { concurrent: true });
    expect(lanes.flat().map((i) => entries[i]?.check.id)).not.toContain("audit/traffic");
    expect(ids(entries, after)).toEqual(["audit/traffic"]);
  });

  it("runs one check at a time where the clock can be driven, or when a lane would be empty", () => {
    const { entries } = planRun(checks, { target });
    expect(schedule(entries, { concurrent: false })).toEqual({ lanes: [], after: entries.map((_, i) => i) });
    const reads = planRun(checks.slice(0, 1), { target }).entries;
    expect(schedule(reads, { concurrent: true })).toEqual({ lanes: [], after: [0] });
  });

  it("lets a read check run while a token check waits, and reports every result in plan order", async () => {
    const events: string[] = [];
    let release: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      release = resolve;
    });
    const overlapping: Check[] = [
      check(
        "token-quota/wait",
        async (ctx) => {
          events.push("token check waits");
          await ctx.clock.sleep(10);
          await waiting;
          events.push("token check done");
        },
        { safety: "quota", needs: { roles: [] } },
      ),
      check(
        "service/read",
        async () => {
          events.push("read check runs");
          release();
        },
        { needs: { roles: [] } },
      ),
    ];
    // A real (not drivable) clock whose sleeps end at once: nothing waits for wall time.
    const clock: Clock = { now: () => Date.now(), sleep: async () => {} };
    const plan = planRun(overlapping, { target });
    const result = await runPlan(plan, { fetch: fakeFetch, clock, seed: 1, runs: 1 });
    // The token check can only finish once the read check ran beside it.
    expect(events).toEqual(["token check waits", "read check runs", "token check done"]);
    expect(result.checks.map((c) => `${c.status} ${c.id}`)).toEqual([
      "passed token-quota/wait",
      "passed service/read",
    ]);
    expect(result.checks[0]?.waitMs).toBe(10);
    expect(result.checks[1]?.waitMs).toBeUndefined();
  });

  it("fetches the read lane's tokens outside the breaker: a silent target is reported by the checks", async () => {
    // Answers nothing; each request ends when the transport's time limit aborts it.
    const silent = (request: Request) =>
      new Promise<Response>((_, reject) =>
        request.signal.addEventListener("abort", () => reject(new Error("no answer")), { once: true }),
      );
    const twoRoles = fakeTarget({
      disposable: true,
      credentials: {
        viewer: { clientId: "viewer-id", clientSecret: "v" },
        admin: { clientId: "admin-id", clientSecret: "a" },
      },
    });
    const silentChecks: Check[] = [
      check("token-quota/wait", async (ctx) => void (await ctx.token("viewer")), {
        safety: "quota",
        needs: { roles: ["viewer"] },
      }),
      check("service/read", async (ctx) => void (await ctx.token("admin")), {
        needs: { roles: ["viewer", "admin"] },
      }),
    ];
    const clock: Clock = { now: () => Date.now(), sleep: async () => {} };
    const plan = planRun(silentChecks, { target: twoRoles });
    expect(schedule(plan.entries, { concurrent: true }).lanes).toHaveLength(2);
    const result = await runPlan(plan, { fetch: silent, clock, seed: 1, runs: 1, timeoutMs: 50 });
    // Two roles whose tokens time out before the lanes start would have tripped the breaker (threshold 2)
    // with no check run at all; the checks' own requests trip it instead, and their findings are reported.
    expect(result.checks.filter((c) => c.status === "failed").length).toBeGreaterThan(0);
    expect(result.interruption?.cause).toBe("unresponsive");
  });
});
