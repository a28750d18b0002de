// A target that answers every request but the token endpoint with "200 text/html" is nonsense: no MUST check
// that reads data may pass against it (a check must judge what an answer is, not only that it is 2xx).
import { describe, expect, it } from "vitest";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

const page = "<!doctype html><html><head><title>Welcome</title></head><body><p>OK</p></body></html>";

/** The embedded reference behind a front that turns every answer except a token's into an HTML page. */
async function htmlTarget() {
  const embedded = await startEmbeddedTarget();
  const fetch = async (request: Request): Promise<Response> => {
    const response = await embedded.fetch(request);
    if (new URL(request.url).pathname === "/oauth/token") return response;
    return new Response(page, { status: 200, headers: { "content-type": "text/html; charset=utf-8" } });
  };
  return { ...embedded, fetch };
}

describe("a target answering HTML pages", () => {
  it("passes no MUST check", async () => {
    const target = await htmlTarget();
    const plan = planRun(allChecks, { target: target.target, drivableClock: true });
    const result = await runPlan(plan, { fetch: target.fetch, clock: target.clock, seed: testSeed, runs: 3 });
    const passed = result.checks.filter((c) => c.level === "MUST" && c.status === "passed").map((c) => c.id);
    expect(passed).toEqual([]);
    expect(result.checks.filter((c) => c.status === "broken").map((c) => `${c.id}: ${c.message}`)).toEqual(
      [],
    );
    expect(result.verdict).toBe("NOT CONFORMANT");
  });
});

/** The embedded reference as if its tenants held no data: every scan answers one empty page. */
async function emptyTarget() {
  const embedded = await startEmbeddedTarget();
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    // Limits the reference refuses are still refused (the profile pins that), data or not.
    const limit = Number(url.searchParams.get("limit") ?? "100");
    if (!url.pathname.endsWith("/_scan") || !(limit >= 1 && limit <= 100)) return embedded.fetch(request);
    return new Response('{"values":[]}', { status: 200, headers: { "content-type": "application/json" } });
  };
  return { ...embedded, fetch };
}

describe("a target whose tenant holds no data", () => {
  it("makes the checks that need data say they could not decide, rather than pass on nothing", async () => {
    const target = await emptyTarget();
    const plan = planRun(allChecks, {
      target: target.target,
      drivableClock: true,
      suites: ["lookup-scan", "autopilot-scan", "delete-task"],
    });
    const result = await runPlan(plan, { fetch: target.fetch, clock: target.clock, seed: testSeed, runs: 3 });
    const status = (id: string) => result.checks.find((c) => c.id === id);
    for (const id of [
      "lookup-scan/filter-equals-exact",
      "autopilot-scan/filter-equals-exact",
      "autopilot-scan/type-scan-pages",
      "delete-task/by-uris",
      "delete-task/by-type",
      "lookup-scan/every-record-once",
      "autopilot-scan/every-record-once",
      "delete-task/all-of-tenant",
    ]) {
      expect(status(id)?.status, id).toBe("inconclusive");
      expect(status(id)?.undecided?.saw, id).toMatch(/answered no record/);
      expect(status(id)?.undecided?.decideBy, id).toMatch(/tenant whose data/);
    }
    expect(
      result.checks.filter((c) => c.status === "broken" || (c.level === "MUST" && c.status === "failed")),
    ).toEqual([]);
  });
});
