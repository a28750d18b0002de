import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Check, CheckContext } from "../../src/check/index.ts";
import { fail, skip } from "../../src/check/index.ts";
import { planRun } from "../../src/runner/plan.ts";
import { type ProgressEvent, type RunDeps, runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { RateLimiter } from "../../src/transport/rate-limit.ts";
import { check, fakeFetch, fakeTarget } from "./fake-target.ts";

const emptyCatalogue = { path: null, requirements: [] };

function deps(over: Partial<RunDeps> = {}): RunDeps {
  return {
    fetch: fakeFetch,
    clock: systemClock(),
    seed: 42,
    runs: 10,
    timeoutMs: 200,
    catalogue: emptyCatalogue,
    ...over,
  };
}

async function runOne(
  run: (ctx: CheckContext) => Promise<void>,
  over: Partial<RunDeps> = {},
  c?: Partial<Check>,
) {
  const target = fakeTarget();
  const plan = planRun([check("sample/one", run, { needs: { roles: ["viewer"] }, ...c })], { target });
  const result = await runPlan(plan, deps(over));
  const [first] = result.checks;
  if (!first) throw new Error("no result");
  return { result, check: first };
}

const get = (ctx: CheckContext, path: string, init: RequestInit = {}) =>
  ctx.fetch(`${ctx.target.rdmUrl}${path}`, init);

describe("runPlan classifies outcomes", () => {
  it.each<[string, { run: (ctx: CheckContext) => Promise<void>; status: string; text: RegExp }]>([
    [
      "passed",
      {
        run: async (ctx) => {
          const token = await ctx.token("viewer");
          const res = await get(ctx, "/healthcheck", { headers: { authorization: `Bearer ${token}` } });
          if (res.status !== 200) fail(`expected 200, got ${res.status}`);
        },
        status: "passed",
        text: /^$/,
      },
    ],
    [
      "CheckFailure -> failed",
      { run: async () => fail("MUST be 200, got 500"), status: "failed", text: /MUST be 200/ },
    ],
    [
      "CheckSkipped -> skipped",
      { run: async () => skip("no lookups to scan"), status: "skipped", text: /no lookups/ },
    ],
    [
      "TypeError -> broken",
      {
        run: async () => {
          const missing = undefined as unknown as { x: number };
          missing.x;
        },
        status: "broken",
        text: /TypeError/,
      },
    ],
    [
      "hanging target -> failed naming the request",
      {
        run: async (ctx) => void (await get(ctx, "/hang")),
        status: "failed",
        text: /GET .*\/hang failed: no complete answer within 200 ms/,
      },
    ],
    [
      "reset connection -> failed",
      {
        run: async (ctx) => void (await get(ctx, "/reset")),
        status: "failed",
        text: /\/reset failed: fetch failed: socket hang up/,
      },
    ],
    [
      "garbage body the check parses -> failed",
      {
        run: async (ctx) => void (await (await get(ctx, "/garbage")).json()),
        status: "failed",
        text: /not valid JSON/,
      },
    ],
    [
      "kit's own JSON.parse of a string -> broken",
      { run: async () => void JSON.parse("{"), status: "broken", text: /SyntaxError/ },
    ],
  ])("%s", async (_name, { run, status, text }) => {
    const { check: got, result } = await runOne(run);
    expect(got.status).toBe(status);
    expect(got.message ?? got.reason ?? "").toMatch(text);
    expect(result.verdict).toBe(
      status === "broken"
        ? "BROKEN"
        : status === "failed"
          ? "NOT CONFORMANT"
          : status === "skipped"
            ? "INCOMPLETE"
            : "CONFORMANT",
    );
  });

  it("keeps the stack of a broken check and the evidence of a failed one", async () => {
    const broken = await runOne(async () => {
      throw new RangeError("kit bug");
    });
    expect(broken.check.details?.stack).toMatch(/RangeError: kit bug/);
    const failed = await runOne(async (ctx) => {
      await get(ctx, "/nothing-here");
      fail("expected 200");
    });
    expect(failed.check.evidence?.[0]?.response?.status).toBe(404);
    expect(failed.check.requests).toBe(1);
  });

  it("turns a check over its time limit into broken 'timed out' and stops its requests", async () => {
    let lateRequest: unknown;
    const { check: got } = await runOne(
      async (ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        lateRequest = await get(ctx, "/healthcheck").catch((e: unknown) => e);
      },
      { checkTimeoutMs: 20 },
    );
    expect(got.status).toBe("broken");
    expect(got.message).toMatch(/timed out/);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(String(lateRequest)).toMatch(/after it finished/);
  });

  it("explains a refused token request", async () => {
    const target = fakeTarget({
      credentials: { viewer: { clientId: "viewer-id", clientSecret: "wrong-secret" } },
    });
    const plan = planRun(
      [
        check("sample/tok", async (ctx) => void (await ctx.token("viewer")), {
          needs: { roles: ["viewer"] },
        }),
      ],
      {
        target,
      },
    );
    const result = await runPlan(plan, deps());
    expect(result.checks[0]?.status).toBe("failed");
    expect(result.checks[0]?.message).toMatch(
      /could not obtain an access token for role "viewer" \(client viewer-id\).*answered 401/,
    );
  });

  it("treats a token request for an undeclared role without credentials as a fault of the check", async () => {
    const { check: got } = await runOne(async (ctx) => void (await ctx.token("admin")));
    expect(got.status).toBe("broken");
    expect(got.message).toMatch(/does not declare in needs\.roles/);
  });

  it("carries a property counterexample through, and recovers one from a fast-check error", async () => {
    const given = {
      seed: 7,
      path: "3:1",
      value: '"x"',
      replay: "lckit run --check sample/one --seed 7 --path 3:1",
    };
    const direct = await runOne(async () => fail("property broke", { counterexample: given }));
    expect(direct.check.counterexample).toEqual(given);

    const wrapped = await runOne(async (ctx) => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 100 }), (n) => {
          if (n > 10) fail(`n=${n} is too big`);
        }),
        { seed: ctx.seed, numRuns: ctx.runs },
      );
    });
    expect(wrapped.check.status).toBe("failed");
    expect(wrapped.check.counterexample).toMatchObject({ seed: 42, value: expect.stringContaining("11") });
    expect(wrapped.check.counterexample?.replay).toMatch(
      /^lckit run --check sample\/one --seed 42 --path \S+$/,
    );
  });

  it("gives each check the replay command of the run, the seed and the runs", async () => {
    let seen: Pick<CheckContext, "replayCommand" | "seed" | "runs" | "replayPath"> | undefined;
    await runOne(
      async (ctx) => {
        seen = {
          replayCommand: ctx.replayCommand,
          seed: ctx.seed,
          runs: ctx.runs,
          replayPath: ctx.replayPath,
        };
      },
      { command: "lckit run --target 'my target.yaml'", replayPath: "1:2" },
    );
    expect(seen).toEqual({
      replayCommand: "lckit run --target 'my target.yaml' --check sample/one --seed 42",
      seed: 42,
      runs: 10,
      replayPath: "1:2",
    });
  });

  it("reports planned skips and progress for every selected check, in order", async () => {
    const events: ProgressEvent[] = [];
    const checks = [
      check("schema/all", async (ctx) => void expect(ctx.exchanges().length).toBeGreaterThan(0), {
        readsOthersTraffic: true,
      }),
      check("service/health", async (ctx) => void (await get(ctx, "/healthcheck"))),
      check("auth/other", async () => {}, { needs: { roles: ["admin"] } }),
    ];
    const plan = planRun(checks, { target: fakeTarget() });
    const result = await runPlan(plan, deps({ onProgress: (e) => events.push(e) }));
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ["service/health", "passed"],
      ["auth/other", "skipped"],
      ["schema/all", "passed"],
    ]);
    expect(result.checks[1]).toMatchObject({
      skipCause: "needs",
      reason: expect.stringMatching(/credentials\.admin/),
    });
    expect(events.map((e) => ("index" in e ? `${e.type}:${e.index}/${e.total}` : e.type))).toEqual([
      "check-started:0/3",
      "check-finished:0/3",
      "check-started:1/3",
      "check-finished:1/3",
      "check-started:2/3",
      "check-finished:2/3",
    ]);
    expect(result.requestsSent).toBe(1);
    expect(result.verdict).toBe("INCOMPLETE");
  });

  it.each<[string, { perSecond: number | undefined; starts: number[] }]>([
    ["10 per second", { perSecond: 10, starts: [1000, 1100, 1200, 1300] }],
    ["50 per second", { perSecond: 50, starts: [1000, 1020, 1040, 1060] }],
    ["unlimited", { perSecond: undefined, starts: [1000, 1000, 1000, 1000] }],
  ])("rate limiter spaces request starts: %s", async (_name, { perSecond, starts }) => {
    let now = 1000;
    const limiter = new RateLimiter(
      perSecond,
      () => now,
      async (ms) => {
        now += ms;
      },
    );
    const started: number[] = [];
    for (let i = 0; i < 4; i++) {
      await limiter.acquire();
      started.push(now);
    }
    expect(started).toEqual(starts);
  });

  it("rate limiter lets an urgent request go before the ones already waiting", async () => {
    let now = 1000;
    const timers: { at: number; wake: () => void }[] = [];
    const limiter = new RateLimiter(
      10,
      () => now,
      (ms) => new Promise<void>((wake) => void timers.push({ at: now + ms, wake })),
    );
    const order: string[] = [];
    const take = (name: string, urgent = false) =>
      limiter.acquire(urgent).then(() => void order.push(`${name}@${now}`));
    const all = [take("read 1"), take("read 2"), take("read 3")];
    await Promise.resolve();
    all.push(take("token", true));
    // A fake clock: wake the sleepers in time order until every request has started.
    for (let guard = 0; guard < 100 && order.length < 4; guard++) {
      await new Promise((resolve) => setImmediate(resolve));
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift();
      if (next === undefined) continue;
      now = Math.max(now, next.at);
      const due = [next, ...timers.filter((t) => t.at <= now)];
      for (const t of due.slice(1)) timers.splice(timers.indexOf(t), 1);
      for (const t of due) t.wake();
    }
    await Promise.all(all);
    expect(order).toEqual(["read 1@1000", "token@1100", "read 2@1200", "read 3@1300"]);
  });
});
