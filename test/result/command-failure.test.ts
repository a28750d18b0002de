// What failed a check of a team's command, as a headline names it: the command itself first, then the MUST
// rules it broke; the command's own check (client/command, consumer/command) is never named as a rule.
import { describe, expect, it } from "vitest";
import { clientFailureCauses } from "../../src/result/client-verdict.ts";

const failed = (id: string, level: "MUST" | "SHOULD" = "MUST") => ({ id, level, status: "failed" as const });
const exited = (exitCode: number) => ({ exitCode, signal: null, timedOut: false });

describe("clientFailureCauses", () => {
  it.each<[string, ReturnType<typeof failed>[], ReturnType<typeof exited>, string[]]>([
    ["nothing failed", [], exited(0), []],
    ["the client's command failed", [failed("client/command")], exited(1), ["your command failed (exit 1)"]],
    [
      "the consumer's command failed",
      [failed("consumer/command")],
      exited(1),
      ["your command failed (exit 1)"],
    ],
    [
      "the command and a rule",
      [failed("consumer/command"), failed("consumer/removal-not-live")],
      exited(2),
      ["your command failed (exit 2)", "MUST rule broken (consumer/removal-not-live)"],
    ],
    ["a SHOULD rule is no cause", [failed("client/token-reuse", "SHOULD")], exited(0), []],
  ])("%s", (_name, checks, command, causes) => {
    expect(clientFailureCauses(checks, command)).toEqual(causes);
  });
});
