// An HTTP check's failure as the kit's one Finding: whose it is from the check's header, where it is (the
// exchange it is about), its detail and counterexample as evidence; and its verdict turned into the check
// result by the same engine as every other kind of rule.
import { describe, expect, it } from "vitest";
import { CheckFailure, type Exchange } from "../../src/check/index.ts";
import { ruleCheckResult, verdictOf } from "../../src/rules/judge.ts";
import { foundOf, foundOfFailure, httpFailure } from "../../src/runner/check-finding.ts";
import { defineCheck } from "../../suites/support/define.ts";

const exchange = (id: number | undefined, path: string): Exchange => ({
  ...(id === undefined ? {} : { id }),
  request: { method: "GET", url: `http://rdm.test${path}`, headers: {} },
  response: { status: 200, headers: {}, body: "{}" },
  durationMs: 1,
});
const sent = [exchange(3, "/a?x=1"), exchange(4, "/b"), exchange(5, "/c")];
const counterexample = { seed: 7, path: "0:1", value: "[]", replay: "lckit run --seed 7 --path 0:1" };

const check = defineCheck({
  id: "sample/finding",
  title: "MUST answer a",
  requirements: ["REQ-A", "REQ-B"],
  safety: "write",
  needs: { roles: [] },
  run: async () => {},
});

describe("the finding of an HTTP check", () => {
  it("is about the exchange its detail names as its request, the last such", () => {
    const found = foundOfFailure(
      new CheckFailure("a was b", { request: { method: "GET", path: "/a?x=1" }, expected: "a", actual: "b" }),
      sent,
    );
    expect(found).toEqual({
      where: "exchange #3",
      expected: "a",
      actual: "b",
      message: "a was b",
      evidence: {
        exchange: 3,
        details: { request: { method: "GET", path: "/a?x=1" }, expected: "a", actual: "b" },
      },
    });
  });

  it("is about the check's last exchange when its detail names none, and says when it sent none", () => {
    expect(foundOfFailure(new CheckFailure("wrong"), sent)).toEqual({
      where: "exchange #5",
      message: "wrong",
      evidence: { exchange: 5 },
    });
    expect(foundOfFailure(new CheckFailure("wrong"), []).where).toBe("the check, before any exchange");
    expect(foundOf("wrong", undefined, [exchange(undefined, "/d?y=2")]).where).toBe("GET /d?y=2");
  });

  it("keeps the check's counterexample, else the one read from fast-check's text", () => {
    const given = { ...counterexample, seed: 1 };
    expect(
      foundOfFailure(new CheckFailure("p", { counterexample: given }), sent, counterexample).evidence,
    ).toEqual({
      exchange: 5,
      counterexample: given,
    });
    expect(foundOfFailure(new CheckFailure("p"), sent, counterexample).evidence.counterexample).toBe(
      counterexample,
    );
  });
});

describe("an HTTP check's verdict", () => {
  it("makes the finding the check's (its id and first requirement) and its result what reports read", () => {
    const found = foundOfFailure(new CheckFailure("a was b", { expected: "a", counterexample }), sent);
    const verdict = verdictOf(check, { status: "failed", opportunities: 3, found: [found] });
    expect(verdict.status === "failed" ? verdict.findings[0] : undefined).toMatchObject({
      rule: "sample/finding",
      requirement: "REQ-A",
      where: "exchange #5",
    });
    expect(
      ruleCheckResult(
        { ...verdict, rule: check, ms: 12.4 },
        { suite: check.suite, failed: httpFailure, opportunitiesAreRequests: true },
      ),
    ).toEqual({
      id: "sample/finding",
      suite: "sample",
      title: "MUST answer a",
      level: "MUST",
      requirements: ["REQ-A", "REQ-B"],
      safety: "write",
      durationMs: 12,
      requests: 3,
      status: "failed",
      message: "a was b",
      details: { expected: "a" },
      counterexample,
    });
  });

  it("keeps an undecided check's readings and detail as data", () => {
    const undecided = { saw: "s", readings: ["r1", "r2"] as const, decideBy: "d" };
    const result = ruleCheckResult(
      {
        status: "inconclusive",
        opportunities: 2,
        reason: "could not decide",
        undecided,
        details: { record: "k" },
        rule: check,
        ms: 1,
      },
      { suite: check.suite, failed: httpFailure, opportunitiesAreRequests: true },
    );
    expect(result).toMatchObject({
      status: "inconclusive",
      requests: 2,
      reason: "could not decide",
      undecided: { saw: "s", readings: ["r1", "r2"], decideBy: "d" },
      details: { record: "k" },
    });
  });
});
