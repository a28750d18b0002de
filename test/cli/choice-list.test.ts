// --variants of the client and consumer checks: all, all with choices left out, or names; a slip is
// refused with the nearest name.
import { describe, expect, it } from "vitest";
import { choiceList } from "../../src/cli/judging-flags.ts";
import { UsageError } from "../../src/usage-error.ts";

const KNOWN = ["default", "short-pages", "scroll-id-raw-text-only", "delete-task-204"];
const pick = (raw: string) => choiceList(raw, KNOWN, "variant names", "(see --help-variants)");

describe("--variants", () => {
  it.each([
    ["all", KNOWN],
    ["all,-scroll-id-raw-text-only", ["default", "short-pages", "delete-task-204"]],
    ["all, -default, -delete-task-204", ["short-pages", "scroll-id-raw-text-only"]],
    ["short-pages,default", ["short-pages", "default"]],
  ])("%s runs %j", (raw, want) => {
    expect(pick(raw)).toEqual(want);
  });

  it.each([
    ["short-page", /unknown variant name "short-page"; did you mean short-pages\?/],
    ["all,-short-page", /unknown variant name "short-page"; did you mean short-pages\?/],
    ["all,short-pages", /"short-pages" after all \(leave one out with -NAME\)/],
    [",", /unknown variant name ","/],
    ["all,-default,-short-pages,-scroll-id-raw-text-only,-delete-task-204", /leaves no variant names to run/],
  ])("refuses %s, naming the fix", (raw, want) => {
    expect(() => pick(raw)).toThrow(UsageError);
    expect(() => pick(raw)).toThrow(want);
  });
});
