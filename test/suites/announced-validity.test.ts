// A target that ignores accessTokenValidity announces tokens that live an hour. Where the kit cannot drive
// the target's clock it would have to wait that long for them to expire: instead the quota checks hold the
// announcement to the validity they configured, and the target fails them with the value as evidence.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import { planRun, referenceProfile, runPlan, systemClock } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

const credential = (clientId: string) => ({ clientId, clientSecret: `${clientId}-secret` });
const ids = ["token-quota/multitoken-config-activates", "token-quota/quota-per-client"];

describe("a target that ignores accessTokenValidity, on a clock the kit cannot drive", () => {
  let listening: Listening;
  beforeAll(async () => {
    listening = await createReference({ faults: ["token-validity-ignored"] }).listen({
      host: "127.0.0.1",
      port: 0,
    });
  });
  afterAll(async () => {
    await listening?.close();
  });

  it("fails the quota checks with the announced expires_in, never waiting for it", async () => {
    const target: Target = {
      name: "reference ignoring accessTokenValidity",
      baseUrl: listening.baseUrl,
      rdmUrl: listening.rdmUrl,
      tenant: "acme",
      customerId: "cust-acme",
      credentials: {
        admin: credential("acme-admin"),
        viewer: credential("acme-viewer"),
        quota: credential("acme-quota"),
      },
      profile: { ...referenceProfile },
      loopback: true,
      disposable: true,
    };
    const checks = allChecks.filter((check) => ids.includes(check.id));
    const plan = planRun(checks, { target, drivableClock: false });
    const result = await runPlan(plan, {
      fetch: (request) => fetch(request),
      clock: systemClock(),
      seed: testSeed,
      runs: 1,
    });
    expect(result.checks.map((check) => [check.id, check.status])).toEqual(ids.map((id) => [id, "failed"]));
    for (const check of result.checks) {
      expect(check.message).toMatch(/accessTokenValidity \d+ s, but the target announced expires_in 3600/);
    }
    expect(result.verdict).toBe("NOT CONFORMANT");
  }, 60_000);
});
