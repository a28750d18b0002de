// Every seeded fault of the reference is caught by exactly the checks the table names, and by no others.
// Each fault runs only the suites of its expected checks plus a cheap sanity set, with small runs.
import { describe, expect, it } from "vitest";
import { FAULTS } from "../../src/reference/faults.ts";
import { allChecks } from "../../suites/index.ts";
import { runEmbedded } from "./embedded-run.ts";
import { extraSuites, faultExpectations, sanitySuites } from "./fault-expectations.ts";

const knownIds = new Set(allChecks.map((check) => check.id));
const suiteOf = (id: string) => id.split("/")[0] as string;

describe("fault expectations", () => {
  it.each(FAULTS.map((fault) => [fault.name, faultExpectations[fault.name]] as const))(
    "%s names checks that exist",
    (_, expected) => {
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.filter((id) => !knownIds.has(id))).toEqual([]);
    },
  );

  it("covers every fault and nothing else", () => {
    expect(Object.keys(faultExpectations).sort()).toEqual(FAULTS.map((fault) => fault.name).sort());
  });

  it("names only suites that exist as extra suites", () => {
    const suites = new Set(allChecks.map((check) => check.suite));
    expect(
      Object.values(extraSuites)
        .flat()
        .filter((suite) => !suites.has(suite as string)),
    ).toEqual([]);
  });
});

describe("seeded faults are caught", () => {
  it.each(FAULTS.map((fault) => [fault.name, faultExpectations[fault.name]] as const))(
    "%s",
    async (name, expected) => {
      const suites = [...new Set([...expected.map(suiteOf), ...(extraSuites[name] ?? []), ...sanitySuites])];
      const { result } = await runEmbedded({ faults: [name], suites, runs: 10 });
      // Skips are not findings: the schema suite skips operations this selection did not exercise.
      const findings = result.checks.filter(
        (check) => check.status === "failed" || check.status === "broken",
      );
      expect(findings.map((check) => `${check.status} ${check.id}`).sort()).toEqual(
        expected.map((id) => `failed ${id}`).sort(),
      );
    },
  );
});
