// Open scrolls: each holds the snapshot taken when it opened, so a page is a slice and costs O(limit).
import { randomUUID } from "node:crypto";

/** Scrolls expire after this long without use (docs/assumptions.md, "Scans"). */
export const SCROLL_IDLE_MS = 5 * 60 * 1000;
/** Bound on open scrolls so abandoned ones cannot exhaust memory; the least recently used goes first. */
const MAX_OPEN = 10_000;

export interface Scroll {
  readonly id: string;
  /** Which scan and tenant the scroll belongs to; an id used on another scan is unknown there. */
  readonly scope: string;
  readonly records: readonly object[];
  readonly limit: number;
  position: number;
  lastUsedAt: number;
}

export class ScrollStore {
  private readonly open = new Map<string, Scroll>();

  get size(): number {
    return this.open.size;
  }

  create(scope: string, records: readonly object[], limit: number, now: number): Scroll {
    if (this.open.size >= MAX_OPEN) this.sweep(now);
    while (this.open.size >= MAX_OPEN) {
      const oldest = this.open.keys().next().value;
      if (oldest === undefined) break;
      this.open.delete(oldest);
    }
    const scroll: Scroll = { id: randomUUID(), scope, records, limit, position: 0, lastUsedAt: now };
    this.open.set(scroll.id, scroll);
    return scroll;
  }

  /** The open scroll, or undefined when the id is unknown, expired or belongs to another scan. */
  take(id: string, scope: string, now: number): Scroll | undefined {
    const scroll = this.open.get(id);
    if (!scroll || scroll.scope !== scope) return undefined;
    if (now - scroll.lastUsedAt >= SCROLL_IDLE_MS) {
      this.open.delete(id);
      return undefined;
    }
    // Re-insert so Map order stays least-recently-used first.
    this.open.delete(id);
    this.open.set(id, scroll);
    scroll.lastUsedAt = now;
    return scroll;
  }

  close(id: string): void {
    this.open.delete(id);
  }

  sweep(now: number): void {
    for (const [id, scroll] of this.open) {
      if (now - scroll.lastUsedAt >= SCROLL_IDLE_MS) this.open.delete(id);
    }
  }
}
