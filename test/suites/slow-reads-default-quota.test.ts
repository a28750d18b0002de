// The real-time default-quota check sizes its tokens' validity from the pace of reads measured in waves,
// twice over for a margin; a loaded machine or a slow link can push that estimate past the longest validity
// the check takes (a clean clone's CI run met it over a remote link: skipped there, passed on loopback).
// Where the pace as measured fits, the longest validity is tried: here reads answer 1.2 s late (about 240 ms
// a request in waves of 5: twice that asks 146 s, the pace itself 74 s), token requests at once.
import { afterEach, describe, expect, it } from "vitest";
import type { FaultName } from "../../src/reference/index.ts";
import { openReferences, runSlowed } from "./slowed-run.ts";

const CHECK = "token-quota/default-quota-200";
const READ_DELAY_MS = 1200;

afterEach(async () => {
  for (const listening of openReferences.splice(0)) await listening.close();
});

// The one-lookup reads the check measures its pace by.
const run = (faults: FaultName[] = []) =>
  runSlowed(
    CHECK,
    {
      delayMs: READ_DELAY_MS,
      picks: (url) => url.pathname.startsWith("/lookups/") && url.searchParams.get("limit") === "1",
    },
    faults,
  );

describe("default-quota-200 where twice the measured pace asks more than the longest validity", () => {
  it("tries the longest validity, since the pace as measured fits in it, and decides", {
    timeout: 120_000,
  }, async () => {
    const { status, message } = await run();
    expect(`${status}: ${message}`).toBe("passed: ");
  });

  it("still fails a target that grants one token over its quota", { timeout: 120_000 }, async () => {
    const { status, message } = await run(["quota-off-by-one"]);
    expect(status).toBe("failed");
    expect(message).toMatch(/201/);
  });
});
