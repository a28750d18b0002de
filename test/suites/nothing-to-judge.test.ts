// A rule passes only on an opportunity it judged. Where a target lists nothing (or too little to show the
// rule), the checks cannot tell an empty tenant from an operation that answers nothing: they say so
// (inconclusive, which fails the job unless --pass-inconclusive) instead of passing.
import "../support/background.ts";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../src/result/model.ts";
import { planRun, runPlan, startEmbeddedTarget } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

/** The embedded reference, with the successful answers of the paths `where` matches rewritten. */
async function runRewritten(
  suites: string[],
  where: RegExp,
  rewrite: (answer: Response) => Promise<Response>,
  variants: string[] = [],
): Promise<{ result: RunResult; status: Record<string, string> }> {
  const embedded = await startEmbeddedTarget({ variants });
  const fetch = async (request: Request): Promise<Response> => {
    const answer = await embedded.fetch(request);
    return answer.ok && where.test(new URL(request.url).pathname) ? rewrite(answer) : answer;
  };
  const plan = planRun(allChecks, { target: embedded.target, drivableClock: true, suites });
  const result = await runPlan(plan, { fetch, clock: embedded.clock, seed: testSeed, runs: 5 });
  const status = Object.fromEntries(
    result.checks.filter((c) => c.level === "MUST").map((c) => [c.id, c.status]),
  );
  return { result, status };
}

describe("checks with nothing to judge", () => {
  it("blocked values: every check of listed values is inconclusive when no type lists one", async () => {
    const { result, status } = await runRewritten(["blocked-values"], /\/blockedValues$/, async () =>
      Response.json([]),
    );
    expect(status).toEqual({
      "blocked-values/paging-consistent": "inconclusive",
      "blocked-values/limit-respected": "inconclusive",
      "blocked-values/defaults": "inconclusive",
      "blocked-values/record-fields": "inconclusive",
      "blocked-values/of-the-path": "inconclusive",
    });
    // Refusing out-of-range parameters needs no listed value.
    expect(result.checks.find((c) => c.id === "blocked-values/out-of-range-400")?.status).toBe("passed");
    const undecided = result.checks.find((c) => c.id === "blocked-values/defaults")?.undecided;
    expect(undecided?.saw).toMatch(/no lookup type of tenant acme lists a blocked value/);
    expect(undecided?.decideBy).toMatch(/tenant that has blocked values/);
  });

  it("lookups scan: the checks of its records, its end and the deletion of all are inconclusive on no record", async () => {
    const { status, result } = await runRewritten(
      ["lookup-scan", "delete-task"],
      /\/lookups\/[^/]+\/_scan$/,
      async () => Response.json({ values: [] }),
    );
    for (const id of [
      "lookup-scan/every-record-once",
      "lookup-scan/page-within-limit",
      "lookup-scan/order-respected",
      "lookup-scan/filter-equals-exact",
      "lookup-scan/record-fields",
      "lookup-scan/scan-ends",
      "delete-task/all-of-tenant",
      "delete-task/by-uris",
      "delete-task/by-type",
      "delete-task/foreign-uris-delete-nothing",
    ])
      expect(status[id], id).toBe("inconclusive");
    expect(Object.values(status)).not.toContain("failed");
    expect(result.checks.find((c) => c.id === "lookup-scan/scan-ends")?.undecided?.saw).toMatch(
      /answered no record/,
    );
  });

  it("autopilot scans: page caps of 100 are inconclusive with at most 100 statistics", async () => {
    // One page of at most 50 statistics, and the end (the other checks' findings on this double are not
    // the point here).
    const fifty = async (answer: Response) => {
      const page = (await answer.json()) as { values: unknown[] };
      return Response.json({ values: page.values.slice(0, 50) });
    };
    const refusing = await runRewritten(["autopilot-scan"], /\/autopilot\/stats\/_scan$/, fifty);
    expect(refusing.status["autopilot-scan/default-limit"]).toBe("inconclusive");
    // A refusal of limits above 100 is judged whatever the data.
    expect(refusing.status["autopilot-scan/limit-above-100"]).toBe("passed");
    const clamping = await runRewritten(["autopilot-scan"], /\/autopilot\/stats\/_scan$/, fifty, [
      "limit-above-max-clamped",
    ]);
    expect(clamping.status["autopilot-scan/limit-above-100"]).toBe("inconclusive");
  });
});
