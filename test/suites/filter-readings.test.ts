// The document shows equals(type,'<type_name>') as a sample but not what equals means when the field holds a
// URI (rdm/lookupTypes/<type_name>). A target that compares stored values exactly, so that a bare type name
// matches nothing, is a correct reading: it passes every MUST check and fails only the kit's SHOULD
// preference, lookup-scan/filter-type-name.
import { describe, expect, it } from "vitest";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

const typePrefix = "rdm/lookupTypes/";

/** equals(type,'<name without the prefix>') becomes missing(type): no lookup's stored type is a bare name. */
function exactTypeFilter(request: Request): Request {
  const url = new URL(request.url);
  const filter = url.searchParams.get("filter");
  if (!url.pathname.startsWith("/lookups/") || filter === null) return request;
  const rewritten = filter.replace(/equals\(\s*type\s*,\s*'([^']*)'\s*\)/g, (whole, value: string) =>
    value.startsWith(typePrefix) ? whole : "missing(type)",
  );
  if (rewritten === filter) return request;
  url.searchParams.set("filter", rewritten);
  return new Request(url, request);
}

describe("equals on a lookup type compared as stored (no type-name reading)", () => {
  it("passes every MUST check and fails the SHOULD check of the name reading", async () => {
    const embedded = await startEmbeddedTarget();
    const plan = planRun(allChecks, {
      target: embedded.target,
      drivableClock: true,
      suites: ["lookup-scan", "schema"],
    });
    const result = await runPlan(plan, {
      fetch: (request) => embedded.fetch(exactTypeFilter(request)),
      clock: embedded.clock,
      seed: testSeed,
      runs: 10,
    });
    const notPassed = result.checks
      .filter((check) => check.status !== "passed" && check.status !== "skipped")
      .map((check) => `${check.level} ${check.status} ${check.id}`);
    expect(notPassed).toEqual(["SHOULD failed lookup-scan/filter-type-name"]);
  });
});
