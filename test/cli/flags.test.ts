// The shared flag parsers: each accepts what it documents and refuses the rest with a message that names
// the flag, the value given, what is allowed and an example.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  duration,
  existingPath,
  integer,
  list,
  oneOf,
  type Parser,
  port,
  wordList,
} from "../../src/cli/flags.ts";
import { MAX_TIMER_MS } from "../../src/timer-limit.ts";
import { UsageError } from "../../src/usage-error.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-flags-"));
writeFileSync(join(dir, "target.yaml"), "name: x\n");
const ctx = { cwd: dir };

const parse = <T>(parser: Parser<T>, raw: string) => parser(raw, "--flag", ctx);

describe("shared flag parsers accept", () => {
  it.each<[string, { parser: Parser<unknown>; raw: string; want: unknown }]>([
    ["an integer in range", { parser: integer({ min: 1, max: 10, example: "5" }), raw: "10", want: 10 }],
    ["a negative integer", { parser: integer({ min: -5, example: "1" }), raw: "-5", want: -5 }],
    ["an unbounded integer", { parser: integer({ example: "1" }), raw: "-123456789", want: -123456789 }],
    ["port 0 where allowed", { parser: port({ allowZero: true, example: "8180" }), raw: "0", want: 0 }],
    ["the highest port", { parser: port({ allowZero: false, example: "4010" }), raw: "65535", want: 65535 }],
    ["milliseconds", { parser: duration({ example: "30s" }), raw: "500ms", want: 500 }],
    ["seconds", { parser: duration({ example: "30s" }), raw: "30s", want: 30_000 }],
    ["minutes", { parser: duration({ example: "30s" }), raw: "2m", want: 120_000 }],
    ["minutes spelt min", { parser: duration({ example: "30s" }), raw: "2min", want: 120_000 }],
    ["fractional hours", { parser: duration({ example: "30s" }), raw: "1.5h", want: 5_400_000 }],
    ["bare seconds", { parser: duration({ example: "30s", bareSeconds: true }), raw: "2", want: 2000 }],
    [
      "the longest timer",
      { parser: duration({ example: "30s" }), raw: `${MAX_TIMER_MS}ms`, want: MAX_TIMER_MS },
    ],
    ["a comma list", { parser: list, raw: " a, b,,c ", want: ["a", "b", "c"] }],
    ["an allowed word", { parser: oneOf(["text", "json"]), raw: "json", want: "json" }],
    [
      "a word in another case",
      { parser: oneOf(["MUST", "MAY"], { ignoreCase: true }), raw: "must", want: "MUST" },
    ],
    [
      "a list of allowed words",
      {
        parser: wordList(["must", "should"], { ignoreCase: true }),
        raw: "SHOULD, must",
        want: ["should", "must"],
      },
    ],
    [
      "a path that exists",
      { parser: existingPath({ example: "t.yaml" }), raw: "target.yaml", want: "target.yaml" },
    ],
  ])("%s", (_name, { parser, raw, want }) => {
    expect(parse(parser, raw)).toEqual(want);
  });
});

describe("shared flag parsers refuse, naming flag, value, what is allowed and an example", () => {
  it.each<[string, { parser: Parser<unknown>; raw: string; message: RegExp }]>([
    [
      "an integer above its bound",
      {
        parser: integer({ min: 1, max: 10, example: "5" }),
        raw: "11",
        message: /^--flag expects an integer from 1 to 10, got "11"; e\.g\. --flag 5$/,
      },
    ],
    [
      "a decimal for an integer",
      {
        parser: integer({ min: 0, example: "5" }),
        raw: "1.5",
        message: /expects an integer >= 0, got "1\.5"/,
      },
    ],
    [
      "an exponent for an integer",
      { parser: integer({ example: "5" }), raw: "1e3", message: /expects an integer, got "1e3"/ },
    ],
    ["an empty integer", { parser: integer({ example: "5" }), raw: " ", message: /got " "/ }],
    [
      "port 0 where it is not allowed",
      {
        parser: port({ allowZero: false, example: "4010" }),
        raw: "0",
        message: /expects a port number from 1 to 65535, got "0"; e\.g\. --flag 4010/,
      },
    ],
    [
      "a port past 65535",
      { parser: port({ allowZero: true, example: "8180" }), raw: "65536", message: /0 picks a free port/ },
    ],
    [
      "a duration without a unit",
      {
        parser: duration({ example: "30m" }),
        raw: "30",
        message:
          /expects a number and a unit \(ms, s, m, h\), from 1 ms to \d+ ms, got "30"; e\.g\. --flag 30m/,
      },
    ],
    [
      "a word for a duration",
      {
        parser: duration({ example: "30s", bareSeconds: true }),
        raw: "soon",
        message: /bare number of seconds/,
      },
    ],
    ["a duration of zero", { parser: duration({ example: "30s" }), raw: "0s", message: /from 1 ms/ }],
    [
      "a duration past the timer limit",
      { parser: duration({ example: "30s" }), raw: "25d", message: /got "25d"/ },
    ],
    [
      "a duration longer than a timer can wait",
      { parser: duration({ example: "30s" }), raw: `${MAX_TIMER_MS + 1}ms`, message: /to 2147483647 ms/ },
    ],
    [
      "a word not allowed",
      {
        parser: oneOf(["text", "json"]),
        raw: "xml",
        message: /^--flag expects text or json, got "xml"; e\.g\. --flag text$/,
      },
    ],
    ["a word in another case", { parser: oneOf(["text", "json"]), raw: "JSON", message: /got "JSON"/ }],
    [
      "one word of a list not allowed",
      {
        parser: wordList(["write", "quota"]),
        raw: "write,everything",
        message:
          /expects a comma-separated list of write, quota; got "everything"; e\.g\. --flag write,quota/,
      },
    ],
    [
      "a path that does not exist",
      {
        parser: existingPath({ example: "target.yaml" }),
        raw: "nope.yaml",
        message:
          /expects an existing file, got "nope\.yaml", which does not exist .*e\.g\. --flag target\.yaml/,
      },
    ],
  ])("%s", (_name, { parser, raw, message }) => {
    expect(() => parse(parser, raw)).toThrow(UsageError);
    expect(() => parse(parser, raw)).toThrow(message);
  });
});
