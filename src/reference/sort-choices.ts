// Orders a correct scan may choose where the document is silent (variants.ts): which of the records sharing
// a sort value comes first, and whether strings compare regardless of case. Built as a view of the
// reference's order (only a variant builds one).
import type { ReferenceContext } from "./context.ts";
import type { ScrollView } from "./scan-order.ts";

type Key = string | number | boolean;

function keyOf(record: object, field: string): Key | undefined {
  const value = (record as Record<string, unknown>)[field];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : undefined;
}

const RANK: Record<string, number> = { number: 0, string: 1, boolean: 2 };

function compare(a: Key | undefined, b: Key | undefined, ignoreCase: boolean): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  if (typeof a !== typeof b) return (RANK[typeof a] ?? 3) - (RANK[typeof b] ?? 3);
  const [x, y] =
    ignoreCase && typeof a === "string" && typeof b === "string"
      ? [a.toLowerCase(), b.toLowerCase()]
      : [a, b];
  return x === y ? 0 : x < y ? -1 : 1;
}

/** The sorted view as the variants on choose to order it; the view itself when none is on. */
export function orderAsChosen(
  ctx: ReferenceContext,
  view: ScrollView,
  field: string,
  reversed: boolean,
): ScrollView {
  const ignoreCase = ctx.variants.has("sort-case-insensitive");
  const tiesReversed = ctx.variants.has("sort-ties-reversed");
  if (!ignoreCase && !tiesReversed) return view;
  const n = view.length;
  // Rank of a served position in ascending order: desc serves the exact reverse of asc.
  const asc = (i: number) => (reversed ? n - 1 - i : i);
  const keys = Array.from({ length: n }, (_, i) => keyOf(view.at(i), field));
  const positions = Array.from({ length: n }, (_, i) => i);
  positions.sort(
    (i, j) => compare(keys[i], keys[j], ignoreCase) || (tiesReversed ? asc(j) - asc(i) : asc(i) - asc(j)),
  );
  if (reversed) positions.reverse();
  return { length: n, ownEntries: view.ownEntries + n, at: (i) => view.at(positions[i] as number) };
}
