// Seeded faults of scroll paging (faults.ts), as views: the pages a faulty pager would serve, laid end to
// end, so that the scroll serves them like any other view (scan.ts). Only a seeded fault builds one.
import type { ScrollView } from "./scan-order.ts";

const fieldOf = (record: object, field: string): unknown => (record as Record<string, unknown>)[field];

/** The records of `view` at `positions`, in that order. */
function served(view: ScrollView, positions: readonly number[]): ScrollView {
  return {
    length: positions.length,
    ownEntries: view.ownEntries + positions.length,
    at: (i) => view.at(positions[i] as number),
  };
}

/**
 * Keyset paging on a key that is not unique: each page after the first resumes after the last record's
 * value of the sort field, so the records sharing that value that did not fit on the page never come.
 */
export function keysetPages(view: ScrollView, field: string, limit: number): ScrollView {
  const positions: number[] = [];
  let start = 0;
  while (start < view.length) {
    const end = Math.min(start + limit, view.length);
    for (let i = start; i < end; i++) positions.push(i);
    const last = fieldOf(view.at(end - 1), field);
    start = end;
    while (start < view.length && fieldOf(view.at(start), field) === last) start++;
  }
  return served(view, positions);
}

/** Every page after the first opens with the last record of the page before it (a cursor one behind). */
export function overlappingPages(view: ScrollView, limit: number): ScrollView {
  // A page of one record would never move on: such a scroll is served as it is.
  if (limit < 2) return view;
  const positions: number[] = [];
  for (let start = 0; ; start += limit - 1) {
    const end = Math.min(start + limit, view.length);
    for (let i = start; i < end; i++) positions.push(i);
    if (end >= view.length) break;
  }
  return served(view, positions);
}

/** When the records fill the last page exactly, one more page repeats that page before the end. */
export function fullLastPageRepeated(view: ScrollView, limit: number): ScrollView {
  const n = view.length;
  if (n === 0 || n % limit !== 0) return view;
  const positions = Array.from({ length: n + limit }, (_, i) => (i < n ? i : i - limit));
  return served(view, positions);
}

function compareValues(a: unknown, b: unknown): number {
  const scalar = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
  if (!scalar(a)) return scalar(b) ? 1 : 0;
  if (!scalar(b)) return -1;
  if (typeof a !== typeof b) return typeof a < typeof b ? -1 : 1;
  return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
}

/** Pages taken in the view's order (unsorted), each page then sorted on its own by the field. */
export function sortedEachPage(
  view: ScrollView,
  field: string,
  reversed: boolean,
  limit: number,
): ScrollView {
  const positions: number[] = [];
  for (let start = 0; start < view.length; start += limit) {
    const page = Array.from({ length: Math.min(limit, view.length - start) }, (_, i) => start + i);
    page.sort((i, j) => compareValues(fieldOf(view.at(i), field), fieldOf(view.at(j), field)) || i - j);
    positions.push(...(reversed ? page.reverse() : page));
  }
  return served(view, positions);
}
