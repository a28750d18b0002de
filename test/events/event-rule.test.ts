// An event rule's findings carry the requirement of its header and the position of the message judged:
// the judge names neither, and each message's findings go to that message's list.
import { describe, expect, it } from "vitest";
import type { RequirementProblem } from "../../src/events/check/event-problem.ts";
import type { MessageUnderCheck } from "../../src/events/check/read-message.ts";
import { eventRule } from "../../src/events/rules/event-rule.ts";

const rule = eventRule({
  requirements: ["EVENT-HEADERS-01", "EVENT-HEADERS-02"],
  judge(_message, found) {
    found.add({ instancePath: "", keyword: "test", message: "found" });
    return undefined;
  },
});
const message = (position: string) => ({ position }) as unknown as MessageUnderCheck;

describe("an event rule's judge", () => {
  it("adds findings under the rule's first requirement, from its header", () => {
    const problems: RequirementProblem[] = [];
    if (typeof rule.judge !== "function") throw new Error("the rule has a judge");
    rule.judge(message("line 1"), problems);
    expect(problems).toEqual([
      {
        position: "line 1",
        instancePath: "",
        requirement: "EVENT-HEADERS-01",
        keyword: "test",
        message: "found",
      },
    ]);
  });

  it("adds each message's findings to that message's list", () => {
    const first: RequirementProblem[] = [];
    const second: RequirementProblem[] = [];
    if (typeof rule.judge !== "function") throw new Error("the rule has a judge");
    rule.judge(message("line 1"), first);
    rule.judge(message("line 2"), second);
    expect(first.map((p) => p.position)).toEqual(["line 1"]);
    expect(second.map((p) => p.position)).toEqual(["line 2"]);
  });
});
