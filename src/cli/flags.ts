// The parsers of flag values every command shares. Each turns the text after a flag into a value or refuses
// it with a UsageError that names the flag, the value given, what is allowed and an example.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { MAX_TIMER_MS } from "../timer-limit.ts";
import { UsageError } from "../usage-error.ts";

/** What a parser may need beyond the text: relative paths are resolved against the caller's directory. */
export interface ParseContext {
  cwd: string;
}

export type Parser<T> = (raw: string, flag: string, ctx: ParseContext) => T;

/** The one sentence shape of a refused value: expected, got, what to do. */
export function refuse(flag: string, expected: string, raw: string, example: string): never {
  throw new UsageError(`${flag} expects ${expected}, got "${raw}"; e.g. ${flag} ${example}`);
}

/** A whole number within [min, max]; no decimals, no exponent, no sign when min >= 0. */
export function integer(bounds: { min?: number; max?: number; example: string }): Parser<number> {
  const min = bounds.min ?? Number.MIN_SAFE_INTEGER;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  const expected =
    bounds.min === undefined && bounds.max === undefined
      ? "an integer"
      : bounds.max === undefined
        ? `an integer >= ${min}`
        : `an integer from ${min} to ${max}`;
  return (raw, flag) => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) refuse(flag, expected, raw, bounds.example);
    return value;
  };
}

/** A TCP port; 0 asks the system for a free one where the command can say which it got. */
export function port(options: { allowZero: boolean; example: string }): Parser<number> {
  const min = options.allowZero ? 0 : 1;
  const expected = `a port number from ${min} to 65535${options.allowZero ? " (0 picks a free port)" : ""}`;
  return (raw, flag) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > 65535) refuse(flag, expected, raw, options.example);
    return value;
  };
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** A time span such as 500ms, 30s, 2m or 1.5h, in milliseconds. `bareSeconds`: a number without a unit
 *  counts as seconds (the broker flags have always read it so). */
export function duration(options: {
  example: string;
  minMs?: number;
  maxMs?: number;
  bareSeconds?: boolean;
}): Parser<number> {
  const minMs = options.minMs ?? 1;
  const maxMs = options.maxMs ?? MAX_TIMER_MS;
  const expected =
    `a number and a unit (ms, s, m, h)${options.bareSeconds ? " or a bare number of seconds" : ""}, ` +
    `from ${minMs} ms to ${maxMs} ms`;
  return (raw, flag) => {
    // Trimmed first (trim() drops exactly what \s matches), so no two \s* meet at the end: the expression
    // /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)?\s*$/ split a run of spaces after the number between its
    // two \s* in every way, quadratic in the run (160,000 characters took 16 s).
    const match = /^(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)?$/.exec(raw.trim());
    const unit = match?.[2] ?? (options.bareSeconds ? "s" : undefined);
    if (!match || unit === undefined) return refuse(flag, expected, raw, options.example);
    const ms = Math.round(Number(match[1]) * (units[unit] ?? 1));
    if (ms < minMs || ms > maxMs) refuse(flag, expected, raw, options.example);
    return ms;
  };
}

/** "a, b or c": how a message lists the allowed words. */
export function orList(words: readonly string[]): string {
  return words.length < 2 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

function match<T extends string>(allowed: readonly T[], raw: string, ignoreCase: boolean): T | undefined {
  return allowed.find((a) => (ignoreCase ? a.toLowerCase() === raw.toLowerCase() : a === raw));
}

/** One of a fixed set of words. `ignoreCase`: compared, and returned, in the case of the allowed value. */
export function oneOf<const T extends string>(
  allowed: readonly T[],
  options: { ignoreCase?: boolean } = {},
): Parser<T> {
  return (raw, flag) => {
    const found = match(allowed, raw, options.ignoreCase ?? false);
    if (found === undefined) refuse(flag, orList(allowed), raw, allowed[0] ?? "");
    return found;
  };
}

/** Comma-separated words of a fixed set (`--allow write,quota`); spaces and empty items are dropped. */
export function wordList<const T extends string>(
  allowed: readonly T[],
  options: { ignoreCase?: boolean } = {},
): Parser<T[]> {
  return (raw, flag) =>
    list(raw).map((part) => {
      const found = match(allowed, part, options.ignoreCase ?? false);
      if (found === undefined)
        throw new UsageError(
          `${flag} expects a comma-separated list of ${allowed.join(", ")}; got "${part}"; e.g. ${flag} ${allowed.slice(0, 2).join(",")}`,
        );
      return found;
    });
}

/** The items of a comma-separated value, trimmed, empty ones dropped. */
export function list(raw: string): string[] {
  return raw
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** Any non-empty text: a name, an id, a URL checked later by whoever opens it. */
export const text: Parser<string> = (raw) => raw;

/** A path that must exist when the command starts; returned as given (the command resolves it where it
 *  reads it, so that messages show what the user typed). */
export function existingPath(options: { example: string; what?: string }): Parser<string> {
  return (raw, flag, ctx) => {
    if (!existsSync(resolve(ctx.cwd, raw)))
      throw new UsageError(
        `${flag} expects ${options.what ?? "an existing file"}, got "${raw}", which does not exist (looked in ${ctx.cwd}); e.g. ${flag} ${options.example}`,
      );
    return raw;
  };
}
