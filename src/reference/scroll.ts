// Open scrolls. A scroll does not copy records: it keeps a view of the array it was opened on (the
// table's shared identity-ordered array, which is replaced, never mutated, when lookups change), read
// forwards or backwards, plus, when a filter picked records, an index of positions of its own (4 bytes per
// entry; scan-order.ts). Index entries across open scrolls are bounded by a budget: opening a scroll over
// the budget closes the least recently used others (their ids then answer "unknown scroll id").
import type { ScrollView } from "./scan-order.ts";
import { randomUuid } from "./web.ts";

/** Scrolls expire after this long without use (docs/assumptions.md, "Scans"). */
export const SCROLL_IDLE_MS = 5 * 60 * 1000;
/** Bound on open scrolls so abandoned ones cannot exhaust memory; the least recently used goes first. */
export const MAX_OPEN_SCROLLS = 10_000;
/** Bound on index entries (positions) held by all open scrolls together: 4 MB of Uint32 positions. */
export const MAX_RETAINED_ENTRIES = 1_000_000;
/** What an open scroll costs besides its index, for the byte figure (object, id, map entry). */
const SCROLL_OVERHEAD_BYTES = 256;

export interface Scroll {
  readonly id: string;
  /** Which scan and tenant the scroll belongs to; an id used on another scan is unknown there. */
  readonly scope: string;
  readonly view: ScrollView;
  /** Number of records the scroll serves. */
  readonly length: number;
  readonly limit: number;
  position: number;
  lastUsedAt: number;
  /** Answers given after the last record (variants that signal the end with empty pages count them). */
  endAnswers: number;
}

/** Records [start, end) of a scroll, in serving order. */
export function slice(scroll: Scroll, start: number, end: number): object[] {
  const out: object[] = [];
  for (let i = Math.max(0, start); i < Math.min(end, scroll.length); i++) out.push(scroll.view.at(i));
  return out;
}

export class ScrollStore {
  private readonly open = new Map<string, Scroll>();
  private entries = 0;

  constructor(private readonly maxEntries = MAX_RETAINED_ENTRIES) {}

  get size(): number {
    return this.open.size;
  }

  /** Index entries held by open scrolls (the budgeted quantity). */
  get retainedEntries(): number {
    return this.entries;
  }

  /** Bytes the open scrolls hold beyond the shared record arrays: indexes plus a fixed overhead each. */
  get retainedBytes(): number {
    return this.entries * 4 + this.open.size * SCROLL_OVERHEAD_BYTES;
  }

  create(scope: string, view: ScrollView, limit: number, now: number): Scroll {
    this.closeIdleFirst(now);
    const cost = view.ownEntries;
    if (this.open.size >= MAX_OPEN_SCROLLS || this.entries + cost > this.maxEntries) this.sweep(now);
    // Least recently used first (Map order); the new scroll itself is always admitted. Over the entry
    // budget only scrolls holding entries go: closing a plain view would free nothing of it.
    for (const [oldest, scroll] of this.open) {
      const tooMany = this.open.size >= MAX_OPEN_SCROLLS;
      const tooBig = this.entries + cost > this.maxEntries;
      if (!tooMany && !tooBig) break;
      if (tooMany || scroll.view.ownEntries > 0) this.close(oldest);
    }
    const scroll: Scroll = {
      id: randomUuid(),
      scope,
      view,
      length: view.length,
      limit,
      position: 0,
      lastUsedAt: now,
      endAnswers: 0,
    };
    this.open.set(scroll.id, scroll);
    this.entries += cost;
    return scroll;
  }

  /** The open scroll, or undefined when the id is unknown, expired or belongs to another scan. */
  take(id: string, scope: string, now: number): Scroll | undefined {
    this.closeIdleFirst(now);
    const scroll = this.open.get(id);
    if (!scroll || scroll.scope !== scope) return undefined;
    if (now - scroll.lastUsedAt >= SCROLL_IDLE_MS) {
      this.close(id);
      return undefined;
    }
    // Re-insert so Map order stays least-recently-used first.
    this.open.delete(id);
    this.open.set(id, scroll);
    scroll.lastUsedAt = now;
    return scroll;
  }

  /** The scan and tenant an open scroll belongs to (only the scroll-id-continues-on-any-path fault asks). */
  scopeOf(id: string): string | undefined {
    return this.open.get(id)?.scope;
  }

  /** A new id for an open scroll (the scroll-id-per-page variant): its earlier id is unknown from now on. */
  renew(scroll: Scroll): string {
    const id = randomUuid();
    this.open.delete(scroll.id);
    (scroll as { id: string }).id = id;
    this.open.set(id, scroll);
    return id;
  }

  /** Closes every open scroll holding an index of its own (only the scan-opening-closes-indexed-scrolls
   *  fault asks). */
  closeIndexed(): void {
    for (const [id, scroll] of this.open) if (scroll.view.ownEntries > 0) this.close(id);
  }

  close(id: string): void {
    const scroll = this.open.get(id);
    if (!scroll) return;
    this.open.delete(id);
    this.entries -= scroll.view.ownEntries;
  }

  /** The open scrolls (after sweeping expired ones): which scan, how far read, idle since when. */
  list(now: number): { scope: string; position: number; length: number; lastUsedAt: number }[] {
    this.sweep(now);
    return [...this.open.values()].map(({ scope, position, length, lastUsedAt }) => ({
      scope,
      position,
      length,
      lastUsedAt,
    }));
  }

  clear(): void {
    this.open.clear();
    this.entries = 0;
  }

  /**
   * Closes the expired scrolls at the front: the Map is least recently used first, so they are the idle
   * ones, and each request pays only for those it frees. Abandoned scrolls thus go once they expire, not
   * only when the bounds are reached.
   */
  private closeIdleFirst(now: number): void {
    for (const [id, scroll] of this.open) {
      if (now - scroll.lastUsedAt < SCROLL_IDLE_MS) return;
      this.close(id);
    }
  }

  sweep(now: number): void {
    for (const [id, scroll] of this.open) {
      if (now - scroll.lastUsedAt >= SCROLL_IDLE_MS) this.close(id);
    }
  }
}
