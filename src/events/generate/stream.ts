// A seeded generator of realistic event streams, for publishing to a broker or a file and for checking the
// checker: entity lifecycles (create, change as snapshot or deltas, merge and split, GDPR removal and
// re-creation), relationships with their ENTITY_CHANGED companions (ovChanged true), interactions, change
// requests and large-object fallbacks. objectVersion headers rise per object. At-least-once delivery is
// imitated by exact re-sends and by reordering within a window. A known set of invalid messages can be
// injected; the manifest says where they are and which rule each breaks.
//
// Deterministic: the same options (seed included) give the same messages, byte for byte.
//
// The parts: the world's objects (world-objects.ts) and how messages about them are written
// (message-builders.ts), their lifecycle (stream-world.ts) one step at a time (lifecycle-steps.ts), the
// injected invalid messages (stream-mutations.ts), re-sends and reordering (redeliveries.ts), the manifest
// (stream-manifest.ts); this file assembles a stream from them.

import { step } from "./lifecycle-steps.ts";
import { LazyDraft } from "./message-builders.ts";
import { Random } from "./random.ts";
import { reorder, reserialized, reversedKeys } from "./redeliveries.ts";
import { manifestOf } from "./stream-manifest.ts";
import { type StreamMutation, streamMutations } from "./stream-mutations.ts";
import type { GeneratedStream, StreamOptions } from "./stream-options.ts";
import { StreamWorld } from "./stream-world.ts";
import type { Draft } from "./world-objects.ts";

function check(options: StreamOptions): void {
  const problems: string[] = [];
  if (!Number.isInteger(options.seed)) problems.push(`seed must be an integer, got ${options.seed}`);
  if (!Number.isInteger(options.count) || options.count < 0)
    problems.push(`count must be an integer >= 0, got ${options.count}`);
  const p = options.duplicates ?? 0;
  if (!(p >= 0 && p < 1)) problems.push(`duplicates must be a probability in [0, 1), got ${p}`);
  const w = options.reorderWindow ?? 0;
  if (!Number.isInteger(w) || w < 0) problems.push(`reorderWindow must be an integer >= 0, got ${w}`);
  const invalid = options.invalid?.count ?? 0;
  if (!Number.isInteger(invalid) || invalid < 0)
    problems.push(`invalid.count must be an integer >= 0, got ${invalid}`);
  const share = options.largeObjects ?? 0.05;
  if (!(share >= 0 && share <= 1)) problems.push(`largeObjects must be a share in [0, 1], got ${share}`);
  if (!["snapshot", "deltas", "mixed", undefined].includes(options.payloadType))
    problems.push(`payloadType must be snapshot, deltas or mixed, got ${options.payloadType}`);
  if (invalid > options.count)
    problems.push(`invalid.count (${invalid}) cannot exceed count (${options.count})`);
  const known = new Set(streamMutations().map((m) => m.rule as string));
  for (const r of options.invalid?.rules ?? [])
    if (!known.has(r))
      problems.push(`no mutation breaks rule "${r}"; known: ${[...known].sort().join(", ")}`);
  if (problems.length > 0) throw new RangeError(`generateStream: ${problems.join("; ")}`);
}

/** Generates the stream and its manifest. Throws RangeError on options out of range. */
export function generateStream(options: StreamOptions): GeneratedStream {
  const mutations = selectedMutations(options);
  const random = new Random(options.seed);
  const world = new StreamWorld(random, options.tenantId ?? "acme", {
    payloadType: options.payloadType ?? "snapshot",
    largeObjects: options.largeObjects ?? 0.05,
    variety: options.variety ?? true,
    textBodies: !options.payloads,
    relationMerges: options.relationMerges === true,
  });
  const duplicateChance = options.duplicates ?? 0;
  const targets = invalidTargets(options, mutations, random);

  const drafts: Draft[] = [];
  let pending: Draft[] = [];
  let injected = 0;
  while (drafts.length < options.count) {
    if (drafts.length === targets[injected]) {
      drafts.push(...random.pick(mutations).build(world));
      injected += 1;
      continue;
    }
    if (pending.length === 0) pending = step(world);
    const next = pending.shift();
    if (!next) continue;
    drafts.push(next);
    // An exact re-send, unless it would take the place reserved for an invalid message.
    if (
      duplicateChance > 0 &&
      drafts.length < options.count &&
      drafts.length !== targets[injected] &&
      random.chance(duplicateChance)
    )
      drafts.push(resent(next, world.variety && random.chance(0.5) ? random : undefined));
  }
  const ordered = reorder(drafts, options.reorderWindow ?? 0, random);
  return {
    // With payloads, a message is its draft: the body stays unserialized until someone reads it.
    messages: ordered.map((d) => (options.payloads && d.payload ? d : { headers: d.headers, body: d.body })),
    manifest: manifestOf(options, drafts, ordered),
  };
}

/** An exact re-send. A producer's re-send may be serialized again (given `random`): the same data, other
 *  key order and spacing. */
function resent(draft: Draft, random: Random | undefined): Draft {
  const { payload } = draft;
  if (!payload) {
    const body = random ? reserialized(draft.body, random) : draft.body;
    return { ...draft, duplicate: true, body };
  }
  // Not spread: that would serialize a body the generator leaves unserialized until read.
  if (!random) return new LazyDraft(draft.headers, payload, draft.type, true);
  const reversed = reversedKeys(payload) as Record<string, unknown>;
  return new LazyDraft(draft.headers, reversed, draft.type, true, random.int(0, 2));
}

function selectedMutations(options: StreamOptions): StreamMutation[] {
  check(options);
  const wanted = options.invalid?.rules;
  const stream = options.payloadType ?? "snapshot";
  const fitting = streamMutations().filter((m) => m.streams.includes(stream));
  const pool = wanted?.length ? fitting.filter((m) => wanted.includes(m.rule)) : fitting;
  const invalid = options.invalid?.count ?? 0;
  if (invalid > 0 && pool.length === 0)
    throw new RangeError(
      `generateStream: no mutation of rules ${wanted?.join(", ")} fits a ${stream} stream; ` +
        `rules that fit: ${[...new Set(fitting.map((m) => m.rule))].sort().join(", ")}`,
    );
  const widest = Math.max(...pool.map((m) => m.messages));
  if (invalid * widest <= options.count) return pool;
  const singles = pool.filter((m) => m.messages === 1);
  if (singles.length === 0)
    throw new RangeError(
      `generateStream: ${invalid} invalid message(s) of rules ${wanted?.join(", ")} need ${invalid * widest} messages; count is ${options.count}`,
    );
  return singles;
}

/** Seeded start positions of the invalid messages, spaced so that each mutation has room for all its messages. */
function invalidTargets(options: StreamOptions, mutations: StreamMutation[], random: Random): number[] {
  const invalid = options.invalid?.count ?? 0;
  if (invalid === 0) return [];
  const width = Math.max(...mutations.map((m) => m.messages));
  const free = options.count - invalid * width; // >= 0, see selectedMutations
  const offsets = Array.from({ length: invalid }, () => random.int(0, free)).sort((a, b) => a - b);
  return offsets.map((offset, i) => offset + i * width);
}

export type { Draft as StreamDraft };
