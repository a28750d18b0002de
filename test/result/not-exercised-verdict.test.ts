// The INCOMPLETE verdict of a MUST rule not exercised names what gave the rule nothing to judge, by the
// run's subject: a client check's traffic, a consumer check's stream and view, never a client's traffic
// for a consumer.
import { describe, expect, it } from "vitest";
import type { CheckResult, SubjectKind } from "../../src/result/model.ts";
import { decideVerdict } from "../../src/result/verdict.ts";

const check = (id: string, status: CheckResult["status"]): CheckResult => ({
  id,
  suite: id.split("/")[0] ?? "s",
  title: id,
  level: "MUST",
  requirements: [],
  safety: "read",
  status,
  durationMs: 1,
  requests: 0,
});

const checks = [check("x/command", "passed"), check("x/rule", "not-exercised")];

describe("a MUST rule not exercised is said in the subject's terms", () => {
  it.each<[SubjectKind | undefined, RegExp]>([
    ["caller", /: your client's traffic gave it nothing to judge; it says what would exercise it$/],
    ["consumer", /: the stream and your consumer's view of it gave it nothing to judge;/],
    ["traffic", /: the recorded traffic gave it nothing to judge;/],
    [undefined, /: the run gave it nothing to judge;/],
  ])("%s", (subject, words) => {
    const { verdict, reason } = decideVerdict(checks, undefined, 0, subject);
    expect(verdict).toBe("INCOMPLETE");
    expect(reason).toMatch(words);
  });

  it("a consumer's verdict never speaks of a client", () => {
    const two = [...checks, check("x/other", "not-exercised")];
    const { reason } = decideVerdict(two, undefined, 0, "consumer");
    expect(reason).toContain("gave them nothing to judge; each says what would exercise it");
    expect(reason).not.toContain("client");
  });
});
