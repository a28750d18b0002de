// The event contract: every schema compiles once with ajv, carries $id, title and x-requirements naming
// catalogue ids, and the per-type schemas match the document's table of event types.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fromFile, Parser } from "@asyncapi/parser";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { relationshipShapeFields } from "../../src/events/document/payload-fields.ts";
import { rule } from "../../src/events/document/requirements.ts";
import {
  compileEventSchemas,
  eventSchemas,
  eventSchemasDir,
  listedEventTypes,
  selectableFields,
} from "../../src/events/event-schemas.ts";

const root = join(import.meta.dirname, "..", "..");
const catalogue = parse(readFileSync(join(root, "requirements", "catalogue.yaml"), "utf8")) as {
  requirements: { id: string }[];
};
const known = new Set(catalogue.requirements.map((entry) => entry.id));

const documentTypes = [
  ...["ENTITY_CREATED", "ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE", "ENTITY_CHANGED"],
  ...["RELATIONSHIP_CREATED", "RELATIONSHIP_REMOVED", "RELATIONSHIP_REMOVED_GDPR", "RELATIONSHIP_CHANGED"],
  ...["GROUP_CREATED", "GROUP_REMOVED", "GROUP_CHANGED", "INTERACTION_CREATED", "INTERACTION_REMOVED"],
  ...["INTERACTION_CHANGED", "ENTITIES_SPLITTED", "ENTITIES_MATCHES_CHANGED", "RELATION_LOST_MERGE"],
  ...["RELATIONSHIP_MERGED", "ENTITY_BUSINESS_PROCESS_CHANGED", "CHANGE_REQUEST_CREATED"],
  ...["CHANGE_REQUEST_CHANGED", "CHANGE_REQUEST_REMOVED"],
];

function collectRequirements(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) collectRequirements(item, into);
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "x-requirements" && Array.isArray(value)) for (const id of value) into.add(String(id));
      else collectRequirements(value, into);
    }
  }
  return into;
}

describe("event schemas", () => {
  const schemas = eventSchemas();

  it("list, read without compiling, the same event types as the compiled contract", () => {
    const compiled = compileEventSchemas();
    expect([...listedEventTypes()].sort()).toEqual(
      [...compiled.types.keys(), ...compiled.unsupportedTypes].sort(),
    );
    expect(listedEventTypes().has("ENTITY_CHANGED")).toBe(true);
    expect(listedEventTypes().has("ENTITY_MERGE_FAILED")).toBe(false);
  });

  it("compile with ajv in strict mode", () => {
    expect(() => compileEventSchemas(eventSchemasDir)).not.toThrow();
    expect(schemas.files.length).toBeGreaterThanOrEqual(35);
  });

  it.each(schemas.files.map((file) => [file.path, file.schema] as const))(
    "%s has $id, title and x-requirements",
    (_path, schema) => {
      expect(schema.$id).toMatch(/^https:\/\/lckit\.example\/event-schemas\/.+\.schema\.json$/);
      expect(typeof schema.title).toBe("string");
      expect(Array.isArray(schema["x-requirements"])).toBe(true);
    },
  );

  it("name only catalogue ids in x-requirements", () => {
    const ids = new Set<string>();
    for (const file of schemas.files) collectRequirements(file.schema, ids);
    expect([...ids].filter((id) => !known.has(id))).toEqual([]);
  });

  it("and the checker's rules name only catalogue ids", () => {
    expect(Object.values(rule).filter((id) => !known.has(id))).toEqual([]);
  });

  it("define one schema per event type of the document's table", () => {
    expect([...schemas.types.keys()].sort()).toEqual([...documentTypes].sort());
  });

  it("flag GROUP_* as unused and nothing else", () => {
    const unused = [...schemas.types.values()].filter((info) => info.unused).map((info) => info.type);
    expect(unused.sort()).toEqual(["GROUP_CHANGED", "GROUP_CREATED", "GROUP_REMOVED"]);
  });

  it("list the document's unsupported types", () => {
    expect([...schemas.unsupportedTypes].sort()).toEqual(
      [
        "ACTIVITY_CREATED_UPDATED",
        "ACTIVITY_REMOVED",
        "ENTITIES_CATEGORY_TREE_STRUCTURE_CHANGED",
        "ENTITY_LOSER_REMOVED",
        "RELATION_WOULD_CHANGE",
        "RELATION_WOULD_DELETE",
      ].sort(),
    );
    expect(schemas.unsupportedTypes.filter((type) => schemas.types.has(type))).toEqual([]);
  });

  it.each([
    ["a snapshot", { type: "ENTITY_CREATED", object: { uri: "entities/1" } }, true],
    ["a deltas message", { type: "RELATIONSHIP_CHANGED", uri: "relations/1", deltas: {} }, true],
    [
      "a large-object fallback",
      { type: "ENTITY_CHANGED", uri: "entities/1", exceededQueueSizeLimit: true, ovChanged: true },
      true,
    ],
    ["a change request name", { type: "CHANGE_REQUEST_REMOVED" }, true],
    ["an unsupported type", { type: "ACTIVITY_REMOVED", object: { uri: "entities/1" } }, false],
    [
      "a snapshot and deltas at once",
      { type: "ENTITY_CREATED", object: { uri: "e/1" }, uri: "e/1", deltas: {} },
      false,
    ],
  ])("the payload union accepts %s: %s", (_name, payload, valid) => {
    expect(schemas.payload(payload) === null).toBe(valid);
  });
});

describe("AsyncAPI document", () => {
  it("parses with @asyncapi/parser without errors and lists every event type", async () => {
    const parser = new Parser();
    const { document, diagnostics } = await fromFile(parser, join(eventSchemasDir, "asyncapi.yaml")).parse();
    // Spectral severities: 0 error, 1 warning, 2 information, 3 hint.
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => d.message)).toEqual([]);
    expect(document).toBeDefined();
    const names =
      document
        ?.messages()
        .all()
        .map((message) => message.name()) ?? [];
    expect([...names].sort()).toEqual([...documentTypes].sort());
    const channel = document?.channels().all()[0];
    expect(channel?.address()).toBe("{destination}");
    expect(
      channel
        ?.parameters()
        .all()
        .map((p) => p.id()),
    ).toEqual(["destination"]);
  });
});

describe("the object fields a filtering property can select", () => {
  it("are read from the object schemas: the common ones first, then the kind's own", () => {
    const common = selectableFields("common");
    expect(common.slice(0, 2)).toEqual(["uri", "type"]);
    expect(selectableFields("entity").slice(0, common.length)).toEqual(common);
    expect(selectableFields("entity")).toContain("roles");
    expect(selectableFields("entity")).not.toContain("startRefPinned");
    expect(selectableFields("relationship")).toContain("startRefPinned");
    expect(selectableFields("relationship")).not.toContain("roles");
  });

  it("cover the document's RELATIONSHIP_CREATED shape the checker asks for", () => {
    // A field of that shape the schemas do not declare would be one list saying what the other does not.
    for (const field of relationshipShapeFields) expect(selectableFields("relationship")).toContain(field);
  });
});
