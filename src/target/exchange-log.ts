// The run's record of exchanges, which the schema suite validates per operation: bounded in bytes so a
// target sending fat pages for the whole run cannot exhaust the heap. It keeps variety over volume: the
// newest few per kind of exchange (method, path, status class), and evicts from the fullest kind first.
import type { Exchange } from "../check/index.ts";

export const DEFAULT_LOG_BYTES = 16 * 1024 * 1024;
/** Exchanges kept per kind: enough for the schema suite to see each operation's answers vary. */
export const PER_KIND = 16;

interface Entry {
  seq: number;
  exchange: Exchange;
  bytes: number;
}

export class ExchangeLog {
  private readonly kinds = new Map<string, Entry[]>();
  private bytes = 0;
  private seq = 0;
  /** Exchanges recorded and later evicted (for diagnostics). */
  evicted = 0;

  constructor(private readonly budget: number = DEFAULT_LOG_BYTES) {}

  add(exchange: Exchange): void {
    const key = kindOf(exchange);
    let list = this.kinds.get(key);
    if (!list) {
      list = [];
      this.kinds.set(key, list);
    }
    const entry = { seq: this.seq++, exchange, bytes: sizeOf(exchange) };
    list.push(entry);
    this.bytes += entry.bytes;
    if (list.length > PER_KIND) this.drop(key, list);
    while (this.bytes > this.budget && this.kinds.size > 0) {
      const fullest = this.fullest();
      if (!fullest) break;
      this.drop(fullest[0], fullest[1]);
    }
  }

  /** What the log holds, oldest first. */
  all(): Exchange[] {
    return [...this.kinds.values()]
      .flat()
      .sort((a, b) => a.seq - b.seq)
      .map((e) => e.exchange);
  }

  get size(): { exchanges: number; bytes: number } {
    let exchanges = 0;
    for (const list of this.kinds.values()) exchanges += list.length;
    return { exchanges, bytes: this.bytes };
  }

  private drop(key: string, list: Entry[]): void {
    const gone = list.shift();
    if (gone) {
      this.bytes -= gone.bytes;
      this.evicted += 1;
    }
    if (list.length === 0) this.kinds.delete(key);
  }

  /** The kind holding most entries (ties: the one whose oldest entry is oldest). */
  private fullest(): [string, Entry[]] | undefined {
    let best: [string, Entry[]] | undefined;
    for (const pair of this.kinds) {
      const [, list] = pair;
      if (
        !best ||
        list.length > best[1].length ||
        (list.length === best[1].length && (list[0]?.seq ?? 0) < (best[1][0]?.seq ?? 0))
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
