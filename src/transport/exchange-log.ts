// The run's record of exchanges, which the schema suite validates per operation: bounded in bytes so a
// target sending fat pages for the whole run cannot exhaust the heap. It keeps variety over volume: per
// kind of exchange (method, path, status class) the first few (an early bad answer of an operation must
// not vanish behind later good ones: the schema suite judges the traffic after the other checks) and the
// newest few; over the byte budget it evicts from the fullest kind, newest-pool first, the first answers last.
import type { Exchange } from "../check/index.ts";

export const DEFAULT_LOG_BYTES = 16 * 1024 * 1024;
/** Newest exchanges kept per kind: enough for the schema suite to see each operation's answers vary. */
export const PER_KIND = 16;
/** First exchanges kept per kind, beside the newest: the earliest answers of each operation. */
export const FIRST_PER_KIND = 4;

interface Entry {
  seq: number;
  exchange: Exchange;
  bytes: number;
}

interface Kind {
  first: Entry[];
  newest: Entry[];
}

export class ExchangeLog {
  private readonly kinds = new Map<string, Kind>();
  private bytes = 0;
  private seq = 0;
  /** Exchanges recorded and later evicted (for diagnostics). */
  evicted = 0;

  constructor(private readonly budget: number = DEFAULT_LOG_BYTES) {}

  /** `as`: the exchange its kind and size are read from (the same one unredacted, so that an answer
   *  redacted when first read is not read here). */
  add(exchange: Exchange, as: Exchange = exchange): void {
    const key = kindOf(as);
    let kind = this.kinds.get(key);
    if (!kind) {
      kind = { first: [], newest: [] };
      this.kinds.set(key, kind);
    }
    const entry = { seq: this.seq++, exchange, bytes: sizeOf(as) };
    // A kind's first answers are kept for good unless the budget forces them out.
    if (kind.first.length < FIRST_PER_KIND && kind.newest.length === 0) kind.first.push(entry);
    else kind.newest.push(entry);
    this.bytes += entry.bytes;
    if (kind.newest.length > PER_KIND) this.drop(key, kind, "newest");
    while (this.bytes > this.budget && this.kinds.size > 0) {
      const fullest = this.fullest("newest") ?? this.fullest("first");
      if (!fullest) break;
      this.drop(fullest[0], fullest[1], fullest[1].newest.length > 0 ? "newest" : "first");
    }
  }

  /** What the log holds, oldest first. */
  all(): Exchange[] {
    return [...this.kinds.values()]
      .flatMap((k) => [...k.first, ...k.newest])
      .sort((a, b) => a.seq - b.seq)
      .map((e) => e.exchange);
  }

  get size(): { exchanges: number; bytes: number } {
    let exchanges = 0;
    for (const k of this.kinds.values()) exchanges += k.first.length + k.newest.length;
    return { exchanges, bytes: this.bytes };
  }

  /** Drops the oldest of the kind's newest pool, or the latest of its first answers (the very first stays
   *  longest). */
  private drop(key: string, kind: Kind, pool: "first" | "newest"): void {
    const gone = pool === "newest" ? kind.newest.shift() : kind.first.pop();
    if (gone) {
      this.bytes -= gone.bytes;
      this.evicted += 1;
    }
    if (kind.first.length === 0 && kind.newest.length === 0) this.kinds.delete(key);
  }

  /** The kind holding most entries in a pool (ties: the one whose oldest entry there is oldest). */
  private fullest(pool: "first" | "newest"): [string, Kind] | undefined {
    let best: [string, Kind] | undefined;
    for (const pair of this.kinds) {
      const list = pair[1][pool];
      if (list.length === 0) continue;
      const bestList = best?.[1][pool];
      if (
        !bestList ||
        list.length > bestList.length ||
        (list.length === bestList.length && (list[0]?.seq ?? 0) < (bestList[0]?.seq ?? 0))
      )
        best = pair;
    }
    return best;
  }
}

function kindOf(exchange: Exchange): string {
  let path = exchange.request.url;
  try {
    path = new URL(exchange.request.url).pathname;
  } catch {
    // an unparsable URL is its own kind
  }
  const status = exchange.response ? `${Math.floor(exchange.response.status / 100)}xx` : "error";
  return `${exchange.request.method} ${path} ${status}`;
}

/** UTF-16 code units of the bodies and URL: what the strings cost in the heap, roughly. */
function sizeOf(exchange: Exchange): number {
  return (
    2 *
    (exchange.request.url.length +
      (exchange.request.body?.length ?? 0) +
      (exchange.response?.body.length ?? 0) +
      512)
  );
}
