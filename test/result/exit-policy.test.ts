// One exit policy for every command that judges (lckit run, events check, client check): --fail-on takes
// the same values and means the same on each, and what a command could not judge keeps its own code.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { CheckResult, CommandRun, RunResult, Subject } from "../../src/result/model.ts";
import {
  exitCodeFor,
  exitCodeOf,
  FAIL_ON_VALUES,
  type FailOn,
  type Findings,
  failOnOf,
  worstExitCode,
} from "../../src/result/verdict.ts";
import { captureIo } from "../cli/capture-io.ts";

const clean: Findings = {
  verdict: "CONFORMANT",
  mustFailed: false,
  mustUndecided: false,
  mustNotExercised: false,
  otherFailed: false,
};

describe("the exit policy", () => {
  it.each<[string, Partial<Findings>, string[], number]>([
    ["nothing found", {}, [], 0],
    ["a MUST failure, whatever --fail-on", { verdict: "NOT CONFORMANT", mustFailed: true }, ["must"], 1],
    ["an undecided MUST rule by default", { verdict: "INCOMPLETE", mustUndecided: true }, [], 1],
    [
      "an undecided MUST rule with --pass-inconclusive",
      { verdict: "INCOMPLETE", mustUndecided: true },
      ["pass"],
      0,
    ],
    ["INCOMPLETE only when asked", { verdict: "INCOMPLETE" }, [], 0],
    ["INCOMPLETE with incomplete", { verdict: "INCOMPLETE" }, ["incomplete"], 1],
    ["a MUST rule not exercised only when asked", { verdict: "INCOMPLETE", mustNotExercised: true }, [], 0],
    ["a MUST rule not exercised with not-exercised", { mustNotExercised: true }, ["not-exercised"], 1],
    ["a SHOULD finding with should", { otherFailed: true }, ["should"], 1],
    ["nothing judged keeps its code", { nothingJudged: 2, mustFailed: true }, ["should"], 2],
    ["an allowed empty input", { nothingJudged: 0 }, ["incomplete"], 0],
    ["BROKEN", { verdict: "BROKEN", mustFailed: true }, [], 3],
    ["INTERRUPTED", { verdict: "INTERRUPTED", mustFailed: true }, [], 4],
  ])("%s", (_name, given, flags, code) => {
    const failOn = failOnOf(
      FAIL_ON_VALUES.filter((value) => flags.includes(value)),
      flags.includes("pass"),
    );
    expect(exitCodeFor({ ...clean, ...given }, failOn)).toBe(code);
  });

  it("a sweep exits with its worst run", () => {
    expect(worstExitCode([0, 1, 3, 2])).toBe(3);
    expect(worstExitCode([])).toBe(0);
  });
});

type Judged = Pick<RunResult, "verdict" | "checks" | "requestsSent" | "interruption" | "subject">;

const check = (level: CheckResult["level"], status: CheckResult["status"]): CheckResult => ({
  id: `x/${level.toLowerCase()}-${status}`,
  suite: "x",
  title: `${level} x`,
  level,
  requirements: [],
  safety: "read",
  status,
  durationMs: 0,
  requests: 0,
});

const exited: CommandRun = { argv: ["cmd"], exitCode: 0, signal: null, timedOut: false, durationMs: 1 };

function judged(subject: Subject, over: Partial<Judged> = {}): Judged {
  return { verdict: "CONFORMANT", checks: [check("MUST", "passed")], requestsSent: 5, subject, ...over };
}

describe("findingsOf: the exit policy reads a run result, and its subject says what was not judged", () => {
  const events = (messages: number, emptyAllowed = false): Subject => ({
    kind: "events",
    source: "s.ndjson",
    messages,
    ...(emptyAllowed ? { emptyAllowed: true as const } : {}),
  });
  const caller = (command: Partial<CommandRun> = {}): Subject => ({
    kind: "caller",
    command: { ...exited, ...command },
    choice: "default",
  });
  const consumer = (command: Partial<CommandRun> = {}, nothingConsumed = false): Subject => ({
    kind: "consumer",
    command: { ...exited, ...command },
    choice: "snapshot",
    delivery: "file",
    delivered: 10,
    messages: 10,
    ...(nothingConsumed ? { nothingConsumed: true as const } : {}),
  });
  const mustBroken = { verdict: "NOT CONFORMANT" as const, checks: [check("MUST", "failed")] };
  const shouldBroken = { verdict: "CONFORMANT" as const, checks: [check("SHOULD", "failed")] };
  const stopped = {
    verdict: "INTERRUPTED" as const,
    interruption: { cause: "SIGINT" as const, message: "the command was killed by SIGTERM", at: "t" },
  };

  it.each<[string, Judged, FailOn[], number]>([
    ["an event stream that breaks a MUST rule", judged(events(3), mustBroken), [], 1],
    ["an event stream that breaks a SHOULD rule only: a warning", judged(events(3), shouldBroken), [], 0],
    ["... which fails with --fail-on should", judged(events(3), shouldBroken), ["should"], 1],
    [
      "an undecided SHOULD event rule passes",
      judged(events(3), { checks: [check("SHOULD", "inconclusive")] }),
      [],
      0,
    ],
    ["no message read", judged(events(0)), ["should"], 2],
    ["no message read, allowed", judged(events(0, true)), [], 0],
    ["a caller that could not be started", judged(caller({ startError: "ENOENT" }), mustBroken), [], 2],
    ["a caller that hung", judged(caller({ timedOut: true, exitCode: null })), [], 3],
    ["a caller that was killed", judged(caller({ signal: "SIGKILL", exitCode: null })), [], 3],
    ["a caller that sent no request", judged(caller(), { requestsSent: 0 }), [], 2],
    ["a caller whose command failed", judged(caller({ exitCode: 1 }), mustBroken), [], 1],
    ["a caller stopped by Ctrl-C", judged(caller({ signal: "SIGTERM", exitCode: null }), stopped), [], 4],
    [
      "a consumer that consumed nothing (its own command and view checks failed)",
      judged(consumer({}, true), {
        verdict: "NOT CONFORMANT",
        checks: [
          { ...check("MUST", "failed"), id: "consumer/command" },
          { ...check("MUST", "failed"), id: "consumer/view" },
        ],
      }),
      [],
      2,
    ],
    [
      "a consumer that wrote no view, and a rule judged how it ended (a crash on an unlisted type)",
      judged(consumer({ exitCode: 1 }, true), {
        verdict: "NOT CONFORMANT",
        checks: [{ ...check("MUST", "failed"), id: "consumer/command" }, check("SHOULD", "failed")],
      }),
      [],
      1,
    ],
    ["a consumer that hung", judged(consumer({ timedOut: true, exitCode: null })), [], 3],
    ["a consumer whose command failed", judged(consumer({ exitCode: 1 }), mustBroken), [], 1],
    ["a consumer stopped by Ctrl-C", judged(consumer({ signal: "SIGTERM", exitCode: null }), stopped), [], 4],
    ["a provider interrupted", judged({ kind: "provider", target } as Subject, stopped), [], 4],
  ])("%s", (_name, result, failOn, code) => {
    expect(exitCodeOf(result, failOnOf(failOn))).toBe(code);
  });
});

const target = {
  name: "t",
  baseUrl: "http://t",
  rdmUrl: "http://t",
  tenant: "acme",
  loopback: false,
  roles: [],
};

describe("--fail-on on every command that judges", () => {
  const help = async (argv: string[]) => {
    const io = captureIo();
    await main([...argv, "--help"], io);
    return io.stdout();
  };
  const failOnText = (text: string) => {
    const start = text.indexOf("--fail-on");
    return text.slice(start, text.indexOf("\n  --", start + 1));
  };

  it("is the same flag, with the same values, on run, events check and client check", async () => {
    const texts = await Promise.all([["run"], ["events", "check"], ["client", "check"]].map(help));
    const described = texts.map(failOnText);
    for (const value of FAIL_ON_VALUES) expect(described[0]).toContain(value);
    expect(described[1]).toBe(described[0]);
    expect(described[2]).toBe(described[0]);
  });

  it("events check: a warning fails the job only with --fail-on should", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-fail-on-"));
    const file = join(dir, "unknown-type.ndjson");
    writeFileSync(
      file,
      `${JSON.stringify({ type: "SOMETHING_ELSE_HAPPENED", object: { uri: "entities/1" } })}\n`,
    );
    const check = async (...flags: string[]) => main(["events", "check", file, ...flags], captureIo());
    expect(await check()).toBe(0);
    expect(await check("--fail-on", "should")).toBe(1);
    expect(await check("--fail-on", "never")).toBe(2);
  });
});
