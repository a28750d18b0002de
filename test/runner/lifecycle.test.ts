// How a run ends: the breaker for a target that stopped answering, the deadline, an abort signal (what
// SIGINT and SIGTERM become), waits bounded by the check, and configuration changes undone by the runner.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Check, type CheckContext, type Clock, fail } from "../../src/check/index.ts";
import { createClient } from "../../src/client/index.ts";
import { exitCodeOf } from "../../src/result/verdict.ts";
import { readJournal } from "../../src/runner/config-journal.ts";
import { planRun } from "../../src/runner/plan.ts";
import { type RunDeps, runPlan } from "../../src/runner/run.ts";
import { startEmbeddedTarget } from "../../src/target/embedded.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { withCustomerRestored } from "../../suites/support/customer-restore.ts";
import { upsertClient } from "../../suites/support/quota-session.ts";
import { check, fakeFetch, fakeTarget } from "./fake-target.ts";

const emptyCatalogue = { path: null, requirements: [] };
const dir = mkdtempSync(join(tmpdir(), "lckit-lifecycle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function deps(over: Partial<RunDeps> = {}): RunDeps {
  return {
    fetch: fakeFetch,
    clock: systemClock(),
    seed: 1,
    runs: 1,
    timeoutMs: 50,
    catalogue: emptyCatalogue,
    ...over,
  };
}

const hang = (ctx: CheckContext) => ctx.fetch(`${ctx.target.rdmUrl}/hang`).then(() => undefined);
const health = (ctx: CheckContext) => ctx.fetch(`${ctx.target.rdmUrl}/healthcheck`).then(() => undefined);
const never = () => new Promise<void>(() => {});

function checks(n: number, run: (ctx: CheckContext, i: number) => Promise<void>): Check[] {
  return Array.from({ length: n }, (_, i) => check(`sample/c${i}`, (ctx) => run(ctx, i)));
}

describe("the unresponsive-target breaker", () => {
  it("stops after 2 requests in a row get no answer (the default); the rest is reported as not run", async () => {
    const plan = planRun(checks(8, hang), { target: fakeTarget() });
    const result = await runPlan(plan, deps());
    expect(result.checks.map((c) => c.status)).toEqual(["failed", "failed", ...Array(6).fill("skipped")]);
    expect(result.checks.slice(2).every((c) => c.skipCause === "unresponsive")).toBe(true);
    expect(result.checks[7]?.reason).toMatch(/not run: target unresponsive: 2 requests in a row/);
    expect(result.interruption?.cause).toBe("unresponsive");
    // The checks that got no answer failed: the verdict stands on them, and says the run stopped early.
    expect(result.verdict).toBe("NOT CONFORMANT");
    expect(result.verdictReason).toMatch(/the run stopped early: target unresponsive.*6 checks not run/);
  });

  it("reports a check whose request it held back as not run (unresponsive), never as failed", async () => {
    // Two requests at once get no answer (the breaker trips); the check's next request is not sent.
    const held = check("sample/held", async (ctx) => {
      await Promise.allSettled([hang(ctx), hang(ctx)]);
      await health(ctx);
      fail("not reached: the health request is held back");
    });
    const result = await runPlan(planRun([held], { target: fakeTarget() }), deps());
    expect(result.interruption?.cause).toBe("unresponsive");
    expect(result.checks[0]).toMatchObject({
      status: "skipped",
      skipCause: "unresponsive",
      reason: expect.stringMatching(/^interrupted while running: not sent: the target stopped answering/),
    });
    expect(result.verdict).not.toBe("NOT CONFORMANT");
    expect(exitCodeOf(result)).not.toBe(0);
  });

  it("counts only requests in a row: an answer in between resets the count", async () => {
    const plan = planRun(
      checks(8, (ctx, i) => (i % 2 === 0 ? hang(ctx) : health(ctx))),
      { target: fakeTarget() },
    );
    const result = await runPlan(plan, deps());
    expect(result.interruption).toBeUndefined();
    expect(result.checks.filter((c) => c.status === "skipped")).toEqual([]);
  });

  it("takes another threshold", async () => {
    const plan = planRun(checks(6, hang), { target: fakeTarget() });
    const result = await runPlan(plan, deps({ unresponsiveAfter: 4 }));
    expect(result.checks.map((c) => c.status)).toEqual([...Array(4).fill("failed"), "skipped", "skipped"]);
  });

  it("can be switched off with 0", async () => {
    const plan = planRun(checks(5, hang), { target: fakeTarget() });
    const result = await runPlan(plan, deps({ unresponsiveAfter: 0 }));
    expect(result.checks.map((c) => c.status)).toEqual(Array(5).fill("failed"));
  });
});

describe("interruption: a signal or the deadline", () => {
  it("ends the running check, reports what finished, marks the rest not run: INTERRUPTED, exit code 4", async () => {
    const interrupt = new AbortController();
    const plan = planRun(
      checks(4, async (ctx, i) => {
        if (i === 1) {
          interrupt.abort("SIGINT");
          await ctx.clock.sleep(60_000);
        }
      }),
      { target: fakeTarget() },
    );
    const result = await runPlan(plan, deps({ signal: interrupt.signal }));
    expect(result.checks.map((c) => [c.status, c.skipCause])).toEqual([
      ["passed", undefined],
      ["skipped", "interrupted"],
      ["skipped", "interrupted"],
      ["skipped", "interrupted"],
    ]);
    expect(result.checks[1]?.reason).toMatch(/interrupted while running: the run received SIGINT/);
    expect(result.checks[2]?.reason).toMatch(/not run: the run received SIGINT/);
    expect(result.interruption).toMatchObject({ cause: "SIGINT" });
    expect(result.verdict).toBe("INTERRUPTED");
    expect(result.verdictReason).toMatch(/1 check finished before \(0 MUST failures\), 3 checks did not run/);
    expect(exitCodeOf(result)).toBe(4);
  });

  it("INTERRUPTED beats a MUST failure found before: the results are partial", async () => {
    const interrupt = new AbortController();
    const plan = planRun(
      checks(2, async (_ctx, i) => {
        if (i === 0) fail("a MUST finding");
        interrupt.abort("SIGTERM");
        await never();
      }),
      { target: fakeTarget() },
    );
    const result = await runPlan(plan, deps({ signal: interrupt.signal }));
    expect(result.verdict).toBe("INTERRUPTED");
    expect(result.verdictReason).toMatch(/SIGTERM; 1 check finished before \(1 MUST failure\)/);
  });

  it("ends a run whose deadline passed while a check waited", async () => {
    const plan = planRun(
      checks(3, (ctx) => ctx.clock.sleep(30_000)),
      { target: fakeTarget() },
    );
    const result = await runPlan(plan, deps({ deadlineMs: 50 }));
    expect(result.interruption?.cause).toBe("deadline");
    expect(result.interruption?.message).toMatch(/deadline of 50 ms passed/);
    expect(result.checks.map((c) => c.skipCause)).toEqual(["interrupted", "interrupted", "interrupted"]);
    expect(result.verdict).toBe("INTERRUPTED");
  });
});

describe("waits belong to the check", () => {
  it("fails a check at once that would wait longer than it has left (the target's announced value)", async () => {
    const plan = planRun([check("sample/long-wait", (ctx) => ctx.clock.sleep(3_601_000))], {
      target: fakeTarget(),
    });
    const result = await runPlan(plan, deps({ checkTimeoutMs: 120_000 }));
    const [got] = result.checks;
    expect(got?.status).toBe("failed");
    expect(got?.message).toMatch(/would have to wait 3601 s, more than the 1\d\d s left/);
    expect(got?.details?.actual).toBe("a wait of 3601 s");
  });

  it("leaves undecided, neither fails nor breaks, a check out of time while an answer is slow", async () => {
    // The answer is still within its request's time limit: slow, not wrong (issue 43: a loaded machine).
    const plan = planRun([check("sample/slow", hang)], { target: fakeTarget() });
    const result = await runPlan(plan, deps({ timeoutMs: 60_000, checkTimeoutMs: 50 }));
    expect(result.checks[0]).toMatchObject({
      status: "inconclusive",
      reason: expect.stringMatching(
        /did not finish within 50 ms; it was waiting for the answer to GET .*\/hang/,
      ),
    });
  });

  it("still fails a request that gets no answer within its own time limit", async () => {
    const plan = planRun([check("sample/silent", hang)], { target: fakeTarget() });
    const result = await runPlan(plan, deps({ timeoutMs: 50, checkTimeoutMs: 60_000, unresponsiveAfter: 0 }));
    expect(result.checks[0]?.status).toBe("failed");
  });

  it("still breaks a check stuck in the kit's own work, and one out of time on a drivable clock", async () => {
    const stuck = await runPlan(
      planRun([check("sample/stuck", never)], { target: fakeTarget() }),
      deps({ checkTimeoutMs: 30 }),
    );
    expect(stuck.checks[0]?.status).toBe("broken");
    const drivable: Clock = { now: () => 0, sleep: () => new Promise(() => {}), advance: () => {} };
    const waiting = await runPlan(
      planRun([check("sample/driven", (ctx) => ctx.clock.sleep(10))], { target: fakeTarget() }),
      deps({ clock: drivable, checkTimeoutMs: 30 }),
    );
    expect(waiting.checks[0]?.status).toBe("broken");
  });

  it("rejects a pending sleep when the check ends and clears its timer", async () => {
    const interrupt = new AbortController();
    let sleepOutcome: unknown = "pending";
    let signalAborted = false;
    const plan = planRun(
      [
        check("sample/sleeps", async (ctx) => {
          ctx.signal.addEventListener("abort", () => {
            signalAborted = true;
          });
          ctx.clock.sleep(10_000).then(
            () => {
              sleepOutcome = "resolved";
            },
            (error: unknown) => {
              sleepOutcome = error;
            },
          );
          interrupt.abort("SIGINT");
          await never();
        }),
      ],
      { target: fakeTarget() },
    );
    await runPlan(plan, deps({ signal: interrupt.signal }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(signalAborted).toBe(true);
    expect(String(sleepOutcome)).toMatch(/CheckEnded: check sample\/sleeps has ended/);
  });
});

describe("configuration changes are journalled and undone by the runner", () => {
  async function readDescription(fetch: (r: Request) => Promise<Response>) {
    const client = createClient({
      fetch: (input, init) => fetch(new Request(input, init)),
      baseUrl: "http://reference.embedded",
      rdmUrl: "http://reference.embedded",
    });
    const token = await client.token({ clientId: "acme-admin", clientSecret: "acme-admin-secret" });
    const access = (token.body as { access_token: string }).access_token;
    const customer = await client.postCustomer(access, "cust-acme", {});
    const clients = await client.putClients(access, "cust-acme", [{ clientId: "acme-viewer" }]);
    const viewer = (clients.body as { clientId: string; accessTokenValidity?: number }[]).find(
      (c) => c.clientId === "acme-viewer",
    );
    return {
      description: (customer.body as { description?: string }).description,
      validity: viewer?.accessTokenValidity,
    };
  }

  it("puts back the customer and the client a check changed before it timed out; the journal on disk says so", async () => {
    const embedded = await startEmbeddedTarget();
    const before = await readDescription(embedded.fetch);
    const changer = check(
      "config/changes-then-hangs",
      (ctx) =>
        withCustomerRestored(ctx, "admin", "cust-acme", async (original) => {
          await upsertClient(ctx, "cust-acme", "viewer", { accessTokenValidity: 7 });
          const client = createClient({
            fetch: ctx.fetch,
            baseUrl: ctx.target.baseUrl,
            rdmUrl: ctx.target.rdmUrl,
          });
          await client.putCustomer(await ctx.token("admin"), "cust-acme", {
            ...original,
            description: "changed by a check",
          });
          await never();
        }),
      { safety: "write", needs: { roles: ["admin", "viewer"] } },
    );
    const journalFile = join(dir, "journal.ndjson");
    const plan = planRun([changer], { target: embedded.target });
    const result = await runPlan(plan, {
      ...deps({ fetch: embedded.fetch, clock: embedded.clock, checkTimeoutMs: 200 }),
      journalFile,
    });
    expect(result.checks[0]?.status).toBe("broken");
    expect(result.configuration).toEqual({ journal: journalFile, changes: 2, leftChanged: [] });
    expect(result.checks[0]?.log?.join("\n")).toMatch(
      /undo by the runner: PUT customer cust-acme as it was: restored/,
    );
    expect(await readDescription(embedded.fetch)).toEqual(before);
    expect(before.validity).not.toBe(7);

    const text = readFileSync(journalFile, "utf8");
    expect(
      text.split("\n").filter((l) => l.includes('"op":"undone"') && l.includes('"by":"runner"')),
    ).toHaveLength(2);
    expect(readJournal(journalFile).pending).toEqual([]);
    for (const secret of ["acme-admin-secret", "acme-viewer-secret"]) expect(text).not.toContain(secret);
  });

  it("settles what a check put back itself: nothing left for the runner", async () => {
    const embedded = await startEmbeddedTarget();
    const tidy = check(
      "config/tidy",
      (ctx) =>
        withCustomerRestored(ctx, "admin", "cust-acme", async () => {
          const previous = await upsertClient(ctx, "cust-acme", "viewer", {});
          await upsertClient(ctx, "cust-acme", "viewer", { accessTokenValidity: 9 });
          await upsertClient(ctx, "cust-acme", "viewer", { accessTokenValidity: previous });
        }),
      { safety: "write", needs: { roles: ["admin", "viewer"] } },
    );
    const result = await runPlan(
      planRun([tidy], { target: embedded.target }),
      deps({ fetch: embedded.fetch, clock: embedded.clock }),
    );
    expect(result.checks[0]?.status).toBe("passed");
    expect(result.configuration).toEqual({ journal: null, changes: 2, leftChanged: [] });
    expect(result.checks[0]?.log).toBeUndefined();
  });
});
