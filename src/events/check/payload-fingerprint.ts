// A 46-bit fingerprint of a parsed payload that is the same for the same data whatever its key order and
// spacing, so the stream rules tell a redelivery (serialized again) from a reused objectVersion. It hashes
// the parsed value directly, two independent 32-bit hashes in one walk, instead of building canonical JSON
// text first: that text costs about twice a JSON.parse of the message (bench/events.ts), the walk a fraction.
//
// Objects are hashed order-independently (a sum of key/value pair hashes), arrays in order; every kind
// of value has its own seed, so "1", 1 and [1] differ. Two different payloads share a fingerprint with odds
// of about 2^-46; equal data (canonicalJson equal) always does.
//
// The same walk answers the checker's other two questions about a parsed message, so that a message is
// walked once: does it nest deeper than the limit (checked as it descends, so the walk never goes deeper
// than the limit), and does any object have a key named lookupError (then the lookupError rule looks).

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

/** Nesting allowed by the current walk (objects and arrays, the outermost counting 1). */
let limit = Number.POSITIVE_INFINITY;
/** Set when the current walk met nesting deeper than `limit`; the walk stops there. */
let tooDeep = false;
/** Set when the current walk met an object key named lookupError. */
let lookupError = false;

/** 2^32, to split a safe integer into two 32-bit halves. */
const twoTo32 = 4294967296;

/** Hashes `value`, whose enclosing objects and arrays number `depth`. */
function hashValue(value: unknown, depth: number): void {
  if (typeof value === "string") {
    hashString(value, seeds.string[0], seeds.string[1]);
    return;
  }
  if (typeof value === "number") {
    // Integers (the usual case) by value, in 32-bit halves beyond 2^31 (epoch-millisecond times); others
    // by their JSON text, which JSON.parse gave them.
    if (Number.isInteger(value) && Math.abs(value) < 2 ** 31) {
      out[0] = mix(seeds.number[0] ^ (value | 0));
      out[1] = mix(Math.imul(seeds.number[1] ^ (value | 0), 0x9e3779b1));
    } else if (Number.isSafeInteger(value)) {
      const high = Math.floor(value / twoTo32);
      const low = value - high * twoTo32;
      out[0] = mix(mix(seeds.number[1] ^ low) ^ Math.imul(high, 0x85ebca6b));
      out[1] = mix(Math.imul(mix(seeds.number[0] ^ high), 0x9e3779b1) ^ low);
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
  const level = depth + 1;
  if (level > limit) {
    tooDeep = true;
    return;
  }
  if (Array.isArray(value)) {
    let a: number = seeds.array[0] ^ value.length;
    let b = seeds.array[1] ^ Math.imul(value.length, 0x85ebca6b);
    for (const item of value) {
      hashValue(item, level);
      if (tooDeep) return;
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
    if (key === "lookupError") lookupError = true;
    // Keys are short: hashing them again is as cheap as looking a cached hash up.
    hashString(key, 0x3243f6a8, 0x85a308d3);
    const keyA = out[0] as number;
    const keyB = out[1] as number;
    hashValue((value as Record<string, unknown>)[key], level);
    if (tooDeep) return;
    a = (a + mix(Math.imul(keyA, 0x01000193) ^ (out[0] as number))) | 0;
    b = (b + mix((keyB + Math.imul(out[1] as number, 0x5bd1e995)) | 0)) | 0;
  }
  out[0] = mix(a ^ count);
  out[1] = mix(b ^ Math.imul(count, 0x27d4eb2f));
}

/** Walks `value` for nesting and lookupError only (no hash): the parts of a message the stream rules
 *  do not fingerprint, and every message when no stream rules run. */
function scanValue(value: unknown, depth: number): void {
  if (value === null || typeof value !== "object") return;
  const level = depth + 1;
  if (level > limit) {
    tooDeep = true;
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      scanValue(item, level);
      if (tooDeep) return;
    }
    return;
  }
  for (const key in value as Record<string, unknown>) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === "lookupError") lookupError = true;
    scanValue((value as Record<string, unknown>)[key], level);
    if (tooDeep) return;
  }
}

function fingerprintOut(): number {
  return (out[0] as number) * 16384 + ((out[1] as number) & 0x3fff);
}

/**
 * The fingerprint of a value that came from JSON.parse, below 2^46. Recursion follows the value's
 * nesting, which the checker bounds before it calls this (CheckOptions.maxDepth).
 */
export function payloadFingerprint(value: unknown): number {
  limit = Number.POSITIVE_INFINITY;
  tooDeep = false;
  hashValue(value, 0);
  return fingerprintOut();
}

/** What one walk over a parsed message found. */
export interface MessageWalk {
  /** Objects and arrays nest more than the limit deep (the outermost counting 1); nothing else is known then. */
  tooDeep: boolean;
  /** Some object of the message has a key named lookupError. */
  lookupError: boolean;
  /** The payload's fingerprint (payloadFingerprint), when asked for and the message is not too deep. */
  fingerprint?: number;
}

/**
 * Walks a parsed message once, never deeper than `maxDepth`: its nesting, its lookupError keys and, with
 * `fingerprint`, the fingerprint of its payload. The payload is the member "payload" of an envelope (an
 * object without type that has payload), else the message itself.
 */
export function walkMessage(parsed: unknown, maxDepth: number, fingerprint: boolean): MessageWalk {
  limit = maxDepth;
  tooDeep = false;
  lookupError = false;
  let print: number | undefined;
  const record = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
  if (record && !("type" in parsed) && "payload" in parsed) {
    if (maxDepth < 1) return { tooDeep: true, lookupError: false };
    for (const key in parsed) {
      if (!Object.hasOwn(parsed, key)) continue;
      if (key === "lookupError") lookupError = true;
      const member = (parsed as Record<string, unknown>)[key];
      if (key === "payload" && fingerprint) {
        hashValue(member, 1);
        print = fingerprintOut();
      } else scanValue(member, 1);
      if (tooDeep) break;
    }
  } else if (record && fingerprint) {
    hashValue(parsed, 0);
    print = fingerprintOut();
  } else scanValue(parsed, 0);
  if (tooDeep) return { tooDeep, lookupError: false };
  return print === undefined ? { tooDeep, lookupError } : { tooDeep, lookupError, fingerprint: print };
}
