import { describe, expect, it } from "vitest";
import type { CheckContext } from "../../src/check/index.ts";
import { fail } from "../../src/check/index.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { EMBEDDED_URL, startEmbeddedTarget } from "../../src/target/embedded.ts";
import { check } from "../runner/fake-target.ts";

const healthOk = check(
  "service/health",
  async (ctx: CheckContext) => {
    const token = await ctx.token("viewer");
    const res = await ctx.fetch(`${ctx.target.rdmUrl}/healthcheck`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { status?: string };
    if (res.status !== 200 || body.status !== "OK") fail(`expected 200 {"status":"OK"}, got ${res.status}`);
  },
  { needs: { roles: ["viewer"] } },
);

async function certify(faults?: string[]) {
  const embedded = await startEmbeddedTarget(faults ? { faults } : {});
  const plan = planRun([healthOk], { target: embedded.target, drivableClock: true });
  return runPlan(plan, {
    fetch: embedded.fetch,
    clock: embedded.clock,
    seed: 1,
    runs: 1,
    catalogue: { path: null, requirements: [] },
  });
}

describe("startEmbeddedTarget", () => {
  it("describes the fixture world of docs/assumptions.md", async () => {
    const { target } = await startEmbeddedTarget();
    expect(target).toMatchObject({
      baseUrl: EMBEDDED_URL,
      rdmUrl: EMBEDDED_URL,
      tenant: "acme",
      otherTenant: "globex",
      rdbmsTenant: "legacy",
      customerId: "cust-acme",
      quotaCustomerId: "cust-acme",
      rdbmsCustomerId: "cust-legacy",
      loopback: true,
    });
    expect(Object.fromEntries(Object.entries(target.credentials).map(([r, c]) => [r, c?.clientId]))).toEqual({
      admin: "acme-admin",
      editor: "acme-editor",
      viewer: "acme-viewer",
      quota: "acme-quota",
      otherAdmin: "globex-admin",
      rdbmsAdmin: "legacy-admin",
    });
  });

  it.each<[string, { faults?: string[]; verdict: string }]>([
    ["the reference conforms", { verdict: "CONFORMANT" }],
    ["a seeded fault is caught", { faults: ["healthcheck-not-ok"], verdict: "NOT CONFORMANT" }],
  ])("%s", async (_name, { faults, verdict }) => {
    const result = await certify(faults);
    expect(result.verdict).toBe(verdict);
    expect(result.requestsSent).toBe(2);
  });

  it("drives the reference's manual clock: sleep moves time instead of waiting", async () => {
    const { clock } = await startEmbeddedTarget();
    const before = clock.now();
    await clock.sleep(3_600_000);
    clock.advance(1000);
    expect(clock.now() - before).toBe(3_601_000);
  });

  it("accepts an injected reference factory", async () => {
    const seen: unknown[] = [];
    const { fetch } = await startEmbeddedTarget({
      faults: ["x"],
      createReference: (options) => {
        seen.push(options.faults);
        return { clock: options.clock, fetch: async () => new Response("teapot", { status: 418 }) };
      },
    });
    expect(seen).toEqual([["x"]]);
    expect((await fetch(new Request(`${EMBEDDED_URL}/healthcheck`))).status).toBe(418);
  });
});
