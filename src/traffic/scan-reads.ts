// "None skipped, as far as the observed pages show" (SCAN-04): two complete reads of the same scan (same
// method and path, so the same tenant and scan, and the same query but for the page size) with no write
// observed between them must show the same records. A record one read shows and the other lacks was
// skipped by one of them: the service is at fault. Where a write came between them (a delete task, a
// configuration change, any request that is not a read), or a read was not complete (abandoned, dropped,
// too long to keep, a repeat in it), the traffic cannot decide: undecided, never a pass. Memory: the last
// complete read of at most MAX_KEPT scans, each its record keys (bounded per scroll by the caller).
import type { ObservedExchange } from "./service-rule.ts";
import type { Tally } from "./tally.ts";

/** Scans whose last complete read is kept to compare with the next; the least recent forgotten. */
const MAX_KEPT = 64;

/** Methods that read; any other request of the interface may change what a scan shows. */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const WRITE_BETWEEN = "reads of one scan with a write observed between them (or during one)";
export const INCOMPLETE = "reads of a scan read completely before that were not complete themselves";

/** What one complete read showed. */
interface Read {
  keys: ReadonlySet<string>;
  /** The writes observed before its first page. */
  epoch: number;
  lastSeq: number;
}

/** The scan a first page belongs to: method, path, query but for the page size, and the body it was asked
 *  with (where a scan takes its parameters in the body, two bodies are two scans). */
export function scanKeyOf(x: Pick<ObservedExchange, "method" | "pathname" | "search" | "body">): string {
  const query = new URLSearchParams(x.search);
  query.delete("limit");
  query.delete("scrollId");
  query.sort();
  const body = x.body?.trim() ?? "";
  return `${x.method} ${x.pathname}?${query}${body === "" ? "" : ` ${body}`}`;
}

export class ScanReads {
  /** Writes observed so far. */
  epoch = 0;
  private readonly last = new Map<string, Read>();

  constructor(
    private readonly tally: () => Tally,
    private readonly scans: ReadonlySet<string>,
  ) {}

  /** Every exchange of the interface, answered or not: a request that is not a read is a write. */
  see(x: ObservedExchange): void {
    if (READ_METHODS.has(x.method) || this.scans.has(x.operation ?? "") || x.operation === "issueToken")
      return;
    this.epoch += 1;
  }

  /** A read of scan `key` ended: complete (first page to the end, every key kept) or not. */
  ended(
    key: string,
    read: { keys: ReadonlySet<string>; epoch: number } | undefined,
    x: ObservedExchange,
  ): void {
    const before = this.last.get(key);
    if (read === undefined || read.epoch !== this.epoch) {
      if (before !== undefined) this.tally().undecide(read === undefined ? INCOMPLETE : WRITE_BETWEEN);
      // A read with a write during it shows no one state: nothing to compare the next read with.
      if (read !== undefined) this.last.delete(key);
      return;
    }
    this.last.delete(key);
    this.last.set(key, { ...read, lastSeq: x.seq });
    if (this.last.size > MAX_KEPT) this.last.delete(this.last.keys().next().value as string);
    if (before === undefined) return;
    const tally = this.tally();
    if (before.epoch !== read.epoch) {
      tally.undecide(WRITE_BETWEEN);
      return;
    }
    tally.opportunities += 1;
    const lacks = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
      for (const k of a) if (!b.has(k)) return k;
      return undefined;
    };
    const missingNow = lacks(before.keys, read.keys);
    const missingBefore = missingNow === undefined ? lacks(read.keys, before.keys) : undefined;
    if (missingNow !== undefined)
      tally.violate(
        x.seq,
        `${key}: record ${missingNow}, shown by the complete read of the same scan ending at #${before.lastSeq}, is missing from this complete read (${read.keys.size} records against ${before.keys.size}), with no write observed between them`,
      );
    else if (missingBefore !== undefined)
      tally.violate(
        x.seq,
        `${key}: record ${missingBefore} of this complete read is missing from the complete read of the same scan ending at #${before.lastSeq} (${before.keys.size} records against ${read.keys.size}), with no write observed between them`,
      );
  }
}
