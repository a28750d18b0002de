// A check that ran and could not decide is neither a pass nor a skip: its own status in every format, what
// it saw with the two readings and what decides it, and (at MUST level) a failed job unless told otherwise.
import { beforeAll, describe, expect, it } from "vitest";
import { inconclusive } from "../../src/check/index.ts";
import { parseRunArgs } from "../../src/cli/commands/run.ts";
import { renderHtml, renderJunit, renderMarkdown } from "../../src/report/index.ts";
import type { RunResult } from "../../src/result/model.ts";
import { DEFAULT_FAIL_ON, exitCodeOf } from "../../src/result/verdict.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeFetch, fakeTarget } from "../runner/fake-target.ts";
import { reportValidator } from "./report-schema.ts";

const undecided = {
  saw: "a token request was refused for the limit",
  readings: ["tokens from before the run hold the slot", "the target refuses below its quota"] as const,
  decideBy: "rerun after the tokens expired",
};

async function runWith(level: "MUST" | "SHOULD"): Promise<RunResult> {
  const checks = [
    check("service/fine", async () => {}),
    check("token-quota/undecided", async () => inconclusive(undecided), { level }),
  ];
  return runPlan(planRun(checks, { target: fakeTarget() }), {
    fetch: fakeFetch,
    clock: systemClock(),
    seed: 1,
    runs: 1,
    timeoutMs: 1000,
  });
}

describe("an inconclusive MUST check", () => {
  let result: RunResult;
  beforeAll(async () => {
    result = await runWith("MUST");
  });

  it("has its own status, reason and structured readings, and the run is INCOMPLETE", () => {
    const got = result.checks.find((c) => c.id === "token-quota/undecided");
    expect(got?.status).toBe("inconclusive");
    expect(got?.undecided).toEqual({ ...undecided, readings: [...undecided.readings] });
    expect(got?.reason).toBe(
      "could not decide: a token request was refused for the limit; either tokens from before the run hold " +
        "the slot (conforming), or the target refuses below its quota (not conforming). To decide: rerun " +
        "after the tokens expired",
    );
    expect(result.counts.byStatus).toEqual({
      passed: 1,
      failed: 0,
      inconclusive: 1,
      "not-exercised": 0,
      skipped: 0,
      broken: 0,
    });
    expect(result.verdict).toBe("INCOMPLETE");
    expect(result.verdictReason).toMatch(/1 MUST check ran and could not decide .*token-quota\/undecided/);
  });

  it("fails the job by default; a fail-on list without inconclusive (--pass-inconclusive) lets it pass", () => {
    expect(DEFAULT_FAIL_ON).toContain("inconclusive");
    expect(exitCodeOf(result, DEFAULT_FAIL_ON)).toBe(1);
    expect(exitCodeOf(result)).toBe(1);
    expect(exitCodeOf(result, ["must"])).toBe(0);
  });

  it("validates against the report schema and shows in junit, markdown and html", () => {
    const validate = reportValidator();
    expect(validate(JSON.parse(JSON.stringify(result))), JSON.stringify(validate.errors)).toBe(true);
    const junit = renderJunit(result);
    expect(junit).toMatch(
      /<testcase name="token-quota\/undecided"[^>]*>\s*<failure message="could not decide: [^"]*" type="inconclusive">/,
    );
    const md = renderMarkdown(result);
    expect(md).toContain("### Checks that could not decide (1)");
    expect(md).toContain("rerun after the tokens expired");
    const html = renderHtml(result);
    expect(html).toContain("could not decide: a token request was refused for the limit");
  });
});

describe("an inconclusive SHOULD check", () => {
  it("is shown but fails neither the verdict nor the job", async () => {
    const result = await runWith("SHOULD");
    expect(result.verdict).toBe("CONFORMANT");
    expect(exitCodeOf(result, DEFAULT_FAIL_ON)).toBe(0);
    expect(renderJunit(result)).toMatch(/<system-out>UNDECIDED: SHOULD check could not decide/);
  });
});

describe("lckit run's --fail-on and --pass-inconclusive", () => {
  it.each<[string, string[], string[]]>([
    ["no flag", [], ["must", "inconclusive"]],
    [
      "--fail-on must,incomplete keeps the undecided rule",
      ["--fail-on", "must,incomplete"],
      ["must", "inconclusive", "incomplete"],
    ],
    ["--pass-inconclusive drops it", ["--pass-inconclusive"], ["must"]],
    ["--pass-inconclusive with should", ["--pass-inconclusive", "--fail-on", "should"], ["must", "should"]],
  ])("%s", (_, argv, want) => {
    const args = parseRunArgs(argv);
    expect(args === "help" ? [] : [...args.failOn].sort()).toEqual([...want].sort());
  });
});
