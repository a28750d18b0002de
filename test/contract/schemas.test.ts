// Every schema of the contract is valid JSON Schema 2020-12: the kit's validators compile them without
// checking them against the meta-schema (src/contract/violations.ts), so this test is where that is proven.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";

/** Every value under a `schema` key or in components.schemas, with its JSON pointer. */
function schemasOf(node: unknown, pointer: string, out: [string, object][]): [string, object][] {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) schemasOf(item, `${pointer}/${i}`, out);
  else if (node !== null && typeof node === "object")
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (key === "schema" && value !== null && typeof value === "object") out.push([at, value]);
      else if (pointer.endsWith("/components/schemas") && value !== null && typeof value === "object")
        out.push([at, value]);
      else schemasOf(value, at, out);
    }
  return out;
}

describe("the contract's schemas", () => {
  const { documents } = loadContract();
  const schemas = Object.entries(documents).flatMap(([host, doc]) => schemasOf(doc, `${host}#`, []));

  it("are many (the walk finds them)", () => {
    expect(schemas.length).toBeGreaterThan(20);
  });

  it("are each valid JSON Schema 2020-12", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const invalid = schemas
      .filter(([, schema]) => !ajv.validateSchema(schema))
      .map(([at]) => `${at}: ${ajv.errorsText()}`);
    expect(invalid).toEqual([]);
  });

  it("a schema that is not valid 2020-12 is found", () => {
    const ajv = new Ajv2020({ strict: false });
    expect(
      ajv.validateSchema({ type: "object", properties: { code: { type: "strng", minLength: -1 } } }),
    ).toBe(false);
  });
});
