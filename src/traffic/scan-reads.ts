// "None skipped, as far as the observed pages show" (SCAN-04): two complete reads of the same scan (same
// method and path, so the same tenant and scan, and the same query but for the page size) with no write
// observed between them must show the same records. A record one read shows and the other lacks was
// skipped by one of them: the service is at fault. Where a write came between them (a delete task, a
// configuration change, any request that is not a read), a task accepted before them had not shown itself
// over (a delete task works after its answer, at a moment no exchange shows), exchanges were not judged
// between them (a proxy's full judge queue: one may have been a write), or a read was not complete
// (abandoned, dropped, too long to keep, a repeat in it), the traffic cannot decide: undecided, never a
// pass. Memory: the last complete read of at most MAX_KEPT scans, each its record keys (bounded per scroll
// by the caller), and the ids of the tasks still running (bounded).
import { isObject } from "../contract/index.ts";
import { parseJson } from "../rules/caller/traffic.ts";
import type { ObservedExchange } from "./service-rule.ts";
import type { Tally } from "./tally.ts";

/** Scans whose last complete read is kept to compare with the next; the least recent forgotten. */
const MAX_KEPT = 64;

/** Methods that read; any other request of the interface may change what a scan shows. */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const WRITE_BETWEEN = "reads of one scan with a write observed between them (or during one)";
export const TASK_RUNNING =
  "reads of one scan while a task accepted before them had not shown itself over (its work lands unseen)";
export const GAP_BETWEEN = "reads of one scan with exchanges not judged between them (or during one)";
/** Tasks followed as running; past it the oldest is kept running for good (never forgotten as over). */
const MAX_RUNNING = 1_000;
/** A task status that says it is over, done or not (delete-task.ts reads which). */
const OVER = /^(completed?|done|succeeded|success(ful)?|finished|failed|failure|error|cancell?ed|aborted)$/i;

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
  /** Tasks accepted and not shown over yet, by tenant path and id: while any runs, what a scan shows may
   *  change at any moment, so every exchange counts as a write. */
  private readonly running = new Set<string>();
  /** A task too many to follow: the state is never known settled again. */
  private runningForGood = false;
  /** The last epochs a running task and a gap of exchanges not judged moved. */
  private lastTaskEpoch = -1;
  private lastGapEpoch = -1;
  /** Scans whose last read had exchanges not judged during it: the next complete read has nothing sure
   *  to be compared with (undecided, not unexercised). */
  private readonly spoiled = new Set<string>();

  constructor(
    private readonly tally: () => Tally,
    private readonly scans: ReadonlySet<string>,
  ) {}

  /** Every exchange of the interface, answered or not: a request that is not a read is a write. */
  see(x: ObservedExchange): void {
    if (this.running.size > 0 || this.runningForGood) {
      this.epoch += 1;
      this.lastTaskEpoch = this.epoch;
    }
    if (x.operation === "createTask" || x.operation === "getTask") this.task(x);
    if (READ_METHODS.has(x.method) || this.scans.has(x.operation ?? "") || x.operation === "issueToken")
      return;
    this.epoch += 1;
  }

  /** Exchanges the judge never saw (a proxy's full queue): any of them may have been a write. */
  gap(): void {
    this.epoch += 1;
    this.lastGapEpoch = this.epoch;
  }

  /** A task accepted (running until shown over), or read over. */
  private task(x: ObservedExchange): void {
    const answer = x.status >= 200 && x.status < 300 ? parseJson(x.responseBody) : undefined;
    const status = isObject(answer) && typeof answer.status === "string" ? answer.status : "";
    if (x.operation === "getTask") {
      if (OVER.test(status)) this.running.delete(x.pathname);
      return;
    }
    // Not answered, or answered without saying: it may run all the same.
    if (OVER.test(status)) return;
    const id =
      isObject(answer) && (typeof answer.id === "string" || typeof answer.id === "number")
        ? answer.id
        : undefined;
    if (id === undefined) {
      this.runningForGood = true;
      return;
    }
    this.running.add(`${x.pathname}/${encodeURIComponent(String(id))}`);
    if (this.running.size > MAX_RUNNING) this.runningForGood = true;
  }

  /** Why the state may have changed since epoch `from`. */
  private changedWhy(from: number): string {
    if (this.lastGapEpoch > from) return GAP_BETWEEN;
    if (this.lastTaskEpoch > from) return TASK_RUNNING;
    return WRITE_BETWEEN;
  }

  /** A read of scan `key` ended: complete (first page to the end, every key kept) or not. */
  ended(
    key: string,
    read: { keys: ReadonlySet<string>; epoch: number } | undefined,
    x: ObservedExchange,
  ): void {
    const before = this.last.get(key);
    if (read !== undefined && before === undefined && this.spoiled.delete(key)) {
      this.tally().undecide(GAP_BETWEEN);
      if (read.epoch !== this.epoch) return;
    }
    if (read !== undefined && read.epoch !== this.epoch && this.lastGapEpoch > read.epoch) {
      this.spoiled.add(key);
      if (this.spoiled.size > MAX_KEPT) this.spoiled.delete(this.spoiled.values().next().value as string);
    }
    if (read === undefined || read.epoch !== this.epoch) {
      if (before !== undefined)
        this.tally().undecide(read === undefined ? INCOMPLETE : this.changedWhy(read.epoch));
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
      tally.undecide(this.changedWhy(before.epoch));
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
