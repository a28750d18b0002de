// Tokens the quota client was issued before a check (here: while multi-token support was off, with the
// client's hour-long validity) are real and stay active, holding quota slots the kit cannot free where it
// cannot drive the target's clock. The quota checks count them, wait them out, or name them (undecided) instead of failing a
// correct target.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createClient } from "../../src/client/index.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import { planRun, referenceProfile, runPlan, systemClock } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

const credential = (clientId: string) => ({ clientId, clientSecret: `${clientId}-secret` });
/** The served reference as a target file describes it: the admin and the quota client of acme. */
const servedTarget = (served: Listening, name: string): Target => ({
  name,
  baseUrl: served.baseUrl,
  rdmUrl: served.rdmUrl,
  tenant: "acme",
  customerId: "cust-acme",
  credentials: { admin: credential("acme-admin"), quota: credential("acme-quota") },
  profile: { ...referenceProfile },
  loopback: true,
  disposable: true,
});
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
    const target = servedTarget(listening, "reference with an active quota token");
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
    // This one needs every slot: it finds the token from before (multi-token support off shows it, valid for
    // about an hour) and counts it, deciding one slot above it; or, where a token of its own session is
    // still active when it counts (a matter of seconds), it names the token from before: undecided. Never
    // a failure or a skip.
    const needy = outcome(ids[1] as string);
    expect(["passed", "inconclusive"]).toContain(needy?.status);
    if (needy?.status === "inconclusive") {
      expect(needy?.reason).toMatch(/a token valid for 3\d{3} s more.*a token issued before the run/);
      expect(needy?.undecided?.decideBy).toMatch(/^rerun after \d{4}-\d\d-\d\dT/);
      expect(result.verdict).toBe("INCOMPLETE");
    } else expect(result.verdict).toBe("CONFORMANT");
    // The token from before is still active: it was counted, not waited out.
    const still = await client.scanFirst(before.data?.access_token ?? "", {
      kind: "lookups",
      tenantId: "acme",
    });
    expect(still.status).toBe(200);
  }, 60_000);

  it("wait out a token from before the run that expires within the check's time limit, then decide", async () => {
    // A reference of its own: the test before leaves tokens of the quota client active.
    const own = await createReference().listen({ host: "127.0.0.1", port: 0 });
    onTestFinished(() => own.close());
    const target = servedTarget(own, "reference with a short-lived quota token from before the run");
    const client = createClient({ fetch, baseUrl: target.baseUrl, rdmUrl: target.rdmUrl });
    const admin = await client.token(credential("acme-admin"));
    const adminToken = admin.data?.access_token ?? "";
    // The quota client gets a token that lives 12 s, then its hour-long validity back: the token from
    // before the run outlives the kit's 2 s sessions but fits in the check's time limit.
    const put = (seconds: number) =>
      client.putClients(adminToken, "cust-acme", [{ clientId: "acme-quota", accessTokenValidity: seconds }]);
    expect((await put(12)).ok).toBe(true);
    const before = await client.token(credential("acme-quota"));
    expect(before.data?.expires_in).toBeGreaterThan(3);
    expect((await put(3600)).ok).toBe(true);
    const checks = allChecks.filter((check) => check.id === "token-quota/distinct-tokens-up-to-max");
    const plan = planRun(checks, { target, drivableClock: false });
    const result = await runPlan(plan, {
      fetch: (request) => fetch(request),
      clock: systemClock(),
      seed: testSeed,
      runs: 1,
    });
    const [only] = result.checks;
    expect(`${only?.status} ${only?.message ?? only?.reason ?? ""}`).toBe("passed ");
    // It waited the token out (about 12 s), not a whole validity.
    expect(only?.waitMs ?? 0).toBeGreaterThanOrEqual(8_000);
  }, 90_000);
});

describe("expired-token checks with a token of the quota client from before them (issue 43)", () => {
  it("make the short-lived token they need themselves instead of relying on the order of the checks", async () => {
    // The token from before lives an hour and multi-token support is off: a token request returns it
    // again, whatever validity the check gives the client. The check switches multi-token support on for
    // one token request, and the customer back.
    const own = await createReference().listen({ host: "127.0.0.1", port: 0 });
    onTestFinished(() => own.close());
    const target: Target = {
      ...servedTarget(own, "reference with an hour-long quota token from before"),
      credentials: {
        admin: credential("acme-admin"),
        quota: credential("acme-quota"),
        viewer: credential("acme-viewer"),
      },
    };
    const client = createClient({ fetch, baseUrl: target.baseUrl, rdmUrl: target.rdmUrl });
    const before = await client.token(credential("acme-quota"));
    expect(before.data?.expires_in).toBeGreaterThan(3000);
    const checks = allChecks.filter((check) => check.id === "auth/expired-token-refused");
    const plan = planRun(checks, { target, drivableClock: false });
    const result = await runPlan(plan, {
      fetch: (request) => fetch(request),
      clock: systemClock(),
      seed: testSeed,
      runs: 1,
    });
    const [only] = result.checks;
    expect(`${only?.status} ${only?.message ?? only?.reason ?? ""}`).toBe("passed ");
    // The customer is as it was: multi-token support off, so the token from before comes again.
    const again = await client.token(credential("acme-quota"));
    expect(again.data?.access_token).toBe(before.data?.access_token);
  }, 60_000);
});
