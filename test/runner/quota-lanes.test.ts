// A second quota client in a customer of its own splits the token lane in two: each lane's checks see
// their own quota client and customer as "the quota client", change only that customer, and the runner
// puts back each customer with the tokens of the lane that changed it. Without the second client the
// quota checks run one after another, and the schedule says once why.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Check, type CheckContext, type Clock, fail, type Target } from "../../src/check/index.ts";
import { main } from "../../src/cli/main.ts";
import { type Customer, createClient, multiTokenConfig } from "../../src/client/index.ts";
import { createReference } from "../../src/reference/index.ts";
import { readJournal } from "../../src/runner/config-journal.ts";
import {
  expectedWaitSeconds,
  ONE_QUOTA_CLIENT_NOTE,
  planRun,
  schedule,
  usesQuotaClientOnly,
} from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { embeddedTargetDescription, startEmbeddedTarget } from "../../src/target/embedded.ts";
import { clientRecord } from "../../suites/support/answer-detail.ts";
import { putCustomerOrFail, readCustomer } from "../../suites/support/customer-restore.ts";
import { credentialOf, quotaCustomerIdOf } from "../../suites/support/target-client.ts";
import { captureIo } from "../cli/capture-io.ts";
import { check } from "./fake-target.ts";

const noop = async () => {};
/** Expected waits of the kind the real checks declare (Check.expectedWaitSeconds; fixed here, so that the
 *  split below does not move when a real figure is tuned). */
const waits: Record<string, number> = {
  "token-quota/model": 15,
  "token-quota/quota-per-client": 9,
  "token-quota/expired-token-frees-slot": 6,
  "token-quota/refusal-429": 3,
};
const quota = (id: string, run: (ctx: CheckContext) => Promise<void> = noop, roles = ["admin", "quota"]) =>
  check(id, run, {
    safety: "quota",
    needs: { roles: roles as Check["needs"]["roles"] },
    ...(waits[id] === undefined ? {} : { expectedWaitSeconds: waits[id] }),
  });

/** The reference's description without the second quota client: as a target file without the key. */
function oneQuotaClient(): Target {
  const { quotaAlt: _, ...rest } = embeddedTargetDescription();
  return rest;
}

const ids = (entries: ReturnType<typeof planRun>["entries"], indexes: number[]) =>
  indexes.map((i) => entries[i]?.check.id);

describe("quota lanes: the schedule", () => {
  const checks: Check[] = [
    check("service/health", noop),
    quota("token-quota/model"),
    quota("token-quota/quota-per-client", noop, ["admin", "quota", "viewer"]),
    quota("token-quota/refusal-429"),
    quota("token-quota/expired-token-frees-slot"),
    check("auth/expired-token-refused", noop, {
      safety: "write",
      needs: { roles: ["viewer", "admin", "quota"] },
    }),
    check("auth/token-shape", noop, { needs: { roles: ["viewer"] }, issuesTokensFor: ["viewer"] }),
    quota("token-quota/rdbms-rule", noop, ["admin", "rdbmsAdmin"]),
  ];
  const target = embeddedTargetDescription();

  it("with a second quota client, splits the quota checks that need only admin and quota, balanced by expected wait", () => {
    const { entries } = planRun(checks, { target });
    const planned = schedule(entries, { concurrent: true, secondQuotaClient: true });
    expect(planned.secondQuotaLane).toBe(1);
    expect(planned.note).toBeUndefined();
    expect(planned.lanes.map((lane) => ids(entries, lane))).toEqual([
      // What needs the viewer, another role or the token endpoint itself stays with the first quota client.
      [
        "token-quota/quota-per-client",
        "token-quota/expired-token-frees-slot",
        "auth/expired-token-refused",
        "auth/token-shape",
        "token-quota/rdbms-rule",
      ],
      // The longest wait first, to the lane expected to finish first: 15 + 3 s beside 9 + 6 + 2 + 2 s.
      ["token-quota/model", "token-quota/refusal-429"],
      ["service/health"],
    ]);
    const [first = [], second = []] = planned.lanes;
    const wait = (lane: number[]) =>
      lane.reduce((t, i) => t + expectedWaitSeconds((entries[i] as (typeof entries)[number]).check), 0);
    // Moving any movable check to the other lane would not shorten the longer lane.
    for (const i of [...first, ...second].filter((i) => usesQuotaClientOnly(entries[i]?.check as Check))) {
      const w = expectedWaitSeconds(entries[i]?.check as Check);
      const [from, to] = first.includes(i) ? [first, second] : [second, first];
      expect(Math.max(wait(from) - w, wait(to) + w)).toBeGreaterThanOrEqual(
        Math.max(wait(first), wait(second)),
      );
    }
  });

  it("without a second quota client, keeps every quota check in one lane and says once why", () => {
    const { entries } = planRun(checks, { target: oneQuotaClient() });
    const planned = schedule(entries, { concurrent: true, secondQuotaClient: false });
    expect(planned.secondQuotaLane).toBeUndefined();
    expect(planned.note).toBe(ONE_QUOTA_CLIENT_NOTE);
    expect(planned.note).toMatch(/one after another; add credentials\.quotaAlt/);
    expect(planned.lanes.map((lane) => ids(entries, lane))).toEqual([
      [
        "token-quota/model",
        "token-quota/quota-per-client",
        "token-quota/refusal-429",
        "token-quota/expired-token-frees-slot",
        "auth/expired-token-refused",
        "auth/token-shape",
        "token-quota/rdbms-rule",
      ],
      ["service/health"],
    ]);
  });

  it("puts the expired-token checks of a token lane right after its first quota check, to share its wait", () => {
    const lane: Check[] = [
      check("auth/token-shape", noop, { needs: { roles: ["viewer"] }, issuesTokensFor: ["viewer"] }),
      check("auth/expired-token-refused", noop, { safety: "write", needs: { roles: ["admin", "quota"] } }),
      check("auth/expired-token-401", noop, { safety: "write", needs: { roles: ["admin", "quota"] } }),
      quota("token-quota/first"),
      quota("token-quota/second"),
    ];
    const order = [
      "auth/token-shape",
      "token-quota/first",
      "auth/expired-token-refused",
      "auth/expired-token-401",
      "token-quota/second",
    ];
    const one = planRun([check("service/health", noop), ...lane], { target: oneQuotaClient() });
    const single = schedule(one.entries, { concurrent: true, secondQuotaClient: false });
    expect(ids(one.entries, single.lanes[0] ?? [])).toEqual(order);
    // Split in two, the quota checks both go to the second lane (the first holds the expired-token checks'
    // expected waits): the first lane, without a quota check, keeps plan order.
    const two = planRun([check("service/health", noop), ...lane], { target });
    const split = schedule(two.entries, { concurrent: true, secondQuotaClient: true });
    expect(ids(two.entries, split.lanes[0] ?? [])).toEqual(lane.slice(0, 3).map((c) => c.id));
    expect(ids(two.entries, split.lanes[1] ?? [])).toEqual(["token-quota/first", "token-quota/second"]);
  });

  it("runs a check that leaves long-lived tokens last in its lane, so that no check there waits them out", () => {
    const burst = check("token-quota/burst", noop, {
      safety: "quota",
      needs: { roles: ["admin", "quota"] },
      leavesLongTokens: true,
    });
    const lane = [burst, quota("token-quota/first"), quota("token-quota/second")];
    const { entries } = planRun([check("service/health", noop), ...lane], { target: oneQuotaClient() });
    const planned = schedule(entries, { concurrent: true, secondQuotaClient: false });
    expect(ids(entries, planned.lanes[0] ?? [])).toEqual([
      "token-quota/first",
      "token-quota/second",
      "token-quota/burst",
    ]);
    // Without the flag, plan order: the flag alone moves it.
    const plain = planRun([check("service/health", noop), quota("token-quota/burst"), ...lane.slice(1)], {
      target: oneQuotaClient(),
    });
    const unflagged = schedule(plain.entries, { concurrent: true, secondQuotaClient: false });
    expect(ids(plain.entries, unflagged.lanes[0] ?? [])[0]).toBe("token-quota/burst");
  });

  it("splits two checks that leave long-lived tokens into different quota lanes, balance or not", () => {
    const long = { leavesLongTokens: true, safety: "quota" as const };
    const checks = [
      check("service/health", noop),
      // Needs the viewer: stays in the first lane.
      check("token-quota/viewer-burst", noop, {
        ...long,
        needs: { roles: ["admin", "quota", "viewer"] },
        expectedWaitSeconds: 1,
      }),
      quota("token-quota/model"),
      // By wait alone it would join the first lane (1 s beside 15 s).
      check("token-quota/burst", noop, {
        ...long,
        needs: { roles: ["admin", "quota"] },
        expectedWaitSeconds: 6,
      }),
    ];
    const { entries } = planRun(checks, { target });
    const planned = schedule(entries, { concurrent: true, secondQuotaClient: true });
    expect(ids(entries, planned.lanes[0] ?? [])).toEqual(["token-quota/viewer-burst"]);
    expect(ids(entries, planned.lanes[1] ?? [])).toEqual(["token-quota/model", "token-quota/burst"]);
  });

  it("keeps one check at a time where the clock can be driven, second quota client or not", () => {
    const { entries } = planRun(checks, { target });
    expect(schedule(entries, { concurrent: false, secondQuotaClient: true })).toEqual({
      lanes: [],
      after: entries.map((_, i) => i),
    });
  });
});

describe("quota lanes: a live run", () => {
  /** Two quota checks that each set a quota and change the description of their quota client's customer,
   *  meet half-way (each waits until the other has made its change) and leave the change for the runner
   *  to put back. Run one after another, the first would wait for the second for ever: its time limit
   *  ends it, failed, and the test fails. */
  function meetingChecks(log: string[], snapshot: () => Promise<void>, max = 1) {
    const arrived = new Set<string>();
    let met: () => void = () => {};
    const meeting = new Promise<void>((resolve) => {
      met = resolve;
    });
    const changer = (id: string) =>
      quota(id, async (ctx) => {
        const customerId = quotaCustomerIdOf(ctx);
        log.push(`${id} sees ${credentialOf(ctx, "quota").clientId} of ${customerId}`);
        const original = await readCustomer(ctx, "admin", customerId);
        ctx.journal.open({ kind: "customer", customerId, role: "admin", restore: original });
        await putCustomerOrFail(
          ctx,
          "admin",
          customerId,
          {
            ...original,
            description: `changed by ${id}`,
            multitokenConfig: multiTokenConfig(max),
          },
          `setting a quota of ${max}`,
        );
        // The lane's quota client is refused a second token by its own customer's quota only.
        const client = createClient({
          fetch: ctx.fetch,
          baseUrl: ctx.target.baseUrl,
          rdmUrl: ctx.target.rdmUrl,
        });
        const quotaClient = credentialOf(ctx, "quota");
        log.push(`${id} token ${(await client.token(quotaClient)).status}`);
        arrived.add(id);
        if (arrived.size === 2) {
          await snapshot();
          met();
        }
        await meeting;
      });
    // They ask for the quota client's tokens themselves, and say so: the second lane still takes one.
    return [changer("token-quota/lane-a"), changer("token-quota/lane-b")].map(
      (c): Check => ({ ...c, issuesTokensFor: ["quota"] }),
    );
  }

  /** Reads both customers as the admin, with one token fetched before any quota is set (a quota of 1 on
   *  cust-acme, the admin's customer, would refuse it another). */
  async function customerReader(
    fetch: (r: Request) => Promise<Response>,
    baseUrl = "http://reference.embedded",
  ) {
    const client = createClient({
      fetch: (input, init) => fetch(new Request(input, init)),
      baseUrl,
      rdmUrl: baseUrl,
    });
    const token = await client.token({ clientId: "acme-admin", clientSecret: "acme-admin-secret" });
    const access = (token.body as { access_token: string }).access_token;
    const read = async (id: string) => (await client.postCustomer(access, id, {})).body as Customer;
    return async () => ({ acme: await read("cust-acme"), lab: await read("cust-acme-lab") });
  }

  // A real (not drivable) clock whose sleeps end at once: lanes run, nothing waits for wall time.
  const clock: Clock = { now: () => Date.now(), sleep: async () => {} };

  it("with two quota clients, runs two quota checks at once on different customers, each restored by its lane", async () => {
    const embedded = await startEmbeddedTarget();
    const customers = await customerReader(embedded.fetch);
    const before = await customers();
    expect(before.lab.applicationClients).toEqual(["acme-lab-quota"]);
    const log: string[] = [];
    let during: Awaited<ReturnType<typeof customers>> | undefined;
    const restores: string[] = [];
    const plan = planRun(
      meetingChecks(log, async () => {
        during = await customers();
      }),
      { target: embedded.target },
    );
    const result = await runPlan(plan, {
      fetch: embedded.fetch,
      clock,
      seed: 1,
      runs: 1,
      checkTimeoutMs: 10_000,
      onProgress: (event) => {
        if (event.type === "restore") restores.push(`${event.ok} ${event.message}`);
      },
    });
    expect(result.checks.map((c) => `${c.status} ${c.id}`)).toEqual([
      "passed token-quota/lane-a",
      "passed token-quota/lane-b",
    ]);
    expect(log.filter((line) => line.includes(" sees ")).sort()).toEqual([
      "token-quota/lane-a sees acme-quota of cust-acme",
      "token-quota/lane-b sees acme-lab-quota of cust-acme-lab",
    ]);
    // Both changes held at the same time, each on its own customer.
    expect(during?.acme.description).toBe("changed by token-quota/lane-a");
    expect(during?.lab.description).toBe("changed by token-quota/lane-b");
    expect(during?.acme.multitokenConfig).toBeDefined();
    expect(during?.lab.multitokenConfig).toBeDefined();
    // Each check's own customer was put back, by the runner, as it was.
    expect(restores).toHaveLength(2);
    expect(restores.every((r) => r.startsWith("true "))).toBe(true);
    expect(restores.some((r) => r.includes("cust-acme-lab"))).toBe(true);
    expect(restores.some((r) => /customer cust-acme\b(?!-)/.test(r))).toBe(true);
    const after = await customers();
    expect(after).toEqual(before);
    expect(result.configuration?.leftChanged).toEqual([]);
    // The report's timeline: each check on its lane, the two at once.
    expect(result.checks.map((c) => c.lane)).toEqual([0, 1]);
    const [a, b] = result.checks.map((c) => [c.startedMs ?? -1, (c.startedMs ?? -1) + c.durationMs]);
    expect(a?.[0]).toBeGreaterThanOrEqual(0);
    expect(b?.[0]).toBeGreaterThanOrEqual(0);
    expect((a?.[0] ?? 0) < (b?.[1] ?? 0) && (b?.[0] ?? 0) < (a?.[1] ?? 0)).toBe(true);
    // The second quota client's secret is known to the redactor like any role's.
    const secret = embedded.target.quotaAlt?.credential.clientSecret ?? "";
    expect(secret).not.toBe("");
    expect(JSON.stringify(result)).not.toContain(secret);
  });

  it("names the second lane's quota client by its key in the target file in a failure's detail", async () => {
    const embedded = await startEmbeddedTarget();
    // Each lane's check fails about its quota client as the token-quota helpers name it.
    const failing = ["token-quota/lane-a", "token-quota/lane-b"].map((id) =>
      quota(id, async (ctx) => {
        fail(`${id} refused`, { record: clientRecord(ctx, "quota", "token request 2") });
      }),
    );
    const result = await runPlan(planRun(failing, { target: embedded.target }), {
      fetch: embedded.fetch,
      clock,
      seed: 1,
      runs: 1,
    });
    const record = (id: string) => result.checks.find((c) => c.id === id)?.details?.record;
    expect(result.checks.map((c) => c.status)).toEqual(["failed", "failed"]);
    expect(record("token-quota/lane-a")).toBe("client acme-quota (credentials.quota), token request 2");
    expect(record("token-quota/lane-b")).toBe(
      "client acme-lab-quota (credentials.quotaAlt), token request 2",
    );
  });

  it("without the second quota client, runs the quota checks one after another on the one quota customer", async () => {
    const embedded = await startEmbeddedTarget();
    const target = oneQuotaClient();
    const order: string[] = [];
    const serial: Check[] = ["token-quota/lane-a", "token-quota/lane-b"].map((id) =>
      quota(id, async (ctx) => {
        order.push(`${id} starts on ${quotaCustomerIdOf(ctx)} with ${credentialOf(ctx, "quota").clientId}`);
        await ctx.clock.sleep(1);
        order.push(`${id} ends`);
      }),
    );
    const plan = planRun([check("service/read", noop), ...serial], { target });
    expect(schedule(plan.entries, { concurrent: true, secondQuotaClient: false }).note).toBe(
      ONE_QUOTA_CLIENT_NOTE,
    );
    const result = await runPlan(plan, { fetch: embedded.fetch, clock, seed: 1, runs: 1 });
    expect(result.checks.every((c) => c.status === "passed")).toBe(true);
    expect(order).toEqual([
      "token-quota/lane-a starts on cust-acme with acme-quota",
      "token-quota/lane-a ends",
      "token-quota/lane-b starts on cust-acme with acme-quota",
      "token-quota/lane-b ends",
    ]);
  });

  it("leaves both customers to lckit restore when the target refuses the runner's undo, and it puts back both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-quota-lanes-"));
    const listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
    try {
      const served = (r: Request) => fetch(r);
      const customers = await customerReader(served, listening.baseUrl);
      const before = await customers();
      // After the checks met, the target refuses every configuration change: the runner cannot undo.
      let refusing = false;
      const refusingFetch = (r: Request) =>
        refusing && r.method === "PUT"
          ? Promise.resolve(Response.json({ error: "maintenance" }, { status: 503 }))
          : served(r);
      const target: Target = {
        ...embeddedTargetDescription(),
        name: "served",
        baseUrl: listening.baseUrl,
        rdmUrl: listening.rdmUrl,
      };
      const journalFile = join(dir, "journal.ndjson");
      const result = await runPlan(
        planRun(
          // A quota above 1: with 1 left on cust-acme, the admin client's own customer, lckit restore could
          // not get an admin token until the run's expired (a known limit, docs/target-file.md).
          meetingChecks(
            [],
            async () => {
              refusing = true;
            },
            5,
          ),
          { target },
        ),
        { fetch: refusingFetch, clock, seed: 1, runs: 1, checkTimeoutMs: 10_000, journalFile },
      );
      expect(result.checks.map((c) => c.status)).toEqual(["passed", "passed"]);
      expect([...(result.configuration?.leftChanged ?? [])].sort()).toEqual([
        "customer cust-acme (changed by token-quota/lane-a)",
        "customer cust-acme-lab (changed by token-quota/lane-b)",
      ]);
      expect(
        readJournal(journalFile)
          .pending.map((e) => e.change.customerId)
          .sort(),
      ).toEqual(["cust-acme", "cust-acme-lab"]);

      writeFileSync(
        join(dir, "target.yaml"),
        [
          "name: served",
          `baseUrl: ${listening.baseUrl}`,
          "tenant: acme",
          "customerId: cust-acme",
          "quotaAltCustomerId: cust-acme-lab",
          "credentials:",
          "  admin: { clientIdEnv: A_ID, clientSecretEnv: A_SECRET }",
          "  quota: { clientIdEnv: Q_ID, clientSecretEnv: Q_SECRET }",
          "  quotaAlt: { clientIdEnv: Q2_ID, clientSecretEnv: Q2_SECRET }",
          "",
        ].join("\n"),
      );
      const io = captureIo();
      io.cwd = dir;
      io.env = {
        A_ID: "acme-admin",
        A_SECRET: "acme-admin-secret",
        Q_ID: "acme-quota",
        Q_SECRET: "acme-quota-secret",
        Q2_ID: "acme-lab-quota",
        Q2_SECRET: "acme-lab-quota-secret",
      };
      const code = await main(["restore", "journal.ndjson", "--target", "target.yaml"], io);
      expect(io.stdout()).toMatch(/restored: PUT customer cust-acme as it was: restored/);
      expect(io.stdout()).toMatch(/restored: PUT customer cust-acme-lab as it was: restored/);
      expect(io.stdout()).toMatch(/every change of run \S+ is back \(2\)/);
      expect(code).toBe(0);
      expect(readJournal(journalFile).pending).toEqual([]);
      expect(await customers()).toEqual(before);
    } finally {
      await listening.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
