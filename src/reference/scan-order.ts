// The order a scan serves its records in, without copying them: a view of the shared identity-ordered array
// (never mutated; replaced when records change), through an index of positions where a filter or sort
// picked or reordered records. Sorting is the cost of a scan: the full order of an array by a field is built
// once and kept beside the array (a changed array is a new one, so nothing goes stale), and a scan sorted by
// a field not ordered yet answers its first page from a partial selection, building the full order only when
// a later page needs it.

/** The records a scroll serves, in serving order. */
export interface ScrollView {
  /** Number of records served. */
  readonly length: number;
  /** The record at serving position i (0 <= i < length). */
  at(i: number): object;
  /** Index entries held by this view alone (an order shared beside the array is not counted): what the
   *  scroll store budgets. */
  readonly ownEntries: number;
}

/** How a scan picks and orders records. */
export interface ScanOrder {
  /** Records served at all (filter and scan predicate); absent: every record. */
  keep?: (record: object) => boolean;
  /** Sort field; absent: identity order. */
  field?: string;
  /** Serve in reverse: desc is the exact reverse of asc (records without the field come first). */
  reversed: boolean;
  /** How many records the first page takes: those are picked before the full order exists. */
  firstPage: number;
  /** Seeded fault: the first page's selection breaks ties by the later position, the later pages by the
   *  earlier one (scan-first-page-ties-reversed). */
  firstPageTiesReversed?: boolean;
}

type Key = string | number | boolean;

function sortKey(record: object, field: string): Key | undefined {
  if (!Object.hasOwn(record, field)) return undefined;
  const value = (record as Record<string, unknown>)[field];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : undefined;
}

const TYPE_RANK: Record<string, number> = { number: 0, string: 1, boolean: 2 };

/** Keys of different types order numbers, then strings, then booleans; within a type, by value. */
function compareKeys(a: Key, b: Key): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta !== tb) return (TYPE_RANK[ta] ?? 3) - (TYPE_RANK[tb] ?? 3);
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Ascending order of two records by key (undefined: no scalar value), then by position: records without
 *  the field last. A strict total order (positions differ), so any algorithm that sorts by it gives one
 *  result. */
function ascending(a: Key | undefined, p: number, b: Key | undefined, q: number): number {
  if (a === undefined) return b === undefined ? p - q : 1;
  if (b === undefined) return -1;
  return compareKeys(a, b) || p - q;
}

/**
 * Positions (all of base when absent) in ascending order by a field. Each record's key is read once;
 * numeric keys sort in a Float64Array and text keys without the mixed-type comparison.
 */
export function sortedPositions(
  base: readonly object[],
  positions: ArrayLike<number> | undefined,
  field: string,
): Uint32Array {
  const count = positions ? positions.length : base.length;
  const present: number[] = [];
  const keys: Key[] = [];
  const missing: number[] = [];
  let numeric = true;
  let textual = true;
  for (let j = 0; j < count; j++) {
    const i = positions ? (positions[j] as number) : j;
    const key = sortKey(base[i] as object, field);
    if (key === undefined) missing.push(i);
    else {
      present.push(i);
      keys.push(key);
      if (typeof key !== "number" || Number.isNaN(key)) numeric = false;
      if (typeof key !== "string") textual = false;
    }
  }
  const order = new Uint32Array(present.length);
  for (let j = 0; j < order.length; j++) order[j] = j;
  // present is in identity order, so comparing slots j breaks ties as identity order does.
  if (numeric) {
    const values = Float64Array.from(keys as number[]);
    order.sort((a, b) => (values[a] as number) - (values[b] as number) || a - b);
  } else if (textual) {
    const texts = keys as string[];
    order.sort((a, b) => {
      const x = texts[a] as string;
      const y = texts[b] as string;
      return x < y ? -1 : x > y ? 1 : a - b;
    });
  } else {
    order.sort((a, b) => compareKeys(keys[a] as Key, keys[b] as Key) || a - b);
  }
  const sorted = new Uint32Array(present.length + missing.length);
  for (let j = 0; j < order.length; j++) sorted[j] = present[order[j] as number] as number;
  for (let j = 0; j < missing.length; j++) sorted[present.length + j] = missing[j] as number;
  return sorted;
}

/** Full orders kept beside one array, most recently used last: at most this many positions in all (16 MB),
 *  and always the latest one. */
export const MAX_ORDER_ENTRIES = 4_000_000;
const orders = new WeakMap<readonly object[], Map<string, Uint32Array>>();

/** The full ascending order of `base` by `field` if it was built already. */
function keptOrder(base: readonly object[], field: string): Uint32Array | undefined {
  const kept = orders.get(base);
  const order = kept?.get(field);
  if (kept && order) {
    kept.delete(field);
    kept.set(field, order);
  }
  return order;
}

/** The full ascending order of `base` by `field`, built now if it was not. */
export function fullOrder(
  base: readonly object[],
  field: string,
  maxEntries: number = MAX_ORDER_ENTRIES,
): Uint32Array {
  const found = keptOrder(base, field);
  if (found) return found;
  const order = sortedPositions(base, undefined, field);
  let kept = orders.get(base);
  if (!kept) {
    kept = new Map();
    orders.set(base, kept);
  }
  kept.set(field, order);
  let entries = 0;
  for (const o of kept.values()) entries += o.length;
  for (const [name, o] of kept) {
    if (entries <= maxEntries || name === field) break;
    kept.delete(name);
    entries -= o.length;
  }
  return order;
}

function indexView(
  base: readonly object[],
  index: Uint32Array,
  reversed: boolean,
  ownEntries: number,
): ScrollView {
  const n = index.length;
  return {
    length: n,
    ownEntries,
    at: (i) => base[index[reversed ? n - 1 - i : i] as number] as object,
  };
}

/** The positions of `base` a predicate keeps, in the order of `from` (identity order when absent). */
function kept(base: readonly object[], keep: (record: object) => boolean, from?: Uint32Array): Uint32Array {
  const out: number[] = [];
  const n = from ? from.length : base.length;
  for (let j = 0; j < n; j++) {
    const i = from ? (from[j] as number) : j;
    if (keep(base[i] as object)) out.push(i);
  }
  return Uint32Array.from(out);
}

/**
 * The first `count` positions in serving order, by selection through a bounded heap (O(n log count), each
 * record's key read once), not a full sort: the same positions, in the same order, as the full order's
 * first ones.
 */
function firstInOrder(
  base: readonly object[],
  candidates: Uint32Array | undefined,
  field: string,
  reversed: boolean,
  count: number,
  tiesReversed = false,
): number[] {
  const total = candidates ? candidates.length : base.length;
  // Serving order: ascending, or its exact reverse.
  const asc = tiesReversed
    ? (a: Key | undefined, p: number, b: Key | undefined, q: number) => ascending(a, -p, b, -q)
    : ascending;
  const serve = reversed
    ? (a: Key | undefined, p: number, b: Key | undefined, q: number) => asc(b, q, a, p)
    : asc;
  // A max-heap (by serving order) of the best `count` seen so far: its root is the worst of them.
  const positions: number[] = [];
  const keys: (Key | undefined)[] = [];
  const worse = (i: number, j: number) =>
    serve(keys[i], positions[i] as number, keys[j], positions[j] as number) > 0;
  const swap = (i: number, j: number) => {
    [positions[i], positions[j]] = [positions[j] as number, positions[i] as number];
    [keys[i], keys[j]] = [keys[j], keys[i]];
  };
  // Ties go to the earlier position in serving order: visiting the records in that direction (backwards
  // for desc) lets a tie with the root be turned away at once, so few distinct keys cost no more than many.
  for (let n = 0; n < total && count > 0; n++) {
    const j = reversed ? total - 1 - n : n;
    const p = candidates ? (candidates[j] as number) : j;
    const key = sortKey(base[p] as object, field);
    if (positions.length < count) {
      positions.push(p);
      keys.push(key);
      for (let i = positions.length - 1; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1)
        swap(i, (i - 1) >> 1);
    } else if (serve(key, p, keys[0], positions[0] as number) < 0) {
      positions[0] = p;
      keys[0] = key;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let top = i;
        if (l < positions.length && worse(l, top)) top = l;
        if (r < positions.length && worse(r, top)) top = r;
        if (top === i) break;
        swap(i, top);
        i = top;
      }
    }
  }
  const order = positions
    .map((_, i) => i)
    .sort((i, j) => serve(keys[i], positions[i] as number, keys[j], positions[j] as number));
  return order.map((i) => positions[i] as number);
}

/** A sorted view whose first page is known before the full order: the rest is built on first need. */
function lazySortedView(
  base: readonly object[],
  candidates: Uint32Array | undefined,
  field: string,
  reversed: boolean,
  firstPage: number,
  tiesReversed: boolean,
): ScrollView {
  const total = candidates ? candidates.length : base.length;
  let head: Uint32Array | undefined = Uint32Array.from(
    firstInOrder(base, candidates, field, reversed, Math.min(firstPage, total), tiesReversed),
  );
  let rest: ScrollView | undefined;
  const full = (): ScrollView => {
    if (!rest) {
      const order = fullOrder(base, field);
      if (!candidates) rest = indexView(base, order, reversed, 0);
      else {
        // The candidates in sorted order: the full order, restricted to them.
        const member = new Uint8Array(base.length);
        for (const p of candidates) member[p] = 1;
        const index = new Uint32Array(total);
        let j = 0;
        for (const p of order) if (member[p] === 1) index[j++] = p;
        rest = indexView(base, index, reversed, total);
        candidates = undefined;
      }
      head = undefined;
    }
    return rest;
  };
  orderSoon(base, field);
  return {
    length: total,
    ownEntries: candidates ? total : 0,
    at: (i) => (head && i < head.length ? (base[head[i] as number] as object) : full().at(i)),
  };
}

const scheduled = new WeakMap<readonly object[], Set<string>>();

/**
 * Builds the full order of `base` by `field` once the current answer is on its way: the scroll's later
 * pages, and the scans after it that sort by the field, then take it as it is instead of selecting again.
 */
function orderSoon(base: readonly object[], field: string): void {
  let fields = scheduled.get(base);
  if (fields?.has(field)) return;
  if (!fields) {
    fields = new Set();
    scheduled.set(base, fields);
  }
  fields.add(field);
  setImmediate(() => {
    fields.delete(field);
    fullOrder(base, field);
  });
}

/**
 * The view a scan opens: identity order, a filtered index, a full order kept beside the array (shared by
 * every scroll that sorts by the field and filters nothing), or the same filtered in sorted order; a sort by
 * a field not ordered yet picks its first page without sorting everything.
 */
export function scanView(base: readonly object[], order: ScanOrder): ScrollView {
  const { keep, field, reversed } = order;
  if (field === undefined) {
    if (!keep) {
      const n = base.length;
      return { length: n, ownEntries: 0, at: (i) => base[reversed ? n - 1 - i : i] as object };
    }
    const index = kept(base, keep);
    return indexView(base, index, reversed, index.length);
  }
  // A first page that is not a small part of the records gains nothing from selection: sort them all.
  const found =
    keptOrder(base, field) ?? (order.firstPage * 16 >= base.length ? fullOrder(base, field) : undefined);
  if (found) {
    if (!keep) return indexView(base, found, reversed, 0);
    const index = kept(base, keep, found);
    return indexView(base, index, reversed, index.length);
  }
  return lazySortedView(
    base,
    keep ? kept(base, keep) : undefined,
    field,
    reversed,
    order.firstPage,
    order.firstPageTiesReversed === true,
  );
}
