// Rule ids are stable keys of reports and allow-lists: one snapshot of the ids of every kind of rule (HTTP
// checks, event rules, caller rules: scripts/rules.ts) makes every change of the set visible.
import { describe, expect, it } from "vitest";
import { ruleKinds } from "../../scripts/rules.ts";
import { loadCatalogue } from "../../src/requirements/catalogue.ts";
import { allChecks } from "../../suites/index.ts";

const ids = allChecks.map((check) => check.id);
const catalogue = new Set(
  loadCatalogue()
    .requirements.filter((r) => !r.retired)
    .map((r) => r.id),
);

describe("check ids and metadata", () => {
  it("keeps the set of rule ids of every kind", () => {
    expect(
      Object.fromEntries(ruleKinds().map(({ kind, rules }) => [kind, rules.map((r) => r.id)])),
    ).toMatchSnapshot();
  });

  it("has unique ids of the form <suite>/<slug>", () => {
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const check of allChecks) expect(check.id).toMatch(new RegExp(`^${check.suite}/[a-zA-Z0-9-]+$`));
  });

  it.each(allChecks.map((check) => [check.id, check] as const))(
    "%s: title starts with its level",
    (_, check) => {
      expect(check.title.startsWith(`${check.level} `)).toBe(true);
    },
  );

  it.each(allChecks.map((check) => [check.id, check] as const))(
    "%s: names existing requirements",
    (_, check) => {
      expect(check.requirements.length).toBeGreaterThan(0);
      expect(check.requirements.filter((id) => !catalogue.has(id))).toEqual([]);
    },
  );

  it("runs the delete suite after every suite that reads lookups, and the schema suite last", () => {
    const suites = allChecks.map((check) => check.suite);
    const lastReader = Math.max(
      ...["lookup-scan", "autopilot-scan", "blocked-values", "auth"].map((s) => suites.lastIndexOf(s)),
    );
    expect(suites.indexOf("delete-task")).toBeGreaterThan(lastReader);
    expect(suites.indexOf("schema")).toBe(
      suites.length - allChecks.filter((c) => c.suite === "schema").length,
    );
  });
});
