// A real-time quota check sizes its tokens' validity by the pace of reads measured before its bursts; over a
// link that other lanes share, token requests may later take several times as long (a clean clone's CI run
// met it: quota-per-client undecided over a remote link, passed on loopback). The reference here answers
// token requests 300 ms late and reads at once: the first attempt's burst outlasts its tokens, the second,
// sized by the pace the first showed, decides. A quota not enforced is still caught.
import { afterEach, describe, expect, it } from "vitest";
import type { FaultName } from "../../src/reference/index.ts";
import { openReferences, runSlowed } from "./slowed-run.ts";

const CHECK = "token-quota/quota-per-client";
const TOKEN_DELAY_MS = 300;

afterEach(async () => {
  for (const listening of openReferences.splice(0)) await listening.close();
});

async function run(faults: FaultName[] = []) {
  const { status, message, slowed } = await runSlowed(
    CHECK,
    { delayMs: TOKEN_DELAY_MS, picks: (url) => url.pathname === "/oauth/token" },
    faults,
  );
  return { status, message, tokenRequests: slowed };
}

describe("quota-per-client on a target whose token requests are slower than its reads", () => {
  it("decides on a second attempt sized by the pace the first burst showed", {
    timeout: 120_000,
  }, async () => {
    const { status, message, tokenRequests } = await run();
    expect(`${status}: ${message}`).toBe("passed: ");
    // Two attempts: the viewer's and the quota client's bursts were sent twice (each at least 2 requests).
    expect(tokenRequests).toBeGreaterThanOrEqual(12);
  });

  it("still fails a target that does not enforce the quota", { timeout: 120_000 }, async () => {
    const { status, message } = await run(["quota-not-enforced"]);
    expect(status).toBe("failed");
    expect(message).toMatch(/tokens with maxActiveTokensAllowed/);
  });
});
