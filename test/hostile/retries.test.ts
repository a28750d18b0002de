// Polite and robust against a live system: a target that once answers 429 with Retry-After, and one that
// once resets a connection, each end the whole run CONFORMANT (a rate limit and a stale connection are no
// conformance failures), with the retry in the evidence: in evidence.har as two entries (the refused or
// broken attempt, then the answer), both cited by the check, and in report.json's `retries` of that check.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HarWriter, linkEvidence } from "../../src/evidence/har.ts";
import type { RunResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { startEmbeddedTarget } from "../../src/target/embedded.ts";
import { allChecks } from "../../suites/index.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-retries-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Har {
  log: {
    entries: {
      request: { method: string; url: string };
      response: { status: number; headers: { name: string; value: string }[]; _error?: string };
      _exchangeId?: number;
      _check?: string;
    }[];
  };
}

type Misbehaviour = (request: Request, forward: () => Promise<Response>) => Promise<Response>;

/** A whole run of every check against the embedded reference behind `misbehave`, with its HAR. */
async function certifyBehind(name: string, misbehave: Misbehaviour) {
  const embedded = await startEmbeddedTarget();
  const file = join(dir, `${name}.har`);
  const har = new HarWriter(file, { name: "lckit", version: "test" }, []);
  const fetch = (request: Request) => misbehave(request, () => embedded.fetch(request));
  const plan = planRun(allChecks, { target: embedded.target, drivableClock: true });
  let result: RunResult;
  try {
    result = await runPlan(plan, { fetch: har.wrap(fetch), clock: embedded.clock, seed: 7, runs: 1 });
  } finally {
    await har.close();
  }
  return { result: linkEvidence(result, har.index), har: JSON.parse(readFileSync(file, "utf8")) as Har };
}

/** Misbehaves once, on the first request that `matches`; forwards everything else. */
function once(matches: (request: Request) => boolean, act: () => Promise<Response>): Misbehaviour {
  let done = false;
  return (request, forward) => {
    if (done || !matches(request)) return forward();
    done = true;
    return act();
  };
}

const isGet = (path: string) => (request: Request) =>
  request.method === "GET" && new URL(request.url).pathname === path;

/** The check whose request was retried: its retry note, and the HAR entries it cites. */
function retried(result: RunResult, har: Har) {
  const checks = result.checks.filter((c) => (c.retries ?? []).length > 0);
  expect(checks).toHaveLength(1);
  const c = checks[0] as RunResult["checks"][number];
  const cited = (c.harEntries ?? []).map((i) => har.log.entries[i]);
  return { check: c, retry: c.retries?.[0], cited };
}

describe("retries end a run CONFORMANT, and the evidence shows them", () => {
  it("a 429 with Retry-After is waited out and retried", async () => {
    const { result, har } = await certifyBehind(
      "rate-limited",
      once(isGet("/healthcheck"), async () =>
        Response.json({ error: "slow down" }, { status: 429, headers: { "retry-after": "1" } }),
      ),
    );
    expect(result.verdict, result.verdictReason).toBe("CONFORMANT");
    const { check, retry, cited } = retried(result, har);
    expect(check.status).toBe("passed");
    expect(retry?.note).toMatch(/GET \S+\/healthcheck -> 429: waited 1000 ms, then retried/);
    expect(retry).toMatchObject({ cause: "rate-limit", status: 429, waitMs: 1000 });
    // The refused attempt and the retry are both in the HAR, both cited by the check.
    const attempts = cited.filter((e) => e?.request.url.endsWith("/healthcheck"));
    expect(attempts[0]?._exchangeId).toBe(retry?.exchange);
    expect(attempts[0]?.response.status).toBe(429);
    expect(attempts[1]?.response.status).toBe(200);
  }, 60_000);

  it("a connection reset on an idempotent read is retried once", async () => {
    const { result, har } = await certifyBehind(
      "reset",
      once(isGet("/version"), async () => {
        throw new TypeError("fetch failed", {
          cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
        });
      }),
    );
    expect(result.verdict, result.verdictReason).toBe("CONFORMANT");
    const { check, retry, cited } = retried(result, har);
    expect(check.status).toBe("passed");
    expect(retry?.note).toMatch(/GET \S+\/version -> .*ECONNRESET.*: retried once/);
    expect(retry).toMatchObject({ cause: "reset", error: expect.stringMatching(/ECONNRESET/) });
    const attempts = cited.filter((e) => e?.request.url.endsWith("/version"));
    expect(attempts[0]?._exchangeId).toBe(retry?.exchange);
    expect(attempts[0]?.response._error).toMatch(/fetch failed/);
    expect(attempts[1]?.response.status).toBe(200);
  }, 60_000);
});
