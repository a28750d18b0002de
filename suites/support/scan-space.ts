// The space the scan rules span: sort field x order x filter x limit x page depth, from the data the scan
// holds. A rule checked on one slice is not checked, so the boundaries are cases of their own, chosen from
// the data and read whatever the seed: a page boundary inside a run of records sharing the sort value, a
// last page exactly full, a last page of one record; properties draw the rest of the space.
import fc from "fast-check";
import type { CheckContext } from "../../src/check/index.ts";
import { depthOf, explore, runsAtDepth } from "../../src/check/index.ts";
import type { ScanQuery } from "../../src/client/index.ts";

type Row = Record<string, unknown>;
type Scalar = string | number | boolean;

/** One scroll of the space: an equals() filter or none, a sort or none, a page size. */
export interface SpaceCase {
  filter?: { field: string; value: string };
  sort?: string;
  order?: "asc" | "desc";
  limit: number;
}

/** What the space is built from: the scan's records and the fields its cases may name. */
export interface SpaceSubject {
  sortFields: readonly string[];
  /** Sort fields the document names: their refusal is a finding, another's is not. */
  documentedSortFields: readonly string[];
  filterFields: readonly string[];
}

/** Pages a whole scroll of the space may take: polite on a live target by default, far more when deep. */
export function pageBudget(ctx: Pick<CheckContext, "depth">): number {
  return depthOf(ctx) === "deep" ? 15 : 6;
}

/** The query of a case, its keys always in one order (a recorded scroll is found by its query). */
export function caseQuery(c: SpaceCase): ScanQuery {
  return {
    ...(c.filter ? { filter: `equals(${c.filter.field},'${c.filter.value}')` } : {}),
    ...(c.sort === undefined ? {} : { sort: c.sort, order: c.order ?? "asc" }),
    limit: c.limit,
  };
}

/** How a case reads in a message: "filter=...&sort=...&order=...&limit=...". */
export function describeCase(c: SpaceCase): string {
  return Object.entries(caseQuery(c))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join("&");
}

/** The records a case's filter selects exactly (the value as stored). */
export function selected(all: readonly Row[], c: Pick<SpaceCase, "filter">): Row[] {
  const filter = c.filter;
  return filter ? all.filter((r) => r[filter.field] === filter.value) : [...all];
}

function scalar(record: Row, field: string): Scalar | undefined {
  const v = record[field];
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : undefined;
}

/** The values of the field in the order the scroll should serve them (ties in any order). */
function servedValues(records: readonly Row[], field: string, order: "asc" | "desc"): (Scalar | undefined)[] {
  const values = records.map((r) => scalar(r, field));
  const ranks: Record<string, number> = { number: 0, string: 1, boolean: 2 };
  const rank = (v: Scalar | undefined) => (v === undefined ? 3 : (ranks[typeof v] ?? 3));
  values.sort((a, b) => {
    const d = rank(a) - rank(b);
    if (d !== 0 || a === undefined || b === undefined) return d;
    return a === b ? 0 : a < b ? -1 : 1;
  });
  return order === "asc" ? values : values.reverse();
}

/** Smallest limit whose whole scroll of `count` records takes at most `pages` pages. */
const floorFor = (count: number, pages: number) => Math.max(1, Math.ceil(count / pages));

/**
 * The page sizes that put a boundary where it matters for `count` records within `pages` pages: the
 * largest page at which a boundary falls inside a run of records sharing the sort value (`ties`), the
 * most pages that end exactly full, and the most that leave one record for the last page.
 */
export function boundaryLimitsOf(
  records: readonly Row[],
  c: Pick<SpaceCase, "sort" | "order">,
  pages: number,
): { ties?: number; full?: number; over?: number } {
  const n = records.length;
  const out: { ties?: number; full?: number; over?: number } = {};
  if (n === 0) return out;
  if (c.sort !== undefined) {
    const values = servedValues(records, c.sort, c.order ?? "asc");
    const straddles = (limit: number) => {
      for (let at = limit; at < n; at += limit)
        if (values[at] !== undefined && values[at] === values[at - 1]) return true;
      return false;
    };
    for (let limit = Math.min(100, n - 1); limit >= floorFor(n, pages); limit--)
      if (straddles(limit)) {
        out.ties = limit;
        break;
      }
  }
  for (let p = pages; p >= 1; p--)
    if (n % p === 0 && n / p <= 100) {
      out.full = n / p;
      break;
    }
  // p full pages and one record on the last: p + 1 pages.
  for (let p = pages; p >= 1; p--)
    if ((n - 1) % p === 0 && (n - 1) / p >= 2 && (n - 1) / p <= 100) {
      out.over = (n - 1) / p;
      break;
    }
  return out;
}

/** How many records share a value of the field, beyond the first of each value: ties to straddle. */
function tiesOf(all: readonly Row[], field: string): number {
  const values = all.map((r) => scalar(r, field)).filter((v) => v !== undefined);
  return values.length - new Set(values).size;
}

/** Sort fields by how many ties they hold, most first (the documented ones ahead of equal others); a field
 *  holding a single value orders nothing and is left out. */
export function sortFieldsByTies(subject: SpaceSubject, all: readonly Row[]): string[] {
  const distinct = (field: string) => new Set(all.map((r) => scalar(r, field))).size;
  return [...subject.sortFields]
    .filter((field) => distinct(field) > 1)
    .sort(
      (a, b) =>
        tiesOf(all, b) - tiesOf(all, a) ||
        Number(subject.documentedSortFields.includes(b)) - Number(subject.documentedSortFields.includes(a)),
    );
}

const quotable = (v: unknown): v is string => typeof v === "string" && v !== "" && !/['"\\]/.test(v);

/** Filters worth a whole scroll: per filter field, its values by how many records hold them, most first
 *  (a filter that selects one record has no page boundary to show). */
export function spaceFilters(
  subject: SpaceSubject,
  all: readonly Row[],
): { field: string; value: string }[][] {
  return subject.filterFields.map((field) => {
    const counts = new Map<string, number>();
    for (const r of all) {
      const v = r[field];
      if (quotable(v)) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    // A filter that selects every record restricts nothing: it is no case of its own.
    return [...counts]
      .filter(([, n]) => n >= 2 && n < all.length)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([value]) => ({ field, value }));
  });
}

export type Boundary = "ties" | "full" | "over";

/** The cases of one filter, sort and order at the boundaries that matter for them, within `pages`. */
export function casesAt(
  all: readonly Row[],
  base: Omit<SpaceCase, "limit">,
  pages: number,
  which: readonly Boundary[] = ["ties", "full", "over"],
): SpaceCase[] {
  const limits = boundaryLimitsOf(selected(all, base), base, pages);
  const chosen = which.map((b) => limits[b]).filter((l): l is number => l !== undefined);
  return [...new Set(chosen)].map((limit) => ({ ...base, limit }));
}

/** A draw of the space: any sort field (or none), either order, any filter (or none), any limit whose
 *  whole scroll stays within `pages`, the boundary limits of the draw most of the time. */
export function spaceArb(subject: SpaceSubject, all: readonly Row[], pages: number): fc.Arbitrary<SpaceCase> {
  // A filter field, then one of its three largest values: a filter of one or two records has no boundary.
  const byField = spaceFilters(subject, all)
    .map((values) => values.slice(0, 3))
    .filter((values) => values.length > 0);
  const filterArb =
    byField.length === 0
      ? fc.constant(undefined)
      : fc.option(
          fc.constantFrom(...byField).chain((values) => fc.constantFrom(...values)),
          { nil: undefined },
        );
  return fc
    .tuple(
      fc.option(fc.constantFrom(...subject.sortFields), { nil: undefined }),
      fc.constantFrom<"asc" | "desc">("asc", "desc"),
      filterArb,
      fc.nat(99),
    )
    .chain(([sort, order, filter, pick]) => {
      const base: Omit<SpaceCase, "limit"> = {
        ...(filter ? { filter } : {}),
        ...(sort === undefined ? {} : { sort, order }),
      };
      const count = selected(all, base).length;
      const least = Math.min(100, floorFor(count, pages));
      const boundaries = casesAt(all, base, pages).map((c) => c.limit);
      const any = least + (pick % (100 - least + 1));
      return fc
        .oneof(
          { weight: 3, arbitrary: fc.constantFrom(...(boundaries.length > 0 ? boundaries : [any])) },
          { weight: 1, arbitrary: fc.constant(any) },
        )
        .map((limit) => ({ ...base, limit }));
    });
}

/** Runs of the space property: a handful by default (each a whole scroll), the run's count when deep. */
export function spaceRuns(ctx: Pick<CheckContext, "depth" | "runs">): number {
  return runsAtDepth(ctx, 2);
}

/** Notes the exploration of one case read: its scan, query dimensions, depth, boundaries reached. */
export class SpaceLog {
  #pages = 0;
  constructor(private readonly ctx: CheckContext) {}

  /** Notes a case read of `scan`: `expectedCount` records should come, `pages` came (each its records). */
  note(scan: string, c: SpaceCase, expectedCount: number, pages: readonly (readonly Row[])[]): void {
    const { ctx } = this;
    explore(ctx, "scan", scan);
    explore(ctx, "sort field", c.sort ?? "none");
    explore(ctx, "order", c.sort === undefined ? "none" : (c.order ?? "asc"));
    explore(ctx, "filter", c.filter ? `equals(${c.filter.field},'${c.filter.value}')` : "none");
    explore(ctx, "limit", c.limit);
    const read = pages.filter((p) => p.length > 0).length;
    this.#pages = Math.max(this.#pages, read);
    if (expectedCount > 0)
      explore(
        ctx,
        "last page",
        expectedCount % c.limit === 0
          ? "exactly full"
          : expectedCount % c.limit === 1
            ? "one record over"
            : "partial",
      );
    const sort = c.sort;
    if (sort === undefined) return;
    const full = pages.filter((p) => p.length > 0);
    for (let i = 1; i < full.length; i++) {
      const before = scalar(full[i - 1]?.at(-1) ?? {}, sort);
      if (before !== undefined && before === scalar(full[i]?.[0] ?? {}, sort)) {
        explore(ctx, "ties across a page boundary", sort);
        break;
      }
    }
  }

  /** Notes the deepest scroll read (call once, when the check is done). */
  done(): void {
    if (this.#pages > 0) explore(this.ctx, "pages read", String(this.#pages));
  }
}

/** Kinds of sort value whose ties a first page picked apart from the later pages can get wrong. */
type TieKind = "boolean" | "number" | "text" | "missing";

function tieKindOf(all: readonly Row[], field: string): TieKind | undefined {
  const values = all.map((r) => scalar(r, field));
  const present = values.filter((v) => v !== undefined);
  if (present.length === 0) return undefined;
  if (present.length < values.length) return "missing";
  const types = new Set(present.map((v) => typeof v));
  if (types.size !== 1) return undefined;
  return types.has("boolean") ? "boolean" : types.has("number") ? "number" : "text";
}

/**
 * Sorted scrolls at limits of 1 to 3, one per kind of sort value (booleans, numbers, text, records without
 * the field), each the first boundary of which falls between two records sharing the sort value (or both
 * without it): an implementation may pick the first page another way than the later ones (a selection
 * before the full order exists), and the two must agree on ties, or a record repeats or is lost there. Each
 * is read whole, under the filter that makes it cheapest (a handful of records, two or three pages).
 */
export function smallLimitCases(subject: SpaceSubject, all: readonly Row[]): SpaceCase[] {
  const filters = spaceFilters(subject, all).flat();
  const best = new Map<TieKind, { c: SpaceCase; cost: number }>();
  for (const sort of subject.sortFields) {
    const kind = tieKindOf(all, sort);
    if (kind === undefined) continue;
    for (const filter of filters) {
      if (filter.field === sort) continue;
      const records = selected(all, { filter });
      for (const order of ["asc", "desc"] as const) {
        const values = servedValues(records, sort, order);
        for (const limit of [3, 2, 1]) {
          // A scroll of more than the first page and the record after it: the later pages are read too.
          if (records.length < limit + 2) continue;
          const tied =
            kind === "missing"
              ? values[limit - 1] === undefined || values[limit] === undefined
              : values[limit - 1] !== undefined && values[limit - 1] === values[limit];
          if (!tied) continue;
          const cost = Math.ceil(records.length / limit);
          const known = best.get(kind);
          if (!known || cost < known.cost) best.set(kind, { c: { filter, sort, order, limit }, cost });
        }
      }
    }
  }
  return [...best.values()].map((b) => b.c);
}
