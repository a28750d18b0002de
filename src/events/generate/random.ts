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
    const keys = Object.keys(weights) as K[];
    return keys[this.weightedIndex(keys.map((key) => weights[key]))] as K;
  }
  /** The index of a weight drawn in proportion to the weights (negative ones count as 0). */
  weightedIndex(weights: readonly number[]): number {
    if (weights.length === 0) throw new Error("Random.weighted: no weights");
    let total = 0;
    for (const w of weights) total += Math.max(0, w);
    let roll = this.next() * total;
    for (let i = 0; i < weights.length; i += 1) {
      roll -= Math.max(0, weights[i] as number);
      if (roll < 0) return i;
    }
    return weights.length - 1;
  }
}
