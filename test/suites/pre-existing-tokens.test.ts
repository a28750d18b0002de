// Tokens the quota client was issued before a check (here: while multi-token support was off, with the
// client's hour-long validity) are real and stay active, holding quota slots the kit cannot free where it
// cannot drive the target's clock. The quota checks count them, or skip naming them, instead of failing a
// correct target.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createClient } from "../../src/client/index.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import { planRun, referenceProfile, runPlan, systemClock } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

const credential = (clientId: string) => ({ clientId, clientSecret: `${clientId}-secret` });
const ids = [
  "token-quota/multitoken-config-activates",
  "token-quota/distinct-tokens-up-to-max",
  "token-quota/parallel-requests-never-exceed",
];

describe("quota checks with a token of the quota client from before the check", () => {
  let listening: Listening;
  beforeAll(async () => {
    listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await listening?.close();
  });

  it("are counted or named against the correct reference on a clock the kit cannot drive", async () => {
    const target: Target = {
      name: "reference with an active quota token",
      baseUrl: listening.baseUrl,
      rdmUrl: listening.rdmUrl,
      tenant: "acme",
      customerId: "cust-acme",
      credentials: { admin: credential("acme-admin"), quota: credential("acme-quota") },
      profile: { ...referenceProfile },
      loopback: true,
      disposable: true,
    };
    const client = createClient({ fetch, baseUrl: target.baseUrl, rdmUrl: target.rdmUrl });
    const before = await client.token(credential("acme-quota"));
    expect(before.status).toBe(200);
    const checks = allChecks.filter((check) => ids.includes(check.id));
    const plan = planRun(checks, { target, drivableClock: false });
    const result = await runPlan(plan, {
      fetch: (request) => fetch(request),
      clock: systemClock(),
      seed: testSeed,
      runs: 1,
    });
    const outcome = (id: string) => result.checks.find((check) => check.id === id);
    // These two count what they cannot see: the token from before leaves them their slots.
    for (const id of [ids[0], ids[2]] as string[])
      expect(`${outcome(id)?.status} ${outcome(id)?.message ?? ""}`, id).toBe("passed ");
    // This one needs every slot: it finds the token from before and says so, instead of failing.
    expect(outcome(ids[1] as string)?.status).toBe("skipped");
    expect(outcome(ids[1] as string)?.reason).toMatch(/holds active tokens from before the run/);
    // The token from before is still active: it was counted, not waited out.
    const still = await client.scanFirst(before.data?.access_token ?? "", {
      kind: "lookups",
      tenantId: "acme",
    });
    expect(still.status).toBe(200);
  }, 60_000);
});
