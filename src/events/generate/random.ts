// The generator's seeded source of randomness.
//
// Why not fast-check's pure-rand: streams are replayed by seed (a failing stream is reported with its
// seed, and test/events/stream-seeds.test.ts pins the output of recorded ones). mulberry32 gives those
// exact sequences; pure-rand has no mulberry32 (its generators are congruential32, mersenne,
// xorshift128plus, xoroshiro128plus), so any of them would change every recorded stream. pure-rand is
// also not a dependency of the kit, only of fast-check, so importing it would rest on fast-check's own.
// Property tests draw their values from fast-check itself (arbitraries.ts); this one is for whole streams.

export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = (seed >>> 0) ^ 0x9e3779b9;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("Random.pick: no items");
    return item;
  }
  id(length = 7): string {
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let out = "";
    for (let i = 0; i < length; i += 1) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + Math.max(0, w), 0);
    let roll = this.next() * total;
    for (const [key, w] of entries) {
      roll -= Math.max(0, w);
      if (roll < 0) return key;
    }
    const last = entries.at(-1);
    if (!last) throw new Error("Random.weighted: no weights");
    return last[0];
  }
}
