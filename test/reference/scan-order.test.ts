// The order a scan serves: whatever route a view takes (first page by selection, full order built later,
// an order kept beside the array, filtered in sorted order), it serves exactly what a plain filter and full
// stable sort give, for random records, sort fields, directions, filters and page sizes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fullOrder, MAX_ORDER_ENTRIES, type ScanOrder, scanView } from "../../src/reference/scan-order.ts";

type Scalar = string | number | boolean;

/** What a scan must serve: kept records in identity order, stably sorted by the field (numbers, then
 *  strings, then booleans; records without a scalar value last), reversed for desc. */
function expected(records: readonly object[], order: ScanOrder): object[] {
  const keyOf = (record: object): Scalar | undefined => {
    const value = order.field === undefined ? undefined : (record as Record<string, unknown>)[order.field];
    return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
      ? value
      : undefined;
  };
  const rank = (v: Scalar) => ["number", "string", "boolean"].indexOf(typeof v);
  const kept = records.filter((r) => !order.keep || order.keep(r));
  const sorted =
    order.field === undefined
      ? kept
      : [...kept].sort((a, b) => {
          const x = keyOf(a);
          const y = keyOf(b);
          if (x === undefined || y === undefined)
            return (x === undefined ? 1 : 0) - (y === undefined ? 1 : 0);
          return rank(x) - rank(y) || (x < y ? -1 : x > y ? 1 : 0);
        });
  return order.reversed ? sorted.reverse() : sorted;
}

function served(records: readonly object[], order: ScanOrder): object[] {
  const view = scanView(records, order);
  return Array.from({ length: view.length }, (_, i) => view.at(i));
}

const value = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, min: -3, max: 3 }),
  fc.constantFrom("a", "b", "B", "ab", "", "é", "10", "9"),
  fc.boolean(),
  fc.constant(null),
  fc.constant({ nested: 1 }),
);
const record = fc.dictionary(fc.constantFrom("code", "updateDate", "enabled", "x"), value, { maxKeys: 4 });

describe("scan order", () => {
  it("serves what a plain filter and full sort serve, on every route", () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 200, size: "max" }),
        fc.option(fc.constantFrom("code", "updateDate", "enabled", "x", "absent"), { nil: undefined }),
        fc.boolean(),
        fc.option(fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }), { nil: undefined }),
        // Small first pages take the selection route (a page under 1/16 of the records), larger ones not.
        fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 210 })),
        fc.constantFrom("fresh", "ordered-before"),
        (records, field, reversed, mask, firstPage, route) => {
          // A new array each time: an order kept beside another array cannot answer for this one.
          const base: readonly object[] = [...records];
          const keep = mask ? (r: object) => mask[base.indexOf(r)] === true : undefined;
          const order: ScanOrder = {
            ...(keep ? { keep } : {}),
            ...(field === undefined ? {} : { field }),
            reversed,
            firstPage,
          };
          if (route === "ordered-before" && field !== undefined) fullOrder(base, field);
          const want = expected(base, order);
          expect(served(base, order)).toEqual(want);
          // Again: now the full order is kept beside the array (built by the first view's later pages).
          expect(served(base, order)).toEqual(want);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("answers the first page of a large array before its full order exists, and the same after", () => {
    const base = Array.from({ length: 5000 }, (_, i) => ({ i, score: (i * 7919) % 1000 }));
    const order: ScanOrder = { field: "score", reversed: true, firstPage: 10 };
    const view = scanView(base, order);
    const first = Array.from({ length: 10 }, (_, i) => view.at(i));
    expect(first).toEqual(expected(base, order).slice(0, 10));
    // Reading past the first page builds the full order; a new scan then takes it as kept.
    expect(view.at(4999)).toEqual(expected(base, order)[4999]);
    expect(served(base, order)).toEqual(expected(base, order));
  });

  it("holds no index of its own for an unfiltered sort, and one entry per record kept with a filter", () => {
    const base = Array.from({ length: 1000 }, (_, i) => ({ i, even: i % 2 === 0 }));
    expect(scanView(base, { field: "i", reversed: false, firstPage: 5 }).ownEntries).toBe(0);
    const filtered = scanView(base, {
      field: "i",
      reversed: false,
      firstPage: 5,
      keep: (r) => "even" in r && r.even === true,
    });
    expect(filtered.ownEntries).toBe(500);
    expect(filtered.length).toBe(500);
  });

  it("keeps orders beside an array within the entry bound, always the latest", () => {
    expect(MAX_ORDER_ENTRIES).toBeGreaterThanOrEqual(1_000_000);
    const base = Array.from({ length: 100 }, (_, i) => ({ a: i % 3, b: i % 5, c: i % 7, d: i % 11 }));
    const bound = 300;
    const a = fullOrder(base, "a", bound);
    expect(fullOrder(base, "a", bound)).toBe(a);
    const b = fullOrder(base, "b", bound);
    fullOrder(base, "c", bound);
    // Three fit; the fourth evicts the least recently used one (a), which is then built anew.
    fullOrder(base, "d", bound);
    expect(fullOrder(base, "b", bound)).toBe(b);
    const again = fullOrder(base, "a", bound);
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
    // One order larger than the bound is still kept: the latest always is.
    expect(fullOrder(base, "c", 10)).toBe(fullOrder(base, "c", 10));
  });
});
