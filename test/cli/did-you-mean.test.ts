// "Did you mean": the nearest known name to a slip, and nothing for a word that is no slip.
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { closest, editDistance } from "../../src/did-you-mean.ts";
import { captureIo } from "./capture-io.ts";

describe("edit distance", () => {
  it.each<[string, string, number]>([
    ["seed", "seed", 0],
    ["sed", "seed", 1],
    ["sede", "seed", 1],
    ["esed", "seed", 1],
    ["", "run", 3],
    ["kitten", "sitting", 3],
  ])("%s to %s is %i", (a, b, want) => {
    expect(editDistance(a, b)).toBe(want);
    expect(editDistance(b, a)).toBe(want);
  });
});

describe("closest", () => {
  const flags = ["--seed", "--runs", "--report-dir", "--fail-on", "--format"];
  it.each<[string, string | undefined]>([
    ["--sed", "--seed"],
    ["--Seed", "--seed"],
    ["--rusn", "--runs"],
    ["--fail", "--fail-on"],
    ["--report-directory", "--report-dir"],
    ["--colour", undefined],
    ["--x", undefined],
  ])("%s suggests %s", (given, want) => {
    expect(closest(given, flags)).toBe(want);
  });
});

describe("lckit suggests the name meant", () => {
  it.each<[string, string[], RegExp]>([
    ["a command", ["rnu"], /^lckit: unknown command "rnu"; did you mean run\? Expected one of: run, serve/],
    [
      "a subcommand",
      ["events", "chek"],
      /^lckit events: unknown subcommand "chek"; did you mean check\? Expected check, publish or consumer/,
    ],
    ["a flag", ["run", "--sed", "3"], /^lckit run: unknown option "--sed"; did you mean --seed\?/],
    [
      "a flag of a subcommand",
      ["report", "diff", "--fromat", "json"],
      /^lckit report: unknown option "--fromat"; did you mean --format\? See lckit report diff --help/,
    ],
  ])("for %s, exits 2 and shows the usage line", async (_name, argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(message);
    expect(io.stderr()).toMatch(/\nUsage: lckit /);
  });

  it("names no command when none is close", async () => {
    const io = captureIo();
    expect(await main(["certify"], io)).toBe(2);
    expect(io.stderr()).not.toMatch(/did you mean/);
  });
});
