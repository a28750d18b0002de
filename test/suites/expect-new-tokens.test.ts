// expectNewTokens on a session that did not start clean (token-quota/multitoken-config-activates in real
// time, second setting): a limit-exceeded refusal of the first request is the kit's own earlier tokens until
// they have expired, so the kit waits them out once and asks again; a target that returns a token twice
// still fails, and one that keeps refusing is undecided, unless the kit found the client holding no token
// from before the run: then the refusal fails. Table of cases against a scripted token endpoint.
import { describe, expect, it } from "vitest";
import {
  type Check,
  CheckFailure,
  CheckInconclusive,
  CheckSkipped,
  type Target,
} from "../../src/check/index.ts";
import type { ApiResponse, TokenResponse } from "../../src/client/index.ts";
import { FactStore } from "../../src/runner/run-facts.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { lenientProfile } from "../../src/target/profile.ts";
import { noTokensFromBefore, type QuotaSession } from "../../suites/support/quota-session.ts";
import { expectNewTokens, QUOTA_FACTS } from "../../suites/support/quota-tokens.ts";

type Answer = "refused" | string;

function response(answer: Answer): ApiResponse<TokenResponse> {
  const request = { method: "POST", url: "http://target.test/oauth/token" };
  if (answer === "refused") {
    const text = '{"error":"quota_exceeded","error_description":"Max active tokens limit exceeded"}';
    return {
      request,
      status: 429,
      ok: false,
      headers: new Headers(),
      contentType: "application/json",
      text,
      body: JSON.parse(text),
    };
  }
  const data = { access_token: answer, token_type: "bearer", expires_in: 2 };
  const text = JSON.stringify(data);
  return {
    request,
    status: 200,
    ok: true,
    headers: new Headers(),
    contentType: "application/json",
    text,
    body: data,
    data,
  };
}

/** A session whose token endpoint answers `before` until settle() is called, then `after`. */
function scripted(before: Answer[], after: Answer[], knownClean = false) {
  const target: Target = { ...embeddedTargetDescription(), profile: { ...lenientProfile } };
  const facts = new FactStore().viewFor(
    { id: "token-quota/scripted", facts: QUOTA_FACTS } as Check,
    () => {},
  );
  if (knownClean) facts.set(noTokensFromBefore, true);
  let settled = false;
  const calls = { settle: 0, issue: 0 };
  let queue = [...before];
  const session = {
    ctx: { target, facts },
    drivable: false,
    validitySeconds: 2,
    async issue() {
      calls.issue++;
      return response(queue.shift() ?? "refused");
    },
    async settle() {
      calls.settle++;
      if (!settled) queue = [...after];
      settled = true;
    },
  } as unknown as QuotaSession;
  return { session, calls };
}

async function outcome(run: Promise<void>): Promise<string> {
  try {
    await run;
    return "passed";
  } catch (error) {
    if (error instanceof CheckSkipped) return "skipped";
    if (error instanceof CheckInconclusive) return "inconclusive";
    if (error instanceof CheckFailure) return "failed";
    throw error;
  }
}

describe("expectNewTokens after a start that was not clean", () => {
  it.each<
    [
      string,
      {
        before: Answer[];
        after: Answer[];
        settleOnRefusal: boolean;
        want: string;
        settles: number;
        knownClean?: boolean;
      },
    ]
  >([
    [
      "tokens at once: no wait",
      { before: ["a", "b", "c"], after: [], settleOnRefusal: true, want: "passed", settles: 0 },
    ],
    [
      "own tokens held the slots: waits once, then new tokens",
      { before: ["refused"], after: ["a", "b", "c"], settleOnRefusal: true, want: "passed", settles: 1 },
    ],
    [
      "a small default quota: one new token, then the limit",
      { before: ["refused"], after: ["a", "refused"], settleOnRefusal: true, want: "passed", settles: 1 },
    ],
    [
      "still refused after the wait: tokens from before, or a refusal below the quota: undecided",
      { before: ["refused"], after: ["refused"], settleOnRefusal: true, want: "inconclusive", settles: 1 },
    ],
    [
      "still refused after the wait where the client held no token from before the run: a failure",
      {
        before: ["refused"],
        after: ["refused"],
        settleOnRefusal: true,
        want: "failed",
        settles: 1,
        knownClean: true,
      },
    ],
    [
      "a token returned twice after the wait fails",
      { before: ["refused"], after: ["a", "a"], settleOnRefusal: true, want: "failed", settles: 1 },
    ],
    [
      "a clean start never waits: a refusal is undecided at once",
      {
        before: ["refused"],
        after: ["a", "b", "c"],
        settleOnRefusal: false,
        want: "inconclusive",
        settles: 0,
      },
    ],
  ])("%s", async (_, { before, after, settleOnRefusal, want, settles, knownClean }) => {
    const { session, calls } = scripted(before, after, knownClean);
    expect(await outcome(expectNewTokens(session, 3, "multitokenConfig {}", { settleOnRefusal }))).toBe(want);
    expect(calls.settle).toBe(settles);
  });
});
