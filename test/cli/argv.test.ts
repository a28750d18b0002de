// The one argv mechanism of every command: declared flags parsed with their parsers, and each misuse
// refused with a usage error that names the flag and shows the usage line.
import { describe, expect, it } from "vitest";
import { type CommandSpec, option, parseArgv, repeatable, toggle, usageLine } from "../../src/cli/argv.ts";
import { integer, list, text } from "../../src/cli/flags.ts";
import { UsageError } from "../../src/usage-error.ts";

const spec = {
  name: "demo",
  summary: "a command for the tests",
  positionals: "[FILE...]",
  flags: {
    runs: option("N", integer({ min: 1, example: "25" }), "runs per property", { default: 25 }),
    seed: option("N", integer({ example: "42" }), "seed"),
    check: repeatable("ID", text, "a check id"),
    allow: repeatable("LIST", list, "comma-separated classes"),
    list: toggle("print the plan", { short: "l" }),
  },
} satisfies CommandSpec;

const parse = (argv: string[]) => parseArgv(spec, argv, { cwd: process.cwd() });

describe("parseArgv", () => {
  it.each<[string, { argv: string[]; want: Record<string, unknown>; positionals?: string[] }]>([
    ["defaults when nothing is given", { argv: [], want: { runs: 25, check: [], allow: [], list: false } }],
    ["a value after the flag", { argv: ["--runs", "3"], want: { runs: 3 } }],
    ["a value after =", { argv: ["--runs=3"], want: { runs: 3 } }],
    ["a value starting with one dash", { argv: ["--seed", "-5"], want: { seed: -5 } }],
    [
      "a repeated flag, every value kept",
      { argv: ["--check", "a", "--check=b"], want: { check: ["a", "b"] } },
    ],
    [
      "lists of a repeated flag joined",
      { argv: ["--allow", "a,b", "--allow", "c"], want: { allow: ["a", "b", "c"] } },
    ],
    ["a short switch", { argv: ["-l"], want: { list: true } }],
    ["arguments", { argv: ["x", "--list", "y"], want: { list: true }, positionals: ["x", "y"] }],
    ["arguments after --", { argv: ["--", "--runs"], want: { runs: 25 }, positionals: ["--runs"] }],
  ])("reads %s", (_name, { argv, want, positionals }) => {
    const parsed = parse(argv);
    if (parsed.help) throw new Error("expected values");
    expect(parsed.values).toMatchObject(want);
    expect(parsed.positionals).toEqual(positionals ?? []);
  });

  it("records which flags were given", () => {
    const parsed = parse(["--runs", "25"]);
    expect(parsed.help === false && [...parsed.given]).toEqual(["runs"]);
  });

  it.each([[["--help"]], [["-h"]], [["--runs", "zero", "--help"]]])(
    "%j asks for help, before any value is judged",
    (argv) => {
      expect(parse(argv)).toEqual({ help: true });
    },
  );

  it.each<[string, string[], RegExp]>([
    [
      "an unknown flag, with the nearest one",
      ["--rusn", "3"],
      /unknown option "--rusn"; did you mean --runs\?/,
    ],
    ["an unknown flag far from every one", ["--colour"], /unknown option "--colour"\. See lckit demo --help/],
    ["an unknown short flag", ["-x"], /unknown option "-x"/],
    ["a flag without its value", ["--runs"], /--runs needs a value, e\.g\. --runs 25/],
    ["a flag followed by another flag", ["--runs", "--list"], /--runs needs a value/],
    ["an empty value", ["--runs="], /--runs needs a value/],
    ["a value on a switch", ["--list=yes"], /--list takes no value, got "--list=yes"/],
    [
      "a single-value flag given twice",
      ["--runs", "1", "--runs", "2"],
      /--runs was given twice \("1" and "2"\); give it once/,
    ],
    ["a value its parser refuses", ["--runs", "0"], /--runs expects an integer >= 1, got "0"/],
  ])("refuses %s", (_name, argv, message) => {
    expect(() => parse(argv)).toThrow(UsageError);
    expect(() => parse(argv)).toThrow(message);
  });

  it("shows the usage line with a misused flag", () => {
    expect(() => parse(["--bogus"])).toThrow(/\nUsage: lckit demo \[FILE\.\.\.\] \[options\]$/);
  });

  it("refuses arguments where the command takes none", () => {
    const { positionals: _, ...noArguments } = spec;
    expect(() => parseArgv(noArguments, ["stray"])).toThrow(
      /unexpected argument "stray": lckit demo takes options only/,
    );
  });

  it.each<[string, CommandSpec, string]>([
    [
      "a few flags listed",
      { name: "pact verify", summary: "", flags: { target: option("FILE", text, "") } },
      "lckit pact verify [--target FILE] [--help]",
    ],
    ["many flags as [options]", spec, "lckit demo [FILE...] [options]"],
    [
      "a written synopsis",
      { name: "mock", summary: "", synopsis: "[--dynamic --seed N]", flags: {} },
      "lckit mock [--dynamic --seed N]",
    ],
  ])("writes the usage line: %s", (_name, given, want) => {
    expect(usageLine(given)).toBe(want);
  });
});
