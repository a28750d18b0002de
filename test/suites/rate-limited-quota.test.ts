// Tolerance: a token endpoint with a rate limiter (the variant token-rate-limit: a client's 11th token
// request within one second is answered 429 with Retry-After: 1; the document shows no rate limit) gets no
// MUST failure from the token-quota checks at any quota the seed picks (3, 4 and 5: seed 44's quota of 5
// made the simultaneous-requests check ask a 16th token in one second, refused by the limiter, and fail).
// The checks wait such a Retry-After out only when no token they hold expires meanwhile, so a refusal
// below the quota (whose Retry-After is the time until a token expires) still fails.
import { describe, expect, it } from "vitest";
import { allChecks } from "../../suites/index.ts";
import { runEmbedded } from "./embedded-run.ts";

const quotaChecks = allChecks.filter((check) => check.id.startsWith("token-quota/"));
const mustProblems = (checks: { id: string; level: string; status: string; message?: string }[]) =>
  checks
    .filter((c) => c.status === "broken" || (c.status === "failed" && c.level === "MUST"))
    .map((c) => `${c.status} ${c.id}: ${c.message ?? ""}`);

describe("the token-quota checks against a rate-limited token endpoint", () => {
  it.each([42, 43, 44])("seed %i: no MUST failure", async (seed) => {
    const { result } = await runEmbedded({
      variants: ["token-rate-limit"],
      checks: quotaChecks,
      seed,
      runs: 1,
    });
    expect(result.checks.length).toBe(quotaChecks.length);
    expect(mustProblems(result.checks)).toEqual([]);
  });

  it("still fails a refusal below the quota and parallel requests over it", async () => {
    const early = await runEmbedded({
      variants: ["token-rate-limit"],
      faults: ["quota-refused-early"],
      checks: quotaChecks,
      seed: 44,
      runs: 1,
    });
    expect(early.byId.get("token-quota/distinct-tokens-up-to-max")?.status).toBe("failed");
    const race = await runEmbedded({
      variants: ["token-rate-limit"],
      faults: ["concurrent-quota-race"],
      checks: quotaChecks.filter((c) => c.id === "token-quota/parallel-requests-never-exceed"),
      seed: 42,
      runs: 1,
    });
    expect(race.byId.get("token-quota/parallel-requests-never-exceed")?.status).toBe("failed");
  });
});
