// The lookup type URI is written once (src/contract/lookup-type.ts): its pattern is the contract's own, and
// the name and URI helpers undo each other, so the reference, the mock and the suites read types alike.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  isObject,
  LOOKUP_TYPE_PREFIX,
  LOOKUP_TYPE_URI_PATTERN,
  lookupTypeName,
  lookupTypeUri,
  openapiDir,
  RefResolver,
} from "../../src/contract/index.ts";

const schemas = new RefResolver().resolveDocument(join(openapiDir, "components", "schemas.yaml"));

describe("the lookup type URI", () => {
  it("has the pattern the contract gives Lookup.type", () => {
    const lookup = schemas.Lookup;
    const properties = isObject(lookup) && isObject(lookup.properties) ? lookup.properties : {};
    const type = isObject(properties.type) ? properties.type : {};
    expect(type.pattern).toBe(LOOKUP_TYPE_URI_PATTERN);
  });

  it("is the prefix followed by the type name, and the pattern accepts exactly that", () => {
    const pattern = new RegExp(LOOKUP_TYPE_URI_PATTERN);
    expect(lookupTypeUri("Country")).toBe(`${LOOKUP_TYPE_PREFIX}Country`);
    expect(pattern.test(lookupTypeUri("Country"))).toBe(true);
    expect(pattern.test("Country")).toBe(false);
    expect(pattern.test(`${LOOKUP_TYPE_PREFIX}Country/extra`)).toBe(false);
  });

  it("gives the bare name of a URI and leaves a bare name as it is", () => {
    expect(lookupTypeName("rdm/lookupTypes/Country")).toBe("Country");
    expect(lookupTypeName("Country")).toBe("Country");
    expect(lookupTypeName(lookupTypeUri("Gender"))).toBe("Gender");
    // Only a leading prefix is a URI: a name that merely contains it elsewhere is kept whole.
    expect(lookupTypeName("x/rdm/lookupTypes/Country")).toBe("x/rdm/lookupTypes/Country");
  });
});
