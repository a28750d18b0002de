// Against a live target the checks that let tokens expire share their waits: a quota session starts at
// once when the check before it already waited the quota client's tokens out, and the second check that
// needs an expired token sends the one the first saw expire. Sharing must cost no power: each fault below
// is still caught by the check that starts without a wait of its own. The reference is served on a
// loopback port with its real clock (about 10 s of real waiting per case).
import { describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createClient } from "../../src/client/index.ts";
import type { FaultName } from "../../src/reference/faults.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import type { CheckResult } from "../../src/result/model.ts";
import { planRun, runPlan, systemClock } from "../../src/runner/index.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

/** With one quota client: the waits shared here are between checks one after another on that client (a
 *  second quota client would put the checks of a pair in two lanes, each with a client of its own). */
function servedTarget(listening: Listening): Target {
  const { quotaAlt: _, ...description } = embeddedTargetDescription();
  return {
    ...description,
    name: "reference served on loopback",
    baseUrl: listening.baseUrl,
    rdmUrl: listening.rdmUrl,
  };
}

/** Runs `ids` (in plan order) against `target`; the kit keeps what it learned of a target per object. */
async function runOn(target: Target, ids: readonly string[]): Promise<CheckResult[]> {
  const checks = allChecks.filter((check) => ids.includes(check.id));
  expect(checks.map((check) => check.id).sort()).toEqual([...ids].sort());
  const plan = planRun(checks, { target, drivableClock: false });
  const result = await runPlan(plan, {
    fetch: (r) => fetch(r),
    clock: systemClock(),
    seed: testSeed,
    runs: 1,
  });
  return result.checks;
}

/** Runs `ids` (in plan order) against the reference with `faults`, served on loopback. */
async function liveRun(ids: readonly string[], faults: FaultName[] = []): Promise<CheckResult[]> {
  const listening = await createReference({ faults }).listen({ host: "127.0.0.1", port: 0 });
  try {
    return await runOn(servedTarget(listening), ids);
  } finally {
    await listening.close();
  }
}

const outcome = (results: CheckResult[], id: string) => {
  const result = results.find((r) => r.id === id);
  return `${result?.status} ${result?.message ?? result?.reason ?? ""}`.trim();
};
const waitOf = (results: CheckResult[], id: string) => results.find((r) => r.id === id)?.waitMs ?? 0;

const expiredChecks = ["auth/expired-token-refused", "auth/expired-token-401"];
// The per-client check ends by waiting out every token it issued; the validity check after it needs every
// token of the quota client expired, then waits 1 s and 3 s of its own.
const quotaPair = ["token-quota/quota-per-client", "token-quota/validity-from-client-configuration"];
const ownWaitsMs = 1000 + 3000;

describe("waits shared between checks against a live target", () => {
  it("the second expired-token check sends the token the first saw expire: one wait for both", {
    timeout: 60_000,
  }, async () => {
    const results = await liveRun(expiredChecks);
    for (const id of expiredChecks) expect(outcome(results, id), id).toBe("passed");
    expect(waitOf(results, "auth/expired-token-refused")).toBeGreaterThan(0);
    expect(results.find((r) => r.id === "auth/expired-token-401")?.waitMs).toBeUndefined();
  });

  it("an expired token accepted is still caught by both, the one that did not wait included", {
    timeout: 60_000,
  }, async () => {
    const results = await liveRun(expiredChecks, ["expired-token-accepted"]);
    for (const id of expiredChecks) expect(results.find((r) => r.id === id)?.status, id).toBe("failed");
  });

  it("a quota session after a check that waited its tokens out starts without a validity wait", {
    timeout: 60_000,
  }, async () => {
    const results = await liveRun(quotaPair);
    // On a loaded machine the per-client check may find its burst too slow to judge and skip; it still
    // waits its tokens out on the way.
    expect(outcome(results, "token-quota/quota-per-client")).toMatch(
      /^(passed|inconclusive .*validity of its tokens allows for certain)/,
    );
    expect(outcome(results, "token-quota/validity-from-client-configuration")).toBe("passed");
    // A clean start of its own would add the quota client's validity (2 s) + 1 s to its own waits.
    const waited = waitOf(results, "token-quota/validity-from-client-configuration");
    expect(waited).toBeGreaterThanOrEqual(ownWaitsMs);
    expect(waited).toBeLessThan(ownWaitsMs + 1000);
  });

  it("the session that started without a wait still catches a validity the target ignores", {
    timeout: 60_000,
  }, async () => {
    const results = await liveRun(quotaPair, ["token-validity-ignored"]);
    expect(results.find((r) => r.id === "token-quota/validity-from-client-configuration")?.status).toBe(
      "failed",
    );
  });

  it("the first quota session asks for tokens from before the run only where its own have expired, and is not fooled by one", {
    timeout: 60_000,
  }, async () => {
    const listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
    try {
      const target = servedTarget(listening);
      // The auth check leaves every token the kit was issued expired (and the client's validity an hour).
      const first = await runOn(target, ["auth/expired-token-refused"]);
      expect(outcome(first, "auth/expired-token-refused")).toBe("passed");
      const quota = target.credentials.quota as { clientId: string; clientSecret: string };
      const client = createClient({ fetch, baseUrl: target.baseUrl, rdmUrl: target.rdmUrl });
      expect((await client.token(quota)).status).toBe(200);
      // The next session asks with a quota of 1 and is refused for that token; with multi-token support
      // off the target shows it, valid for about an hour. By the document's model it holds a slot for the
      // whole check, so the check counts it and decides one slot above it (never a failure, never a skip).
      const results = await runOn(target, [
        "token-quota/single-token-reused",
        "token-quota/distinct-tokens-up-to-max",
      ]);
      expect(outcome(results, "token-quota/single-token-reused")).toBe("passed");
      expect(outcome(results, "token-quota/distinct-tokens-up-to-max")).toMatch(/^passed\b/);
    } finally {
      await listening.close();
    }
  });

  it("the first clean start on a target also asks for tokens from before the run: no probe of its own after", {
    timeout: 60_000,
  }, async () => {
    const results = await liveRun([
      "token-quota/single-token-reused",
      "token-quota/distinct-tokens-up-to-max",
    ]);
    expect(outcome(results, "token-quota/single-token-reused")).toBe("passed");
    expect(outcome(results, "token-quota/distinct-tokens-up-to-max")).toBe("passed");
    // The first session's clean start waits out the token of its probe (granted: no token from before).
    expect(waitOf(results, "token-quota/single-token-reused")).toBeGreaterThan(0);
    // The next waits only for the first's tokens to expire (validity 2 s + 1 s), not for a probe's too.
    expect(waitOf(results, "token-quota/distinct-tokens-up-to-max")).toBeLessThanOrEqual(3000);
  });

  // In a live run the expired-token checks go right after the first quota check of the token lane (a read
  // check beside it, so that the run has lanes at all).
  const sharedLane = [
    "service/healthcheck-ok",
    "auth/expired-token-refused",
    "auth/expired-token-401",
    "token-quota/multitoken-config-activates",
    "token-quota/refusal-429",
  ];

  it("an expired-token check after the first quota session waits out its tokens too: the next starts at once", {
    timeout: 60_000,
  }, async () => {
    const results = await liveRun(sharedLane);
    // (The order they ran in is the schedule's: test/runner/quota-lanes.test.ts.) Run first, the auth
    // check's wait would be one more: the quota check after the session would wait out its tokens.
    for (const id of sharedLane) expect(outcome(results, id), id).toBe("passed");
    expect(waitOf(results, "auth/expired-token-refused")).toBeGreaterThan(0);
    expect(waitOf(results, "token-quota/refusal-429")).toBe(0);
  });

  it("an expired token accepted is still caught by both expired-token checks after the quota session", {
    timeout: 60_000,
  }, async () => {
    const results = await liveRun(sharedLane, ["expired-token-accepted"]);
    for (const id of expiredChecks) expect(results.find((r) => r.id === id)?.status, id).toBe("failed");
  });

  it("the second round of simultaneous requests raises the quota on top of the first: one clean start", {
    timeout: 60_000,
  }, async () => {
    const id = "token-quota/parallel-requests-never-exceed";
    const results = await liveRun([id]);
    expect(outcome(results, id)).toBe("passed");
    // The first clean start waits the quota client's validity (2 s) + 1 s; a second one would double it.
    expect(waitOf(results, id)).toBeLessThan(2 * 3000);
    const raced = await liveRun([id], ["concurrent-quota-race"]);
    expect(raced.find((r) => r.id === id)?.status).toBe("failed");
  });
});
