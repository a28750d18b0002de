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
    // Turned on, a fault is a broken rule: never equivalent (issue 43's audit), a gap where no check sees it.
    expect(view(faultLine, 'ctx.faults.has("quota-off-by-one")', "ConditionalExpression", "true").class).toBe(
      "gap",
    );
    const negated = '  if (!ctx.faults.has("scan-ignores-order")) sortRecords(records);';
    expect(
      view(negated, '!ctx.faults.has("scan-ignores-order")', "ConditionalExpression", "true").class,
    ).toBe("equivalent");
    expect(
      view(negated, '!ctx.faults.has("scan-ignores-order")', "ConditionalExpression", "false").class,
    ).toBe("gap");
    // A variant turned on is a legal choice: the document leaves it open.
    const variantLine = '  if (ctx.variants.has("end-on-last-page")) return undefined;';
    expect(
      view(variantLine, 'ctx.variants.has("end-on-last-page")', "ConditionalExpression", "true").class,
    ).toBe("not shown");
    expect(view(faultLine, '"quota-off-by-one"', "StringLiteral", '""').class).toBe("equivalent");
    expect(
      view(
        '    throw badRequest("invalid_limit", "limit: expected an integer");',
        '"invalid_limit"',
        "StringLiteral",
        '""',
      ).class,
    ).toBe("not shown");
    // A condition beside a fault switch: with the switch off, a mutant that keeps the value is equivalent;
    // one that turns the fault on or drops the rest is not, whatever a rule of the whole line says.
    const joined = '  if (sortField !== undefined && ctx.faults.has("scan-keyset-loses-ties")) x();';
    const condition = 'sortField !== undefined && ctx.faults.has("scan-keyset-loses-ties")';
    expect(view(joined, condition, "ConditionalExpression", "false").class).toBe("equivalent");
    expect(view(joined, condition, "ConditionalExpression", "true").class).toBe("gap");
    expect(
      view(
        joined,
        condition,
        "LogicalOperator",
        'sortField !== undefined || ctx.faults.has("scan-keyset-loses-ties")',
      ).class,
    ).toBe("gap");
    const either = '  if (ctx.faults.has("put-merges") || ctx.variants.has("put-customer-merges")) m();';
    const both = 'ctx.faults.has("put-merges") || ctx.variants.has("put-customer-merges")';
    expect(
      view(
        either,
        both,
        "LogicalOperator",
        'ctx.faults.has("put-merges") && ctx.variants.has("put-customer-merges")',
      ).class,
    ).toBe("equivalent");
    expect(view(either, both, "ConditionalExpression", "true").class).toBe("gap");
    // A condition spanning lines is judged whole (fullOriginal), not by its first line.
    const multi = '    ctx.faults.has("expired-token-accepted") ||';
    const whole = 'ctx.faults.has("expired-token-accepted") ||\n    (ctx.faults.has("b") && /x/.test(p))';
    const first = 'ctx.faults.has("expired-token-accepted") ||';
    const spanning = (replacement: string) =>
      classify({
        file: "src/reference/x.ts",
        line: multi,
        original: first,
        fullOriginal: whole,
        mutatorName: "LogicalOperator",
        replacement,
        status: "Survived",
      }).class;
    expect(spanning('ctx.faults.has("expired-token-accepted") && ctx.faults.has("b") && /x/.test(p)')).toBe(
      "equivalent",
    );
    expect(spanning('ctx.faults.has("expired-token-accepted") || ctx.faults.has("b") || /x/.test(p)')).toBe(
      "gap",
    );
    // Anything else needs a rule: unclassified counts against the score.
    expect(view("  const start = offset;", "offset", "Identifier", "0").class).toBe("unclassified");
  });
});
