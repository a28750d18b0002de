// Read once, judge many, cite exactly: the run's read checks share recordings (a whole scroll read by one
// check, judged by every check that asks for the same read). A check that judges a recording another check
// made rests on exchanges it never sent; this view of the shared recordings makes those exchanges part of
// its evidence and of its citations (CheckResult.exchangeIds, then evidence.har entries), exactly the ones
// the recording was made of.
import type { Exchange } from "../check/index.ts";
import { type CheckScope, SCOPE_EXCHANGES } from "./transport.ts";

type Recordings = Map<string, Promise<unknown>>;

/** What a recording was made of: every exchange's id, and the newest exchanges whole (evidence). */
interface Made {
  ids: number[];
  newest: Exchange[];
}

/** Per shared recordings map, what each recording was made of (dropped with the map). */
const madeOf = new WeakMap<Recordings, Map<string, Made>>();

/** The shared recordings as one check sees them: reading a recording cites its exchanges for the check,
 *  making one collects the exchanges the check sends until the recording settles. */
export function citedRecordings(shared: Recordings, scope: CheckScope): Recordings {
  let made = madeOf.get(shared);
  if (made === undefined) {
    made = new Map();
    madeOf.set(shared, made);
  }
  return new CitedRecordings(shared, made, scope);
}

class CitedRecordings extends Map<string, Promise<unknown>> {
  constructor(
    private readonly shared: Recordings,
    private readonly made: Map<string, Made>,
    private readonly scope: CheckScope,
  ) {
    super();
  }

  override get(key: string): Promise<unknown> | undefined {
    const recording = this.shared.get(key);
    const made = this.made.get(key);
    if (recording !== undefined && made !== undefined)
      // Cited once the recording is complete, before the asker's own continuation runs (registered first).
      void recording.then(
        () => this.cite(made),
        () => undefined,
      );
    return recording;
  }

  override set(key: string, recording: Promise<unknown>): this {
    // A recording set again under its key usually goes on from the one before (a scroll read further):
    // it is made of the earlier one's exchanges too.
    const before = this.made.get(key);
    this.shared.set(key, recording);
    const collected: Exchange[] = [];
    this.made.set(key, { ids: [], newest: [] });
    // The recording's requests are sent after this (a request awaits the rate limiter before it gets its
    // id), so every exchange the check stores until the recording settles belongs to it.
    const stop = this.scope.watch(collected);
    const settle = () => {
      stop();
      const made = this.made.get(key);
      if (made === undefined) return;
      const ids = collected.flatMap((x) => (x.id === undefined ? [] : [x.id]));
      made.ids = [...new Set([...(before?.ids ?? []), ...ids])];
      made.newest = [...(before?.newest ?? []), ...collected].slice(-SCOPE_EXCHANGES);
    };
    void recording.then(settle, settle);
    return this;
  }

  override has(key: string): boolean {
    return this.shared.has(key);
  }

  override delete(key: string): boolean {
    this.made.delete(key);
    return this.shared.delete(key);
  }

  override clear(): void {
    this.made.clear();
    this.shared.clear();
  }

  override get size(): number {
    return this.shared.size;
  }

  override keys(): MapIterator<string> {
    return this.shared.keys();
  }

  override values(): MapIterator<Promise<unknown>> {
    return this.shared.values();
  }

  override entries(): MapIterator<[string, Promise<unknown>]> {
    return this.shared.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, Promise<unknown>]> {
    return this.shared[Symbol.iterator]();
  }

  override forEach(
    callback: (value: Promise<unknown>, key: string, map: Map<string, Promise<unknown>>) => void,
  ): void {
    for (const [key, value] of this.shared) callback(value, key, this);
  }

  private cite(made: Made): void {
    this.scope.adopt(made.newest);
    this.scope.cite(made.ids);
  }
}
