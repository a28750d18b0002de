import { describe, expect, it } from "vitest";
import { commandTraces } from "../../src/generated/traceability.ts";
import { computeCoverage, tracedElsewhere } from "../../src/result/coverage.ts";

const catalogue = [
  { id: "SCAN-04", kind: "scan", level: "MUST", text: "every record once" },
  { id: "TASK-02", kind: "task", level: "MUST", text: "delete all" },
  { id: "EVENT-HEADERS-01", kind: "event", level: "MUST", text: "headers" },
  { id: "EVENT-FILTER-01", kind: "filter", level: "MUST", text: "filtering" },
  { id: "ERRORS-02", kind: "error", level: "SHOULD", text: "no 5xx" },
  { id: "EVENT-TYPES-99", kind: "event", level: "MUST", text: "no rule traces it" },
];
const scope = {
  elsewhere: [{ command: "lckit events check", requirements: ["EVENT-HEADERS-01", "EVENT-FILTER-01"] }],
};

describe("requirement coverage", () => {
  it.each([
    [
      "a passed check proves",
      [{ id: "a", requirements: ["SCAN-04"], result: { status: "passed" as const } }],
      "SCAN-04",
      "proven",
    ],
    [
      "a failed check fails",
      [{ id: "a", requirements: ["SCAN-04"], result: { status: "failed" as const } }],
      "SCAN-04",
      "failing",
    ],
    [
      "a broken check breaks",
      [{ id: "a", requirements: ["TASK-02"], result: { status: "broken" as const } }],
      "TASK-02",
      "broken",
    ],
    [
      "a skipped check leaves it not run",
      [{ id: "a", requirements: ["TASK-02"], result: { status: "skipped" as const } }],
      "TASK-02",
      "not-run",
    ],
    ["an unselected check leaves it not run", [{ id: "a", requirements: ["TASK-02"] }], "TASK-02", "not-run"],
    ["no check leaves it untested", [], "ERRORS-02", "untested"],
    ["an event requirement is checked elsewhere", [], "EVENT-HEADERS-01", "elsewhere"],
    ["a filtering requirement is checked elsewhere", [], "EVENT-FILTER-01", "elsewhere"],
    [
      "an event requirement no rule of the other command traces is untested",
      [],
      "EVENT-TYPES-99",
      "untested",
    ],
    [
      "a check of this run wins over elsewhere",
      [{ id: "a", requirements: ["EVENT-HEADERS-01"], result: { status: "passed" as const } }],
      "EVENT-HEADERS-01",
      "proven",
    ],
  ])("%s", (_name, checks, id, want) => {
    const coverage = computeCoverage(catalogue, checks, "requirements/catalogue.yaml", scope);
    expect(coverage.requirements.find((r) => r.id === id)?.status).toBe(want);
    const sum = Object.entries(coverage.figures)
      .filter(([key]) => key !== "total")
      .reduce((total, [, count]) => total + count, 0);
    expect(sum).toBe(coverage.figures.total);
  });

  it("names the command that checks requirements of another kind", () => {
    const coverage = computeCoverage(catalogue, [], "requirements/catalogue.yaml", scope);
    expect(coverage.requirements.find((r) => r.id === "EVENT-HEADERS-01")?.checkedBy).toBe(
      "lckit events check",
    );
    expect(coverage.figures.elsewhere).toBe(2);
    expect(coverage.figures.untested).toBe(4);
  });

  it("without a scope every requirement without a check is untested", () => {
    expect(computeCoverage(catalogue, [], null).figures.untested).toBe(6);
  });

  it("the kit's scopes name only what the other command's checks or rules trace", () => {
    const http = tracedElsewhere("lckit run");
    const events = tracedElsewhere("lckit events check");
    expect(http.elsewhere.map((c) => c.command)).toEqual([
      "lckit events check",
      "lckit client check",
      "lckit events consumer check",
    ]);
    expect(events.elsewhere.map((c) => c.command)).toEqual([
      "lckit run",
      "lckit client check",
      "lckit events consumer check",
    ]);
    const traced = (command: string) => commandTraces.find((c) => c.command === command)?.requirements ?? [];
    // An HTTP requirement no HTTP check traces is not "checked by lckit run" in an events report.
    const real = [
      { id: "BLOCKED-06", kind: "rule" },
      { id: "SCAN-03", kind: "scan" },
    ];
    const coverage = computeCoverage(real, [], null, events);
    expect(traced("lckit run")).toContain("SCAN-03");
    expect(traced("lckit run")).not.toContain("BLOCKED-06");
    expect(coverage.requirements.map((r) => [r.id, r.status])).toEqual([
      ["BLOCKED-06", "untested"],
      ["SCAN-03", "elsewhere"],
    ]);
  });

  it("lists requirement ids that checks use but the catalogue lacks", () => {
    const coverage = computeCoverage(catalogue, [{ id: "a", requirements: ["NOPE-01"] }], null);
    expect(coverage.unknown).toEqual([{ id: "NOPE-01", checks: ["a"] }]);
  });
});
