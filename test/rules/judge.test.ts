// The one judging engine: what it decides from opportunities and findings, whose it makes each finding
// (from the rule's header, never the judge), the order of findings, and the check result it turns a
// verdict into.
import { describe, expect, it } from "vitest";
import { defineRule } from "../../src/check/rule.ts";
import type { Found } from "../../src/rules/finding.ts";
import { judgeRules, outcomeOf, ruleCheckResult } from "../../src/rules/judge.ts";

const must = defineRule("caller", {
  id: "client/a",
  title: "MUST do a",
  requirements: ["REQ-A", "REQ-B"],
});
const should = defineRule("caller", { id: "client/b", title: "SHOULD do b", requirements: ["REQ-C"] });
const found = (where: string, rank = 0): Found<{ rank: number }> => ({
  where,
  message: `at ${where}`,
  evidence: { rank },
});

describe("the outcome of a rule", () => {
  it("is not exercised without an opportunity, never a pass, whatever was found", () => {
    expect(outcomeOf(0, [], "give it a scan")).toEqual({ status: "not-exercised", reason: "give it a scan" });
    expect(outcomeOf(0, [found("#1")], "x").status).toBe("not-exercised");
  });

  it("fails on a finding, passes without one (with its note when given)", () => {
    expect(outcomeOf(2, [found("#1")], "x")).toEqual({
      status: "failed",
      opportunities: 2,
      found: [found("#1")],
    });
    expect(outcomeOf(2, [], "x")).toEqual({ status: "passed", opportunities: 2 });
    expect(outcomeOf(2, [], "x", "3 skipped")).toEqual({
      status: "passed",
      opportunities: 2,
      note: "3 skipped",
    });
  });
});

describe("judging rules", () => {
  it("makes every finding the rule's: its id and first requirement, from its header", () => {
    const [a] = judgeRules([must], () => outcomeOf(1, [found("#4")], "x"));
    expect(a?.status).toBe("failed");
    expect(a?.status === "failed" ? a.findings : []).toEqual([
      { rule: "client/a", requirement: "REQ-A", where: "#4", message: "at #4", evidence: { rank: 0 } },
    ]);
  });

  it("judges in the declared order, times each rule and spreads shared time evenly", () => {
    const judged = judgeRules([must, should], () => outcomeOf(1, [], "x"), { sharedMs: 10 });
    expect(judged.map((j) => j.rule.id)).toEqual(["client/a", "client/b"]);
    for (const j of judged) expect(j.ms).toBeGreaterThanOrEqual(5);
  });

  it("orders findings by the given order, keeping the judge's order among equals", () => {
    const [a] = judgeRules(
      [must],
      () => outcomeOf(3, [found("#1", 1), found("#2", 0), found("#3", 0)], "x"),
      {
        order: (x, y) => x.evidence.rank - y.evidence.rank,
      },
    );
    expect(a?.status === "failed" ? a.findings.map((f) => f.where) : []).toEqual(["#2", "#3", "#1"]);
  });
});

describe("a judged rule as a check result", () => {
  const failed = () => ({ message: "broken" });

  it("a failed rule: its opportunities (no request of its own) and what its kind shows of the findings", () => {
    const [a] = judgeRules([must], () => outcomeOf(3, [found("#1")], "x"));
    const check = ruleCheckResult(a as NonNullable<typeof a>, { suite: "client", failed });
    expect(check).toMatchObject({
      id: "client/a",
      suite: "client",
      level: "MUST",
      requirements: ["REQ-A", "REQ-B"],
      status: "failed",
      requests: 0,
      opportunities: 3,
      message: "broken",
    });
  });

  it("a not exercised MUST rule is required when asked; a SHOULD rule never is", () => {
    const judged = judgeRules([must, should], () => outcomeOf(0, [], "run a scan"));
    const checks = judged.map((j) => ruleCheckResult(j, { suite: "client", requireExercised: true, failed }));
    expect(checks.map((c) => [c.status, c.reason, c.exerciseRequired])).toEqual([
      ["not-exercised", "run a scan", true],
      ["not-exercised", "run a scan", undefined],
    ]);
    const relaxed = ruleCheckResult(judged[0] as (typeof judged)[number], { suite: "client", failed });
    expect(relaxed.exerciseRequired).toBeUndefined();
  });

  it("a passed rule carries its note as its message; an inconclusive one its reason", () => {
    const [p, i] = judgeRules([must, should], (rule) =>
      rule === must
        ? outcomeOf(2, [], "x", "2 skipped")
        : { status: "inconclusive", opportunities: 1, reason: "the stream ended" },
    );
    expect(ruleCheckResult(p as NonNullable<typeof p>, { suite: "consumer", failed })).toMatchObject({
      status: "passed",
      requests: 0,
      opportunities: 2,
      message: "2 skipped",
    });
    expect(ruleCheckResult(i as NonNullable<typeof i>, { suite: "consumer", failed })).toMatchObject({
      status: "inconclusive",
      reason: "the stream ended",
    });
  });
});
