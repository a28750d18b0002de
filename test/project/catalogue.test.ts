import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { cataloguePath, catalogueProblems, loadCatalogue } from "../../src/requirements/catalogue.ts";

describe("requirement catalogue", () => {
  it("matches its JSON Schema and has unique ids", () => {
    expect(catalogueProblems(parse(readFileSync(cataloguePath, "utf8")))).toEqual([]);
  });

  it("covers the document well beyond 60 statements, across every kind", () => {
    const { requirements } = loadCatalogue();
    expect(requirements.length).toBeGreaterThan(60);
    const kinds = new Set(requirements.map((requirement) => requirement.kind));
    for (const kind of ["rule", "limit", "state", "error", "scan", "task", "event", "filter"]) {
      expect(kinds, `kind ${kind}`).toContain(kind);
    }
  });

  it.each([
    ["a duplicate id", (r: Record<string, unknown>[]) => r.push({ ...r[0] }), /duplicate requirement id/],
    [
      "a bad level",
      (r: Record<string, unknown>[]) => Object.assign(r[0] ?? {}, { level: "MUSTN'T" }),
      /level/,
    ],
    [
      "an assumption at MUST level",
      (r: Record<string, unknown>[]) => Object.assign(r[0] ?? {}, { assumption: true, level: "MUST" }),
      /level/,
    ],
    ["a malformed id", (r: Record<string, unknown>[]) => Object.assign(r[0] ?? {}, { id: "token-1" }), /id/],
    [
      "an entry without basis",
      (r: Record<string, unknown>[]) => {
        if (r[0]) delete r[0].basis;
      },
      /basis/,
    ],
    [
      "a MUST entry resting on a 'not shown'",
      (r: Record<string, unknown>[]) =>
        Object.assign(r[0] ?? {}, { level: "MUST", basis: "Response body: not shown." }),
      /basis/,
    ],
  ])("rejects %s", (_name, mutate, want) => {
    const data = parse(readFileSync(cataloguePath, "utf8")) as { requirements: Record<string, unknown>[] };
    mutate(data.requirements);
    expect(catalogueProblems(data).join("\n")).toMatch(want);
  });
});
