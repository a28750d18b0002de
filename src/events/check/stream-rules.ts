// Rules over a sequence of messages. Delivery is at-least-once and unordered, so duplicates and
// reordering are legal; a rule fires only when objectVersion proves the order. Memory per (uri,
// objectVersion): one number, never the message: a fingerprint of the parsed payload (the same whatever
// its key order or spacing, so that a redelivery serialized again is still a redelivery), or, when the
// source can read the message again, its ref, packed with the event type. A ref is turned into the
// fingerprint only when a second message with that (uri, objectVersion) arrives, so most payloads are
// never fingerprinted. The GDPR rule reads an entity's history from the same entries (their event-type
// index), so nothing else is kept per version.

import { rule } from "../document/requirements.ts";
import type { RequirementProblem } from "./event-problem.ts";
import type { MessageFacts } from "./message-facts.ts";
import { payloadFingerprint } from "./payload-fingerprint.ts";

const gdprType = "ENTITY_REMOVED_GDPR";
const createdType = "ENTITY_CREATED";

/** What is remembered of one object (one URI). */
interface TrackedObject {
  /**
   * objectVersion -> content fingerprint (high bits) and event-type index (low 7 bits); or, negative,
   * -1 - (the message's ref (high bits) and event-type index (low 7 bits)) until it is compared. Most
   * objects have a few versions: they sit in `pairs` (version, entry, version, entry, ...), one small
   * array; an object with more moves to `map`.
   */
  pairs: number[];
  map: Map<number, number> | undefined;
  /** An ENTITY_REMOVED_GDPR is among the entries (only then are they read for the GDPR rule). */
  removedGdpr: boolean;
  /** The highest objectVersion seen (a lower one after it arrived out of order). */
  max: number;
}

/** Versions kept in an object's flat pairs before it moves to a Map. */
const pairsLimit = 16;

function entryOf(tracked: TrackedObject, version: number): number | undefined {
  if (tracked.map) return tracked.map.get(version);
  const pairs = tracked.pairs;
  for (let index = 0; index < pairs.length; index += 2) if (pairs[index] === version) return pairs[index + 1];
  return undefined;
}

function setEntry(tracked: TrackedObject, version: number, entry: number): void {
  if (tracked.map) {
    tracked.map.set(version, entry);
    return;
  }
  const pairs = tracked.pairs;
  for (let index = 0; index < pairs.length; index += 2) {
    if (pairs[index] === version) {
      pairs[index + 1] = entry;
      return;
    }
  }
  if (pairs.length < pairsLimit * 2) {
    pairs.push(version, entry);
    return;
  }
  const map = new Map<number, number>();
  for (let index = 0; index < pairs.length; index += 2) map.set(pairs[index] ?? 0, pairs[index + 1] ?? 0);
  map.set(version, entry);
  tracked.map = map;
  tracked.pairs = [];
}

/** The event-type index of an entry (a fingerprint's or a ref's low 7 bits). */
function typeOfEntry(entry: number): number {
  return entry < 0 ? (-1 - entry) % 128 : entry % 128;
}

/** Calls `each` with every (objectVersion, entry) of the object, in the order they were stored. */
function forEachEntry(tracked: TrackedObject, each: (version: number, entry: number) => void): void {
  if (tracked.map) {
    for (const [version, entry] of tracked.map) each(version, entry);
    return;
  }
  const pairs = tracked.pairs;
  for (let index = 0; index < pairs.length; index += 2) each(pairs[index] ?? 0, pairs[index + 1] ?? 0);
}

/** Event-type indexes fixed for the GDPR rule (other types never wrap onto them). */
const createdIndex = 0;
const gdprIndex = 1;

function versionCount(tracked: TrackedObject): number {
  return tracked.map ? tracked.map.size : tracked.pairs.length / 2;
}

/**
 * A message that follows an ENTITY_REMOVED_GDPR by objectVersion. It is reported when the stream ends,
 * unless an ENTITY_CREATED between the two turns up (it may arrive late: reordering is legal).
 */
interface Suspicion {
  uri: string;
  removed: number;
  type: string;
  version: number;
  position: string;
  /** The message the problem is reported at already had an error (it is counted invalid already). */
  alreadyInvalid: boolean;
  late: boolean;
  /** Decided when the entity's history was dropped (window full): no longer checked against it. */
  settled?: boolean;
}

export interface StreamRuleCounts {
  /** Messages identical to an earlier one with the same (uri, objectVersion): legal redelivery. */
  duplicates: number;
  /** Objects tracked (distinct URIs of messages with objectVersion). */
  objects: number;
  /** Objects whose history was dropped to keep memory bounded (see maxTrackedVersions). */
  evictedObjects: number;
  /** Messages not compared with the earlier message of their (uri, objectVersion), because the source
   *  could no longer read that one again (a file changed during the check); 0 on most streams. */
  uncompared: number;
  /** Messages whose objectVersion is below one already seen for their object: delivered out of order
   *  (legal; consumers order by objectVersion). */
  reordered: number;
}

export interface StreamRuleOptions {
  /**
   * (uri, objectVersion) pairs remembered at most (default 200,000); past it the objects
   * first seen longest ago are forgotten, so memory stays flat on endless streams. A redelivery or a
   * GDPR-violating event that arrives after its object was forgotten is compared afresh.
   */
  maxTrackedVersions?: number;
  /**
   * The fingerprint (payloadFingerprint) of the payload of the earlier message with this ref, or
   * undefined when it cannot be read again. Given when the source can recall messages: the rules then
   * keep refs and fingerprint a payload only when its (uri, objectVersion) comes again.
   */
  recall?: (ref: number) => number | undefined;
}

/** About 90 bytes a pair (measured by bench/events-memory.ts): about 18 MB, flat past it. */
export const defaultMaxTrackedVersions = 200_000;

const none: RequirementProblem[] = [];

/** Refs below this pack with a type index into a safe integer (a file offset of 32 TiB); a message with
 *  a larger ref is fingerprinted as it arrives instead. */
const maxRef = 2 ** 45;

export class StreamRules {
  /** uri -> what is remembered of that object (one lookup per message finds both parts). */
  private readonly seen = new Map<string, TrackedObject>();
  private readonly typeIndex = new Map<string, number>([
    [createdType, createdIndex],
    [gdprType, gdprIndex],
  ]);
  private readonly typeNames: string[] = [createdType, gdprType];
  /** By type index: an entity event type (ENTIT...), whose versions are the GDPR rule's history. */
  private readonly entityTypes: boolean[] = [true, true];
  private readonly suspicions: Suspicion[] = [];
  private duplicates = 0;
  private tracked = 0;
  private evictedObjects = 0;
  private uncompared = 0;
  private reordered = 0;
  private readonly maxTracked: number;
  private readonly recall: ((ref: number) => number | undefined) | undefined;

  constructor(options: StreamRuleOptions = {}) {
    this.maxTracked = options.maxTrackedVersions ?? defaultMaxTrackedVersions;
    this.recall = options.recall;
  }

  counts(): StreamRuleCounts {
    return {
      duplicates: this.duplicates,
      objects: this.seen.size,
      evictedObjects: this.evictedObjects,
      uncompared: this.uncompared,
      reordered: this.reordered,
    };
  }

  /** Forgets the objects first seen longest ago (never `current`) until the window holds again. */
  private evict(current: string): void {
    for (const uri of this.seen.keys()) {
      if (this.tracked <= this.maxTracked) return;
      if (uri === current) continue;
      const tracked = this.seen.get(uri);
      this.tracked -= tracked ? versionCount(tracked) : 0;
      this.seen.delete(uri);
      if (tracked && this.suspicions.length > 0) {
        // Settle this entity's GDPR suspicions now, while its re-creations are still known.
        this.keepSuspicions((suspicion) => suspicion.uri !== uri || !recreatedBetween(tracked, suspicion));
        for (const suspicion of this.suspicions) if (suspicion.uri === uri) suspicion.settled = true;
      }
      this.evictedObjects += 1;
    }
  }

  private keepSuspicions(keep: (suspicion: Suspicion) => boolean): void {
    const kept = this.suspicions.filter(keep);
    this.suspicions.length = 0;
    this.suspicions.push(...kept);
  }

  private indexOf(type: string): number {
    let index = this.typeIndex.get(type);
    if (index === undefined) {
      const count = this.typeNames.length;
      index = count < 128 ? count : 2 + ((count - 2) % 126);
      this.typeIndex.set(type, index);
      this.typeNames.push(type);
      if (type.startsWith("ENTIT")) this.entityTypes[index] = true;
    }
    return index;
  }

  /**
   * Records one message; returns the problems it proves at once (objectVersion reuse). GDPR findings
   * wait for finish(). `invalid`: the message already has an error of its own.
   */
  observe(facts: MessageFacts, position: string, invalid = false, ref?: number): RequirementProblem[] {
    const { uri, objectVersion: version, type } = facts;
    if (uri === undefined || version === undefined || type === undefined) return none;
    if (facts.payload === undefined) return none;
    const typeIndex = this.indexOf(type);
    let tracked = this.seen.get(uri);
    if (!tracked) {
      tracked = { pairs: [], map: undefined, removedGdpr: false, max: Number.NEGATIVE_INFINITY };
      this.seen.set(uri, tracked);
    }
    let earlier = entryOf(tracked, version);
    // Headers stay out of the fingerprint: a redelivery may carry other transport headers around the
    // same payload.
    if (
      earlier === undefined &&
      facts.fingerprint === undefined &&
      ref !== undefined &&
      ref < maxRef &&
      this.recall
    ) {
      setEntry(tracked, version, -1 - (ref * 128 + typeIndex));
      return this.remembered(tracked, uri, version, type, typeIndex, position, invalid);
    }
    const packed = (facts.fingerprint ?? payloadFingerprint(facts.payload)) * 128 + typeIndex;
    if (earlier !== undefined && earlier < 0) {
      // The first message of this (uri, objectVersion) was remembered by its ref: fingerprinted now.
      const stored = -1 - earlier;
      const print = this.recall?.(Math.floor(stored / 128));
      if (print === undefined) {
        this.uncompared += 1;
        setEntry(tracked, version, packed);
        return none;
      }
      earlier = print * 128 + (stored % 128);
      setEntry(tracked, version, earlier);
    }
    if (earlier !== undefined) {
      if (earlier === packed) {
        this.duplicates += 1;
        return none;
      }
      const earlierType = this.typeNames[earlier % 128] ?? "?";
      return [
        {
          position,
          instancePath: "/headers/objectVersion",
          requirement: rule.versionReuse,
          keyword: "stream:version-reuse",
          message: `${uri} objectVersion ${version} was already used by a different message (${earlierType === type ? `another ${type} with other content` : `a ${earlierType}`}); objectVersion is raised after every change, so two different messages never share one`,
        },
      ];
    }
    setEntry(tracked, version, packed);
    return this.remembered(tracked, uri, version, type, typeIndex, position, invalid);
  }

  /** After a new (uri, objectVersion) was stored: keeps memory bounded and feeds the GDPR rule. */
  private remembered(
    tracked: TrackedObject,
    uri: string,
    version: number,
    type: string,
    typeIndex: number,
    position: string,
    invalid: boolean,
  ): RequirementProblem[] {
    this.tracked += 1;
    if (version < tracked.max) this.reordered += 1;
    else tracked.max = version;
    if (this.tracked > this.maxTracked) this.evict(uri);
    if (!type.startsWith("ENTIT")) return none;

    if (typeIndex === gdprIndex) {
      tracked.removedGdpr = true;
      // Later-versioned events of the entity may have arrived first (reordering is legal).
      forEachEntry(tracked, (other, entry) => {
        const otherIndex = typeOfEntry(entry);
        if (other <= version || otherIndex === createdIndex || otherIndex === gdprIndex) return;
        if (this.entityTypes[otherIndex] !== true) return;
        this.suspicions.push({
          uri,
          removed: version,
          type: this.typeNames[otherIndex] ?? "?",
          version: other,
          position,
          alreadyInvalid: invalid,
          late: true,
        });
      });
    } else if (typeIndex !== createdIndex && tracked.removedGdpr) {
      forEachEntry(tracked, (removed, entry) => {
        if (typeOfEntry(entry) !== gdprIndex || removed >= version) return;
        this.suspicions.push({
          uri,
          removed,
          type,
          version,
          position,
          alreadyInvalid: invalid,
          late: false,
        });
      });
    }
    return none;
  }

  /**
   * The GDPR findings that still hold at the end of the stream: a message versioned after a removal with
   * no ENTITY_CREATED between them. `newlyInvalid`: positions that had no error before.
   */
  finish(): { problems: RequirementProblem[]; newlyInvalid: number } {
    const problems: RequirementProblem[] = [];
    const reported = new Set<string>();
    const newly = new Set<string>();
    for (const suspicion of this.suspicions) {
      const tracked = this.seen.get(suspicion.uri);
      const recreated = !suspicion.settled && tracked !== undefined && recreatedBetween(tracked, suspicion);
      const key = `${suspicion.position}\u0000${suspicion.version}`;
      if (recreated || reported.has(key)) continue;
      reported.add(key);
      if (!suspicion.alreadyInvalid) newly.add(suspicion.position);
      problems.push(gdprProblem(suspicion));
    }
    this.suspicions.length = 0;
    return { problems, newlyInvalid: newly.size };
  }
}

/** An ENTITY_CREATED lies between the GDPR removal and the suspicious event. */
function recreatedBetween(tracked: TrackedObject, suspicion: Suspicion): boolean {
  let found = false;
  forEachEntry(tracked, (version, entry) => {
    if (typeOfEntry(entry) === createdIndex && version > suspicion.removed && version < suspicion.version)
      found = true;
  });
  return found;
}

function gdprProblem(suspicion: Suspicion): RequirementProblem {
  const { uri, removed, type, version } = suspicion;
  const which = suspicion.late
    ? `an earlier-delivered ${type} carries objectVersion ${version}`
    : `this ${type} carries objectVersion ${version}`;
  return {
    position: suspicion.position,
    instancePath: suspicion.late ? "/headers/objectVersion" : "/payload/type",
    requirement: rule.gdpr,
    keyword: "stream:after-gdpr",
    message: `${uri} was removed by ENTITY_REMOVED_GDPR at objectVersion ${removed}, but ${which} and no ENTITY_CREATED lies between them; after a GDPR removal only ENTITY_CREATED and ENTITY_REMOVED_GDPR may follow for that entity`,
  };
}
