// The lookups of one tenant, with a cached identity-ordered view so a scan opens without re-sorting.
import type { Lookup } from "./types.ts";

export function lookupKey(type: string, code: string): string {
  return `${type}\u0000${code}`;
}

/** Identity order of lookups: type, then code, by UTF-16 code units. */
export function compareLookupIdentity(a: Lookup, b: Lookup): number {
  if (a.type !== b.type) return a.type < b.type ? -1 : 1;
  if (a.code !== b.code) return a.code < b.code ? -1 : 1;
  return 0;
}

export class LookupTable {
  private readonly byKey = new Map<string, Lookup>();
  private ordered: readonly Lookup[] | undefined;

  get size(): number {
    return this.byKey.size;
  }

  add(lookup: Lookup): void {
    this.byKey.set(lookupKey(lookup.type, lookup.code), lookup);
    this.ordered = undefined;
  }

  get(type: string, code: string): Lookup | undefined {
    return this.byKey.get(lookupKey(type, code));
  }

  delete(lookup: Lookup): boolean {
    const removed = this.byKey.delete(lookupKey(lookup.type, lookup.code));
    if (removed) this.ordered = undefined;
    return removed;
  }

  /** Every lookup in identity order. The array is shared and never mutated: treat it as read-only. */
  inIdentityOrder(): readonly Lookup[] {
    if (!this.ordered) {
      // Insertion order is mostly identity order already, which TimSort handles in near-linear time.
      this.ordered = Array.from(this.byKey.values()).sort(compareLookupIdentity);
    }
    return this.ordered;
  }
}
