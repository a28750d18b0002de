// At-least-once delivery, imitated: a re-send may be serialized again (the same data with other key order
// and spacing), and messages arrive up to a window of places away from their order of creation.

import type { Random } from "./random.ts";
import type { Draft } from "./world-objects.ts";

/** Keys in reverse order at every level: the same data as another producer might serialize it (the
 *  stream's redeliveries and the arbitraries' reserialized payloads both use it). */
export function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .reverse()
      .map(([key, item]) => [key, reversedKeys(item)]),
  );
}

/** A body serialized again with its keys reversed and 0-2 spaces of indentation. */
export function reserialized(body: string, random: Random): string {
  return JSON.stringify(reversedKeys(JSON.parse(body)), null, random.int(0, 2));
}

/** The mutations to draw from: those breaking the requested rules, and only single-message ones if the

/** Each message moves at most `window` places; pinned messages keep their order after their predecessor. */
export function reorder(drafts: Draft[], window: number, random: Random): Draft[] {
  if (window === 0) return [...drafts];
  const keyed = drafts.map((draft, index) => ({ draft, key: index + random.next() * window }));
  for (let i = 1; i < keyed.length; i += 1) {
    const current = keyed[i];
    const previous = keyed[i - 1];
    if (current?.draft.pinned && previous) current.key = previous.key + 1e-9;
  }
  return keyed.sort((a, b) => a.key - b.key).map((k) => k.draft);
}
