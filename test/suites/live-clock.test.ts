// Against a live target the kit cannot drive the clock of, the token-lifetime and quota checks take their
// real-time paths (short accessTokenValidity through PUT .../clients, real sleeps) and run to a verdict: the
// reference served on a loopback port, on its own system clock, passes them all, none skipped. This waits
// for real (about a minute): every token the checks let expire lives 2-3 s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "../../src/check/index.ts";
import { createReference, type Listening } from "../../src/reference/index.ts";
import { planRun, runPlan, systemClock } from "../../src/runner/index.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

function servedTarget(listening: Listening): Target {
  // The fixture world the embedded target describes, reached over a socket on the reference's own clock.
  return {
    ...embeddedTargetDescription(),
    name: "reference served on loopback",
    baseUrl: listening.baseUrl,
    rdmUrl: listening.rdmUrl,
  };
}

describe("token-quota and auth suites against a served reference with a clock the kit cannot drive", () => {
  let listening: Listening;

  beforeAll(async () => {
    // The reference's default clock is the system clock: time passes only by waiting.
    listening = await createReference().listen({ host: "127.0.0.1", port: 0 });
  });

  afterAll(async () => {
    await listening?.close();
  });

  it("runs every check to a pass: nothing skipped, failed or broken", { timeout: 150_000 }, async () => {
    const target = servedTarget(listening);
    const clock = systemClock();
    expect(clock.advance).toBeUndefined();
    const plan = planRun(allChecks, { target, suites: ["token-quota", "auth"], drivableClock: false });
    const result = await runPlan(plan, {
      fetch: (request) => fetch(request),
      clock,
      seed: testSeed,
      // The model check makes min(runs, 3) runs in real time; 2 keep this file near a minute.
      runs: 2,
    });
    const selected = result.checks.filter((check) =>
      ["token-quota", "auth"].some((suite) => check.id.startsWith(`${suite}/`)),
    );
    expect(selected.length).toBeGreaterThan(25);
    expect(
      selected
        .filter((check) => check.status !== "passed")
        .map((check) => `${check.status} ${check.id}: ${check.message ?? check.reason ?? ""}`),
    ).toEqual([]);
  });
});
