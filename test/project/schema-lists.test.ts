// Lists the kit writes once in code and its JSON schemas (data files, read by users' editors and
// validators) state again: each schema's list must be the code's list, so neither drifts from the other.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CREDENTIAL_ROLES, SAFETY_CLASSES } from "../../src/check/index.ts";
import { DELIVERIES } from "../../src/commands/consumer/request.ts";
import reportSchema from "../../src/report/report.schema.json" with { type: "json" };
import { catalogueSchemaPath, LEVELS } from "../../src/requirements/catalogue.ts";
import targetSchema from "../../src/target/target.schema.json" with { type: "json" };
import { SECOND_QUOTA_KEY } from "../../src/target/target-file.ts";

const catalogueSchema = JSON.parse(readFileSync(catalogueSchemaPath, "utf8")) as {
  properties: {
    requirements: { items: { properties: { kind: { enum: string[] }; level: { enum: string[] } } } };
  };
};
const requirement = catalogueSchema.properties.requirements.items.properties;

describe("the lists the JSON schemas state again", () => {
  it("the catalogue's levels are LEVELS, in the same order", () => {
    expect(requirement.level.enum).toEqual([...LEVELS]);
  });

  it("the target file's credentials are CREDENTIAL_ROLES (and the second quota client) and its allow classes are SAFETY_CLASSES", () => {
    expect(Object.keys(targetSchema.properties.credentials.properties).sort()).toEqual(
      [...CREDENTIAL_ROLES, SECOND_QUOTA_KEY].sort(),
    );
    expect(targetSchema.properties.allow.items.enum).toEqual([...SAFETY_CLASSES]);
  });

  it("a consumer report's deliveries are DELIVERIES, in the same order", () => {
    const consumer = reportSchema.properties.subject.oneOf.find(
      (shape) => shape.properties.kind.const === "consumer",
    ) as { properties: { delivery: { enum: string[] } } };
    expect(consumer.properties.delivery.enum).toEqual([...DELIVERIES]);
  });
});
