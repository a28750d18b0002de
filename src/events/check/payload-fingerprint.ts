// A 46-bit fingerprint of a parsed payload that is the same for the same data whatever its key order and
// spacing, so the stream rules tell a redelivery (serialized again) from a reused objectVersion. It hashes
// the parsed value directly, two independent 32-bit hashes in one walk, instead of building canonical JSON
// text first: that text costs about twice a JSON.parse of the message (bench/events.ts), the walk a fraction.
//
// Objects are hashed order-independently (a sum of key/value pair hashes), arrays in order; every kind
// of value has its own seed, so "1", 1 and [1] differ. Two different payloads share a fingerprint with odds
// of about 2^-46; equal data (canonicalJson equal) always does.

/** murmur3's finalizer: spreads every input bit over the 32 output bits. */
function mix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

const seeds = {
  null: [0x1b873593, 0x2f2e3d4c],
  true: [0x5f356495, 0x4cf5ad43],
  false: [0x6b43a9b5, 0x7a3f8d21],
  number: [0x27d4eb2f, 0x165667b1],
  string: [0x9e3779b1, 0x3c6ef372],
  array: [0x85ebca77, 0xc2b2ae3d],
  object: [0x61c88647, 0x7feb352d],
} as const;

/** Pair of hashes, written into `out` to avoid allocating per value. */
const out = new Uint32Array(2);

function hashString(text: string, seedA: number, seedB: number): void {
  const length = text.length;
  let a = seedA ^ length;
  let b = seedB ^ Math.imul(length, 0x9e3779b1);
  // Two UTF-16 code units per step, packed into one 32-bit word: every bit of both goes in, in half the
  // steps (the length, hashed in above, tells "ab" + "" from "a" + "b"; an odd last unit goes in alone).
  const even = length & ~1;
  let index = 0;
  for (; index < even; index += 2) {
    const code = text.charCodeAt(index) | (text.charCodeAt(index + 1) << 16);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul((b + code) | 0, 0x5bd1e995) ^ (b >>> 15);
  }
  if (index < length) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul((b + code) | 0, 0x5bd1e995) ^ (b >>> 15);
  }
  out[0] = mix(a);
  out[1] = mix(b ^ 0x27d4eb2f);
}

/** Hashes of object keys: the same few dozen keys come back in every message, so each is hashed once
 *  (bounded, so a stream of ever new keys cannot grow it without end). */
const keyIndex = new Map<string, number>();
const MAX_KEYS = 4096;
const keyHashes = new Uint32Array(MAX_KEYS * 2);

function hashKey(key: string): void {
  const known = keyIndex.get(key);
  if (known !== undefined) {
    out[0] = keyHashes[known] as number;
    out[1] = keyHashes[known + 1] as number;
    return;
  }
  hashString(key, 0x3243f6a8, 0x85a308d3);
  if (keyIndex.size < MAX_KEYS) {
    const at = keyIndex.size * 2;
    keyIndex.set(key, at);
    keyHashes[at] = out[0] as number;
    keyHashes[at + 1] = out[1] as number;
  }
}

function hashValue(value: unknown): void {
  if (typeof value === "string") {
    hashString(value, seeds.string[0], seeds.string[1]);
    return;
  }
  if (typeof value === "number") {
    // Integers (the usual case) by value; others by their JSON text, which JSON.parse gave them.
    if (Number.isInteger(value) && Math.abs(value) < 2 ** 31) {
      out[0] = mix(seeds.number[0] ^ (value | 0));
      out[1] = mix(Math.imul(seeds.number[1] ^ (value | 0), 0x9e3779b1));
    } else hashString(Number.isFinite(value) ? String(value) : "null", seeds.number[1], seeds.number[0]);
    return;
  }
  if (value === true || value === false) {
    const seed = value ? seeds.true : seeds.false;
    out[0] = seed[0];
    out[1] = seed[1];
    return;
  }
  if (value === null || typeof value !== "object") {
    out[0] = seeds.null[0];
    out[1] = seeds.null[1];
    return;
  }
  if (Array.isArray(value)) {
    let a: number = seeds.array[0] ^ value.length;
    let b = seeds.array[1] ^ Math.imul(value.length, 0x85ebca6b);
    for (const item of value) {
      hashValue(item);
      a = mix((Math.imul(a, 31) + (out[0] as number)) | 0);
      b = mix(Math.imul(b ^ (out[1] as number), 0x5bd1e995));
    }
    out[0] = a;
    out[1] = b;
    return;
  }
  // Objects: a sum of pair hashes, so key order does not matter; each pair binds its key to its value.
  let a: number = seeds.object[0];
  let b: number = seeds.object[1];
  let count = 0;
  for (const key in value as Record<string, unknown>) {
    if (!Object.hasOwn(value, key)) continue;
    count += 1;
    hashKey(key);
    const keyA = out[0] as number;
    const keyB = out[1] as number;
    hashValue((value as Record<string, unknown>)[key]);
    a = (a + mix(Math.imul(keyA, 0x01000193) ^ (out[0] as number))) | 0;
    b = (b + mix((keyB + Math.imul(out[1] as number, 0x5bd1e995)) | 0)) | 0;
  }
  out[0] = mix(a ^ count);
  out[1] = mix(b ^ Math.imul(count, 0x27d4eb2f));
}

/**
 * The fingerprint of a value that came from JSON.parse, below 2^46. Recursion follows the value's
 * nesting, which the checker bounds before it calls this (CheckOptions.maxDepth).
 */
export function payloadFingerprint(value: unknown): number {
  hashValue(value);
  return (out[0] as number) * 16384 + ((out[1] as number) & 0x3fff);
}
