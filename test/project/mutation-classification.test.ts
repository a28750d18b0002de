// The classes of surviving mutants (test/mutation/classification.ts) stay true to the reference: every
// line a rule names still exists, and the automatic classes sort the mutants they are meant for.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classify, rules } from "../mutation/classification.ts";

describe("mutation classification", () => {
  it("names only lines the reference still has", () => {
    const missing = rules.filter(
      (rule) => !readFileSync(`src/reference/${rule.file}`, "utf8").includes(rule.text),
    );
    expect(missing.map((rule) => `${rule.file}: ${rule.text}`)).toEqual([]);
  });

  it("sorts fault switches, their names and error texts without a rule", () => {
    const view = (line: string, original: string, mutatorName: string, replacement: string) =>
      classify({ file: "src/reference/x.ts", line, original, mutatorName, replacement, status: "Survived" });
    const faultLine = '  if (ctx.faults.has("quota-off-by-one")) allowed = max + 1;';
    expect(
      view(faultLine, 'ctx.faults.has("quota-off-by-one")', "ConditionalExpression", "false").class,
    ).toBe("equivalent");
    expect(view(faultLine, '"quota-off-by-one"', "StringLiteral", '""').class).toBe("equivalent");
    expect(
      view(
        '    throw badRequest("invalid_limit", "limit: expected an integer");',
        '"invalid_limit"',
        "StringLiteral",
        '""',
      ).class,
    ).toBe("not shown");
    // Anything else needs a rule: unclassified counts against the score.
    expect(view("  const start = offset;", "offset", "Identifier", "0").class).toBe("unclassified");
  });
});
