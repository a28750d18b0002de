// One exit policy for every command that judges (lckit run, events check, client check): --fail-on takes
// the same values and means the same on each, and what a command could not judge keeps its own code.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { streamFindings } from "../../src/events/judge/stream-verdict.ts";
import {
  exitCodeFor,
  FAIL_ON_VALUES,
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

  it("an event stream: a message with an error fails, whatever the level of the rule it broke", () => {
    const run = { verdict: "CONFORMANT" as const, checks: [] };
    const stream = { total: 3, invalid: 1, warnings: 0, inconclusive: [] };
    expect(exitCodeFor(streamFindings(stream, run))).toBe(1);
    expect(exitCodeFor(streamFindings({ ...stream, invalid: 0, warnings: 2 }, run))).toBe(0);
    expect(exitCodeFor(streamFindings({ ...stream, invalid: 0, warnings: 2 }, run), ["should"])).toBe(1);
    expect(exitCodeFor(streamFindings({ ...stream, total: 0, invalid: 0 }, run))).toBe(2);
    expect(exitCodeFor(streamFindings({ ...stream, total: 0, invalid: 0 }, run, { allowEmpty: true }))).toBe(
      0,
    );
  });
});

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
