// `lckit mock` flags: defaults, values, and usage errors that name the flag.
import { describe, expect, it } from "vitest";
import { parseMockArgs } from "../../src/cli/commands/mock.ts";
import { UsageError } from "../../src/cli/io.ts";
import { main } from "../../src/cli/main.ts";
import { captureIo } from "../cli/capture-io.ts";

describe("lckit mock flags", () => {
  it.each([
    [
      "no flags",
      { argv: [], want: { help: false, verbose: false, platformPort: 4010, lookupDataPort: 4011 } },
    ],
    [
      "ports",
      {
        argv: ["--platform-port", "5000", "--lookup-data-port=5001"],
        want: { help: false, verbose: false, platformPort: 5000, lookupDataPort: 5001 },
      },
    ],
    [
      "dynamic with a seed",
      {
        argv: ["--dynamic", "--seed", "42"],
        want: { help: false, verbose: false, platformPort: 4010, lookupDataPort: 4011, seed: "42" },
      },
    ],
    [
      "help",
      { argv: ["--help"], want: { help: true, verbose: false, platformPort: 4010, lookupDataPort: 4011 } },
    ],
    [
      "verbose",
      { argv: ["--verbose"], want: { help: false, verbose: true, platformPort: 4010, lookupDataPort: 4011 } },
    ],
  ])("%s", (_name, { argv, want }) => {
    expect(parseMockArgs(argv)).toEqual(want);
  });

  it.each([
    ["an unknown flag", { argv: ["--port", "1"], names: "--port" }],
    ["a port that is not a number", { argv: ["--platform-port", "abc"], names: "--platform-port" }],
    ["a port out of range", { argv: ["--lookup-data-port", "70000"], names: "--lookup-data-port" }],
    ["a missing port value", { argv: ["--platform-port"], names: "--platform-port" }],
    ["--dynamic without a seed", { argv: ["--dynamic"], names: "--seed" }],
    ["a seed without --dynamic", { argv: ["--seed", "1"], names: "--dynamic" }],
    ["a seed that is not an integer", { argv: ["--dynamic", "--seed", "x"], names: "--seed" }],
    [
      "the same port twice",
      { argv: ["--platform-port", "5000", "--lookup-data-port", "5000"], names: "--lookup-data-port" },
    ],
  ])("refuses %s with a UsageError naming %s", (_name, { argv, names }) => {
    expect(() => parseMockArgs(argv)).toThrow(UsageError);
    expect(() => parseMockArgs(argv)).toThrow(names);
  });

  it("exits 2 with the message on stderr for a bad flag, 0 with usage for --help", async () => {
    const bad = captureIo();
    expect(await main(["mock", "--bogus"], bad)).toBe(2);
    expect(bad.stderr()).toMatch(/lckit mock: unknown option "--bogus"/);
    const help = captureIo();
    expect(await main(["mock", "--help"], help)).toBe(0);
    expect(help.stdout()).toMatch(/Usage: lckit mock .*--dynamic --seed N/);
  });
});
