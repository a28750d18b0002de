// The record field rules for lookup types read the contract's URI pattern (src/contract) instead of their
// own copy: this pins what they accept and refuse, and their messages, to the readings the suites had.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockedValueRules,
  fieldProblems,
  lookupRules,
  statisticRules,
} from "../../suites/support/record-fields.ts";

// The readings as they were written before the rules read the contract: a URI only, or a name or a URI.
const uriOnly = /^rdm\/lookupTypes\/[^/]+$/;
const nameOrUri = /^(rdm\/lookupTypes\/)?[^/]+$/;

// Strings made of the pieces that matter to either reading (prefix, slash, a name, nothing).
const typeLike = fc
  .array(fc.constantFrom("rdm/lookupTypes/", "rdm", "lookupTypes", "/", "Country", "x", ""), { maxLength: 5 })
  .map((pieces) => pieces.join(""));

describe("record field rules for lookup types", () => {
  it("a Lookup's type must be a lookup type URI", () => {
    expect(fieldProblems({ type: "rdm/lookupTypes/Country" }, lookupRules)).toEqual([]);
    for (const bad of ["Country", "rdm/lookupTypes/", "rdm/lookupTypes/a/b", "", 3])
      expect(fieldProblems({ type: bad }, lookupRules)).toEqual([
        `type: expected a lookup type URI rdm/lookupTypes/<type_name>, got ${JSON.stringify(bad)}`,
      ]);
  });

  it("a statistic's or blocked value's lookupType may be the bare name or the URI", () => {
    for (const rules of [statisticRules, blockedValueRules]) {
      expect(fieldProblems({ lookupType: "Country" }, rules)).toEqual([]);
      expect(fieldProblems({ lookupType: "rdm/lookupTypes/Country" }, rules)).toEqual([]);
      for (const bad of ["a/b", "", "rdm/lookupTypes/", "rdm/lookupTypes/a/b", null])
        expect(fieldProblems({ lookupType: bad }, rules)).toEqual([
          `lookupType: expected a lookup type name or rdm/lookupTypes/<type_name>, got ${JSON.stringify(bad)}`,
        ]);
    }
  });

  it("accept exactly what the readings accepted before", () => {
    fc.assert(
      fc.property(typeLike, (value) => {
        expect(fieldProblems({ type: value }, lookupRules).length === 0).toBe(uriOnly.test(value));
        expect(fieldProblems({ lookupType: value }, statisticRules).length === 0).toBe(nameOrUri.test(value));
      }),
      { numRuns: 300 },
    );
  });
});
