// A pact file's request path loses its query and fragment by a search after the last line break. It must
// cut where /[?#].*$/ cut (kept here as the oracle) and stay linear where that expression was quadratic:
// many "?" or "#" before a line break.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import { withoutQuery } from "../../src/contract/without-query.ts";

const seed = Number(process.env.FC_SEED ?? 20_261_123);

const oracle = (path: string) => path.replace(/[?#].*$/, "");

const pieces = fc.constantFrom("/", "a", "?", "#", "=", "&", "\n", "\r", "\u2028", "\u2029", " ", "%3F");
const paths = fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join(""));

describe("a path without its query", () => {
  it("is cut where the regular expression it replaces cut it", () => {
    fc.assert(
      fc.property(paths, (path) => {
        expect(withoutQuery(path)).toBe(oracle(path));
      }),
      { seed, numRuns: 3000 },
    );
  });

  it("stays linear in many question marks before a line break (the old expression took minutes)", () => {
    const marks = "?".repeat(1_000_000);
    expect(withoutQuery(`/a${marks}\nb?c`)).toBe(`/a${marks}\nb`);
    const contract = loadContract();
    expect(contract.findOperation("lookup-data", "GET", `/healthcheck${marks}\n`)).toBeUndefined();
    expect(contract.findOperation("lookup-data", "GET", `/healthcheck?${marks}`)?.operation.path).toBe(
      "/healthcheck",
    );
  });
});
