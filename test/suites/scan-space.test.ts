// The space of a scan: the boundary limits come from the data, not from luck.
import { describe, expect, it } from "vitest";
import {
  boundaryLimitsOf,
  caseQuery,
  casesAt,
  sortFieldsByTies,
  spaceFilters,
} from "../../suites/support/scan-space.ts";

/** 250 records of type A, 162 of B, 3 of C; `n` unique. */
const records = [
  ...Array.from({ length: 250 }, (_, i) => ({ type: "A", n: i, flag: i % 50 === 0 })),
  ...Array.from({ length: 162 }, (_, i) => ({ type: "B", n: 250 + i, flag: false })),
  ...Array.from({ length: 3 }, (_, i) => ({ type: "C", n: 412 + i, flag: false })),
];

describe("boundary limits", () => {
  it("puts a page boundary inside a run of ties of the sort value, at the largest such page", () => {
    const { ties } = boundaryLimitsOf(records, { sort: "type", order: "asc" }, 6);
    expect(ties).toBe(100);
    const values = records.map((r) => r.type).sort();
    expect(values[(ties as number) - 1]).toBe(values[ties as number]);
  });

  it("finds no tie to straddle on a unique field", () => {
    expect(boundaryLimitsOf(records, { sort: "n", order: "desc" }, 6).ties).toBeUndefined();
  });

  it("chooses a last page exactly full and one of a single record, within the page budget", () => {
    const { full, over } = boundaryLimitsOf(records, {}, 6);
    expect(full).toBe(83);
    expect(415 % (full as number)).toBe(0);
    expect(over).toBe(69);
    expect(415 % (over as number)).toBe(1);
    // One record over takes one page more than the budget's full pages.
    expect(Math.ceil(415 / (over as number))).toBeLessThanOrEqual(7);
  });

  it("takes a single full page when no page count within the budget divides the records", () => {
    const prime = records.slice(0, 37);
    expect(boundaryLimitsOf(prime, {}, 6).full).toBe(37);
  });

  it("gives the cases of a filter, sort and order with their query keys in one order", () => {
    const cases = casesAt(records, { filter: { field: "type", value: "A" }, sort: "flag", order: "desc" }, 6);
    expect(cases.map((c) => c.limit)).toEqual([100, 50, 83]);
    expect(Object.keys(caseQuery(cases[0] as (typeof cases)[number]))).toEqual([
      "filter",
      "sort",
      "order",
      "limit",
    ]);
  });
});

describe("fields of the space", () => {
  it("ranks sort fields by ties and leaves out a field of a single value", () => {
    const subject = {
      sortFields: ["n", "type", "flag", "same"],
      documentedSortFields: ["n"],
      filterFields: [],
    };
    const rows = records.map((r) => ({ ...r, same: "x" }));
    expect(sortFieldsByTies(subject, rows)).toEqual(["flag", "type", "n"]);
  });

  it("offers filters by their size, none that selects every record or a single one", () => {
    const subject = { sortFields: [], documentedSortFields: [], filterFields: ["type"] };
    expect(spaceFilters(subject, records)[0]?.map((f) => f.value)).toEqual(["A", "B", "C"]);
    expect(spaceFilters(subject, records.slice(0, 250))[0]).toEqual([]);
  });
});
