// The catalogue's requirement kinds are written in its schema; coverage splits them between the two
// commands that prove them (lckit run, lckit events check). This keeps the split a partition of the
// schema's list, so a kind added to the catalogue is never left to no command, or claimed by both.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catalogueSchemaPath } from "../../src/requirements/catalogue.ts";
import { eventRequirementKinds, httpRequirementKinds } from "../../src/result/coverage.ts";

const schema = JSON.parse(readFileSync(catalogueSchemaPath, "utf8")) as {
  properties: { requirements: { items: { properties: { kind: { enum: string[] } } } } };
};
const kinds = schema.properties.requirements.items.properties.kind.enum;

describe("the requirement kinds of coverage", () => {
  it("split the catalogue schema's kinds between HTTP runs and event checks, each kind once", () => {
    const split = [...httpRequirementKinds, ...eventRequirementKinds];
    expect(new Set(split).size).toBe(split.length);
    expect([...split].sort()).toEqual([...kinds].sort());
  });
});
