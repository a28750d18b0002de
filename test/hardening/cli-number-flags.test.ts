// Durations and probabilities given as flags are read by expressions with one way to split a run of
// spaces or digits. They must accept and read what the expressions they replaced did (kept here as the
// oracles) and stay linear where those were quadratic: a long run of spaces after a duration's number, a
// long run of digits in a probability.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { probability } from "../../src/cli/commands/events-publish.ts";
import { duration } from "../../src/cli/flags.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_123);
const ctx = { cwd: "/" };

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** The duration parser as it was: the milliseconds, or "refused". */
function oldDuration(raw: string, bareSeconds: boolean, maxMs: number): number | "refused" {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)?\s*$/.exec(raw);
  const unit = match?.[2] ?? (bareSeconds ? "s" : undefined);
  if (!match || unit === undefined) return "refused";
  const ms = Math.round(Number(match[1]) * (units[unit] ?? 1));
  return ms < 1 || ms > maxMs ? "refused" : ms;
}

function outcome<T>(read: () => T): T | "refused" {
  try {
    return read();
  } catch {
    return "refused";
  }
}

function oldProbability(raw: string): number | "refused" {
  const value = Number(raw);
  return !/^\d*\.?\d+$/.test(raw) || !(value >= 0 && value < 1) ? "refused" : value;
}

const durationPieces = fc.constantFrom(
  "1",
  "0",
  "25",
  ".",
  "1.5",
  " ",
  "\t",
  "\n",
  "\u00a0",
  "\u2028",
  "\ufeff",
  "ms",
  "s",
  "m",
  "min",
  "h",
  "x",
  "-",
);
const durations = fc.array(durationPieces, { maxLength: 12 }).map((parts) => parts.join(""));
const probabilities = fc
  .array(fc.constantFrom("0", "1", "9", ".", " ", "e", "-", "+", "00", "05"), { maxLength: 10 })
  .map((parts) => parts.join(""));

describe("a duration flag", () => {
  it("is read as the regular expression it replaces read it, with and without bare seconds", () => {
    const maxMs = 2 ** 31 - 1;
    fc.assert(
      fc.property(durations, fc.boolean(), (raw, bareSeconds) => {
        const parse = duration({ example: "30s", bareSeconds, maxMs });
        expect(outcome(() => parse(raw, "--deadline", ctx))).toBe(oldDuration(raw, bareSeconds, maxMs));
      }),
      { seed, numRuns: 3000 },
    );
  });

  it("stays linear in a long run of spaces after its number (the old expression took minutes)", () => {
    const parse = duration({ example: "30s" });
    const run = " ".repeat(1_000_000);
    expect(() => parse(`1${run}x`, "--deadline", ctx)).toThrow(/--deadline expects/);
    expect(parse(`${run}2${run}s${run}`, "--deadline", ctx)).toBe(2000);
  });
});

describe("a probability flag", () => {
  it("is read as the regular expression it replaces read it", () => {
    fc.assert(
      fc.property(probabilities, (raw) => {
        expect(outcome(() => probability(raw, "--duplicates"))).toBe(oldProbability(raw));
      }),
      { seed, numRuns: 3000 },
    );
  });

  it("stays linear in a long run of digits (the old expression took minutes)", () => {
    const digits = "1".repeat(1_000_000);
    expect(() => probability(`${digits}x`, "--duplicates")).toThrow(/probability/);
    expect(probability(`0.${digits}`, "--duplicates")).toBeCloseTo(0.111, 3);
  });
});
