// Correlation over the stream: a relationship event of a relation type that backs a reference attribute
// comes with an ENTITY_CHANGED companion for the entity it connects (EVENT-TYPES-04), and that companion
// carries ovChanged true when it carries ovChanged (EVENT-STREAM-02). Delivery may repeat and reorder, so
// the companion may come before or after the relationship event, within a window of messages or of event
// time. Memory: the ENTITY_CHANGED events and relationship events of the window, never more than
// maxTracked of each. What the end of the stream leaves open is undecided, not a failure.

import { rule } from "../document/requirements.ts";
import {
  type CompanionWindow,
  defaultCompanionWindow,
  type ReferenceEnd,
  type ResolvedStreamingConfig,
} from "../streaming-config.ts";
import type { RequirementProblem } from "./event-problem.ts";
import type { MessageFacts } from "./message-facts.ts";
import { isRecord, ovChangedOf, ovChangedPath } from "./payload-shape.ts";

const relationshipTypes = new Set([
  "RELATIONSHIP_CREATED",
  "RELATIONSHIP_REMOVED",
  "RELATIONSHIP_REMOVED_GDPR",
  "RELATIONSHIP_CHANGED",
]);
/** After these an entity gets no ENTITY_CHANGED: a missing companion for it is excused. */
const goneTypes = new Set(["ENTITY_REMOVED", "ENTITY_REMOVED_GDPR", "ENTITY_LOST_MERGE"]);

/** What is remembered of one entity's recent events: the last ENTITY_CHANGED that can be a companion
 *  (ovChanged true or absent), the last with ovChanged false, the last removal. Updated in place, so a
 *  message allocates nothing here; index -1: none. */
interface EntityState {
  pairIndex: number;
  pairTime: number | undefined;
  falseIndex: number;
  falseTime: number | undefined;
  falsePosition: string;
  falseInvalid: boolean;
  falsePath: string;
  /** The last ovChanged-false event as a relationship event holds it (made when one does). */
  falseShared: FalseCompanion | undefined;
  goneIndex: number;
  goneTime: number | undefined;
}

/** An ENTITY_CHANGED with ovChanged false that a relationship event may have to report. */
interface FalseCompanion {
  uri: string;
  position: string;
  invalid: boolean;
  ovPath: string;
  /** Reported under EVENT-STREAM-02 already (one finding per message). */
  reported: boolean;
}

/** A relationship event waiting for its companion. */
interface PendingRelation {
  uri: string;
  eventType: string;
  relationType: string;
  /** The entities that may get the companion (start, end or both); empty when the message names none. */
  ends: string[];
  index: number;
  time: number | undefined;
  position: string;
  invalid: boolean;
  /** Companions seen so far carry ovChanged false only: the first of them. */
  falseCompanion: FalseCompanion | undefined;
  settled: boolean;
}

/** Why a relationship event of a reference relation type was left undecided. */
export type UndecidedReason = "stream-ended" | "ends-unknown" | "memory-bound";

export interface Undecided {
  rule: string;
  reason: UndecidedReason;
  count: number;
  /** Position of the first such relationship event. */
  first: string;
  /** Position of the last one. */
  last: string;
  message: string;
}

export interface CompanionCounts {
  /** Relationship events of reference relation types paired with a companion carrying ovChanged true or none. */
  paired: number;
  /** Relationship events whose companion is excused: an entity it connects was removed or merged away. */
  excused: number;
  /** Relation types that back reference attributes: configured and learned from the stream. */
  referenceTypes: string[];
  undecided: Undecided[];
  /** The window the rules paired within. */
  window: CompanionWindow;
  /** Entities whose recent events were forgotten before their window passed (more than --max-tracked
   *  entities had events in the window at once): a companion among them no longer counted. */
  forgotten: number;
}

/** A late finding and whether its message had no error before (it then becomes invalid). */
export interface LateProblem {
  problem: RequirementProblem;
  newlyInvalid: boolean;
}

const noLate: LateProblem[] = [];

function objectUri(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const uri = value.objectURI ?? value.objectUri ?? value.uri;
  return typeof uri === "string" ? uri : undefined;
}

/** Event time: the object's updatedTime, or a delta message's timestamp (epoch milliseconds). */
function eventTime(payload: Record<string, unknown>): number | undefined {
  const object = payload.object;
  if (isRecord(object) && typeof object.updatedTime === "number") return object.updatedTime;
  const deltas = payload.deltas;
  if (isRecord(deltas) && typeof deltas.timestamp === "number") return deltas.timestamp;
  return undefined;
}

/** The relation type a reference attribute value names (refRelation.type), if any. */
function refRelationType(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const relation = value.refRelation;
  return isRecord(relation) && typeof relation.type === "string" ? relation.type : undefined;
}

/** The relation types named by refRelation in a message's attribute values (reference attributes sit at
 *  the top of object.attributes) and delta items (their old and new values). Property reads only: this
 *  runs for every entity message. */
function refRelationTypes(payload: Record<string, unknown>, into: Set<string>): void {
  const object = payload.object;
  if (isRecord(object)) {
    const attributes = object.attributes;
    if (isRecord(attributes)) {
      for (const name in attributes) {
        const values = attributes[name];
        if (!Array.isArray(values)) continue;
        for (let index = 0; index < values.length; index += 1) {
          const type = refRelationType(values[index]);
          if (type !== undefined) into.add(type);
        }
      }
    }
    return;
  }
  const deltas = payload.deltas;
  if (!isRecord(deltas)) return;
  const collection = isRecord(deltas.deltaCollection) ? deltas.deltaCollection : deltas;
  const items = collection.delta;
  if (!Array.isArray(items)) return;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (!isRecord(item)) continue;
    const added = refRelationType(item.newValue);
    if (added !== undefined) into.add(added);
    const removed = refRelationType(item.oldValue);
    if (removed !== undefined) into.add(removed);
  }
}

export interface CompanionOptions {
  config?: ResolvedStreamingConfig;
  /** Overrides the configuration's companionWindow (and its defaults). */
  window?: Partial<CompanionWindow>;
  /** Relationship events and entity events each kept at most (the stream rules' --max-tracked). */
  maxTracked: number;
}

export class ReferenceCompanions {
  private readonly configured: ReadonlyMap<string, ReferenceEnd>;
  private readonly learned = new Set<string>();
  /** The configuration's list is the tenant's word: types are learned only when it gives none. */
  private readonly learning: boolean;
  private readonly window: CompanionWindow;
  private readonly maxTracked: number;
  private index = 0;
  private latestTime: number | undefined;
  /** The entities with events in the window; swept every `sweepEvery` messages. */
  private readonly entities = new Map<string, EntityState>();
  private readonly sweepEvery: number;
  private sinceSweep = 0;
  /** Relationship events waiting for a companion, oldest first from `pendingHead`, and by entity URI. */
  private pending: PendingRelation[] = [];
  private pendingHead = 0;
  private readonly pendingByUri = new Map<string, PendingRelation[]>();
  private paired = 0;
  private excused = 0;
  private forgotten = 0;
  private readonly undecided = new Map<string, Undecided>();

  constructor(options: CompanionOptions) {
    this.configured = options.config?.referenceRelationTypes ?? new Map();
    this.learning = this.configured.size === 0;
    const base = options.config?.companionWindow ?? defaultCompanionWindow;
    this.window = { ...base, ...options.window };
    this.maxTracked = options.maxTracked;
    this.sweepEvery = Math.max(1024, this.window.messages);
  }

  /** The end whose entity gets the companion, when the type backs a reference attribute. */
  private referenceEnd(type: string): ReferenceEnd | undefined {
    const configured =
      this.configured.get(type) ?? this.configured.get(type.slice(type.lastIndexOf("/") + 1));
    if (configured) return configured;
    return this.learned.has(type) ? "either" : undefined;
  }

  private withinWindow(a: { index: number; time: number | undefined }, b: typeof a): boolean {
    if (Math.abs(a.index - b.index) <= this.window.messages) return true;
    return (
      this.window.ms > 0 &&
      a.time !== undefined &&
      b.time !== undefined &&
      Math.abs(a.time - b.time) <= this.window.ms
    );
  }

  /** Past the window for good: more than its messages ago and, where times are known, its time ago. */
  private expired(event: { index: number; time: number | undefined }): boolean {
    if (this.index - event.index <= this.window.messages) return false;
    if (this.window.ms <= 0 || event.time === undefined || this.latestTime === undefined) return true;
    return this.latestTime - event.time > this.window.ms;
  }

  /** Records one message; returns the findings that messages leaving the window settle. `reported`: the
   *  message was already reported under EVENT-STREAM-02 (its own content shows a reference change). */
  observe(facts: MessageFacts, position: string, invalid: boolean, reported = false): LateProblem[] {
    this.index += 1;
    const type = facts.type;
    const payload = facts.payload;
    const entityChanged = type === "ENTITY_CHANGED";
    const relevant =
      type !== undefined &&
      isRecord(payload) &&
      (entityChanged || relationshipTypes.has(type) || goneTypes.has(type));
    if (!relevant) return this.pendingHead < this.pending.length ? this.expire(false) : noLate;
    const relationship = !entityChanged && relationshipTypes.has(type);
    // Event time moves with the events this rule reads (the others are not looked into).
    const time = eventTime(payload);
    if (time !== undefined && (this.latestTime === undefined || time > this.latestTime))
      this.latestTime = time;
    const late = this.pendingHead < this.pending.length ? this.expire(false) : noLate;
    if (!relationship) {
      // Without configured types, companions show the reference attribute they are about (refRelation
      // names its relation type): learned from them.
      if (entityChanged && this.learning) refRelationTypes(payload, this.learned);
      const uri = facts.uri;
      if (uri === undefined) return late;
      if (entityChanged) {
        const ovChanged = ovChangedOf(payload);
        const state = this.stateOf(uri);
        if (ovChanged === false) {
          state.falseIndex = this.index;
          state.falseTime = time;
          state.falsePosition = position;
          state.falseInvalid = invalid;
          state.falsePath = ovChangedPath(payload);
          state.falseShared = undefined;
          if (reported) this.falseCompanionOf(uri, state).reported = true;
        } else {
          state.pairIndex = this.index;
          state.pairTime = time;
        }
        this.companionArrived(uri, state, ovChanged === false);
      } else if (goneTypes.has(type)) {
        const state = this.stateOf(uri);
        state.goneIndex = this.index;
        state.goneTime = time;
      }
      return late;
    }
    this.relationshipArrived(facts, payload, type, time, position, invalid);
    return late;
  }

  private stateOf(uri: string): EntityState {
    let state = this.entities.get(uri);
    if (state) return state;
    state = {
      pairIndex: -1,
      pairTime: undefined,
      falseIndex: -1,
      falseTime: undefined,
      falsePosition: "",
      falseInvalid: false,
      falsePath: "",
      falseShared: undefined,
      goneIndex: -1,
      goneTime: undefined,
    };
    // Swept before the new entity goes in: a sweep after would find it stale (no event recorded yet)
    // and drop it.
    this.sinceSweep += 1;
    if (this.sinceSweep >= this.sweepEvery || this.entities.size >= this.maxTracked) this.sweep(1);
    this.entities.set(uri, state);
    return state;
  }

  /** Whether an entity event can no longer matter: twice the window behind (a relationship event it is
   *  within the window of may still be waiting a window long). */
  private stale(index: number, time: number | undefined): boolean {
    if (index < 0) return true;
    if (this.index - index <= 2 * this.window.messages) return false;
    if (this.window.ms <= 0 || time === undefined || this.latestTime === undefined) return true;
    return this.latestTime - time > 2 * this.window.ms;
  }

  /** Forgets the entities none of whose events can matter any more; past maxTracked (less `room` for
   *  the entity about to be added), the oldest. */
  private sweep(room: number): void {
    this.sinceSweep = 0;
    for (const [uri, state] of this.entities) {
      if (
        this.stale(state.pairIndex, state.pairTime) &&
        this.stale(state.falseIndex, state.falseTime) &&
        this.stale(state.goneIndex, state.goneTime)
      )
        this.entities.delete(uri);
    }
    for (const uri of this.entities.keys()) {
      if (this.entities.size + room <= this.maxTracked) break;
      this.entities.delete(uri);
      this.forgotten += 1;
    }
  }

  /** The last ovChanged-false ENTITY_CHANGED of the entity, as a relationship event holds it. */
  private falseCompanionOf(uri: string, state: EntityState): FalseCompanion {
    state.falseShared ??= {
      uri,
      position: state.falsePosition,
      invalid: state.falseInvalid,
      ovPath: state.falsePath,
      reported: false,
    };
    return state.falseShared;
  }

  private companionArrived(uri: string, state: EntityState, ovFalse: boolean): void {
    const waiting = this.pendingByUri.get(uri);
    if (!waiting) return;
    const arrived = ovFalse
      ? { index: state.falseIndex, time: state.falseTime }
      : { index: state.pairIndex, time: state.pairTime };
    for (const relation of [...waiting]) {
      if (relation.settled || !this.withinWindow(arrived, relation)) continue;
      if (ovFalse) relation.falseCompanion ??= this.falseCompanionOf(uri, state);
      else this.settle(relation, true);
    }
  }

  private relationshipArrived(
    facts: MessageFacts,
    payload: Record<string, unknown>,
    eventType: string,
    time: number | undefined,
    position: string,
    invalid: boolean,
  ): void {
    const object = isRecord(payload.object) ? payload.object : undefined;
    const deltas = isRecord(payload.deltas) ? payload.deltas : undefined;
    const relationType =
      typeof object?.type === "string"
        ? object.type
        : typeof deltas?.objectType === "string"
          ? deltas.objectType
          : undefined;
    const uri = facts.uri;
    if (relationType === undefined || uri === undefined) return;
    // With the configuration's list (no learning), a type not on it backs no reference attribute.
    if (!this.learning && this.referenceEnd(relationType) === undefined) return;
    const start = objectUri(object?.startObject);
    const end = objectUri(object?.endObject);
    const relation: PendingRelation = {
      uri,
      eventType,
      relationType,
      ends: [],
      index: this.index,
      time,
      position,
      invalid,
      falseCompanion: undefined,
      settled: false,
    };
    const which = this.referenceEnd(relationType) ?? "either";
    if (start !== undefined && which !== "end") relation.ends.push(start);
    if (end !== undefined && which !== "start" && end !== start) relation.ends.push(end);
    if (relation.ends.length === 0) {
      // Which entities it connects is not in the message (filtered out, a deltas or fallback payload).
      if (this.referenceEnd(relationType)) this.leaveUndecided(relation, "ends-unknown");
      return;
    }
    // A companion may have come first (reordering is legal): the entity's last one is the nearest.
    for (const uri of relation.ends) {
      const state = this.entities.get(uri);
      if (!state) continue;
      if (
        state.pairIndex >= 0 &&
        this.withinWindow({ index: state.pairIndex, time: state.pairTime }, relation)
      ) {
        relation.settled = true;
        break;
      }
      if (
        state.falseIndex >= 0 &&
        this.withinWindow({ index: state.falseIndex, time: state.falseTime }, relation)
      )
        relation.falseCompanion ??= this.falseCompanionOf(uri, state);
    }
    if (relation.settled) {
      if (this.referenceEnd(relationType)) this.paired += 1;
      return;
    }
    this.pending.push(relation);
    for (const uri of relation.ends) {
      const list = this.pendingByUri.get(uri);
      if (list) list.push(relation);
      else this.pendingByUri.set(uri, [relation]);
    }
    if (this.pending.length - this.pendingHead > this.maxTracked) {
      const oldest = this.pending[this.pendingHead] as PendingRelation;
      if (!oldest.settled && this.referenceEnd(oldest.relationType))
        this.leaveUndecided(oldest, "memory-bound");
      this.settle(oldest, false);
      this.pendingHead += 1;
    }
  }

  /** Takes a relationship event out of the waiting lists; `paired`: its companion came. */
  private settle(relation: PendingRelation, paired: boolean): void {
    if (relation.settled) return;
    relation.settled = true;
    if (paired && this.referenceEnd(relation.relationType)) this.paired += 1;
    for (const uri of relation.ends) {
      const list = this.pendingByUri.get(uri);
      if (!list) continue;
      const at = list.indexOf(relation);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0) this.pendingByUri.delete(uri);
    }
  }

  /** Decides the relationship events that left the window; at the end (`all`), leaves the rest undecided. */
  private expire(all: boolean): LateProblem[] {
    let late: LateProblem[] | undefined;
    while (this.pendingHead < this.pending.length) {
      const relation = this.pending[this.pendingHead] as PendingRelation;
      const out = relation.settled || this.expired(relation);
      if (!out && !all) break;
      this.pendingHead += 1;
      if (relation.settled) continue;
      this.settle(relation, false);
      if (!this.referenceEnd(relation.relationType)) continue;
      if (!out) {
        this.leaveUndecided(relation, "stream-ended");
        continue;
      }
      if (this.endGone(relation)) {
        this.excused += 1;
        continue;
      }
      const found = this.finding(relation);
      if (found) {
        late ??= [];
        late.push(found);
      }
    }
    if (this.pendingHead > 4096 && this.pendingHead * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.pendingHead);
      this.pendingHead = 0;
    }
    return late ?? noLate;
  }

  private endGone(relation: PendingRelation): boolean {
    return relation.ends.some((uri) => {
      const state = this.entities.get(uri);
      return (
        state !== undefined &&
        state.goneIndex >= 0 &&
        this.withinWindow({ index: state.goneIndex, time: state.goneTime }, relation)
      );
    });
  }

  private windowText(): string {
    return `${this.window.messages} messages${this.window.ms > 0 ? ` or ${this.window.ms / 1000} s of event time` : ""}`;
  }

  private typeSource(type: string): string {
    return this.configured.has(type) || this.configured.has(type.slice(type.lastIndexOf("/") + 1))
      ? "referenceRelationTypes of the streaming configuration"
      : "refRelation in the stream's attribute values";
  }

  private finding(relation: PendingRelation): LateProblem | undefined {
    const { eventType, uri, relationType, ends, position } = relation;
    const companion = relation.falseCompanion;
    if (companion) {
      if (companion.reported) return undefined;
      companion.reported = true;
      return {
        newlyInvalid: !companion.invalid,
        problem: {
          position: companion.position,
          instancePath: companion.ovPath,
          requirement: rule.referenceOvChanged,
          keyword: "stream:reference-ovchanged",
          message: `ENTITY_CHANGED for ${companion.uri} is the companion of ${eventType} ${uri} (${position}) of ${relationType}, a relation type that backs a reference attribute (${this.typeSource(relationType)}), but carries ovChanged false; ovChanged is always true in the ENTITY_CHANGED events sent for entities whose reference attribute changed`,
        },
      };
    }
    return {
      newlyInvalid: !relation.invalid,
      problem: {
        position,
        instancePath: "/payload/type",
        requirement: rule.referenceCompanion,
        keyword: "stream:reference-companion",
        message: `${eventType} ${uri} of ${relationType}, a relation type that backs a reference attribute (${this.typeSource(relationType)}), has no ENTITY_CHANGED for ${ends.join(" or ")} within ${this.windowText()} before or after it; for a reference attribute an ENTITY_CHANGED event also appears (widen companionWindow in the streaming configuration if the platform sends it later)`,
      },
    };
  }

  private leaveUndecided(relation: PendingRelation, reason: UndecidedReason): void {
    const ruleId = relation.falseCompanion ? rule.referenceOvChanged : rule.referenceCompanion;
    const key = `${ruleId}\u0000${reason}`;
    const known = this.undecided.get(key);
    if (known) {
      known.count += 1;
      known.last = relation.position;
      return;
    }
    const why =
      reason === "stream-ended"
        ? relation.falseCompanion
          ? "only a companion with ovChanged false was seen, and one with ovChanged true may come after the last message"
          : "the companion may come after the last message"
        : reason === "ends-unknown"
          ? "the message does not name the entities it connects (startObject and endObject are filtered out, or the payload is deltas or a large-object fallback)"
          : `more than ${this.maxTracked} relationship events waited at once (--max-tracked)`;
    this.undecided.set(key, {
      rule: ruleId,
      reason,
      count: 1,
      first: relation.position,
      last: relation.position,
      message: `relationship events of reference relation types left undecided: ${why}`,
    });
  }

  /** At the end of the stream: what the window still held is undecided. */
  finish(): { late: LateProblem[]; counts: CompanionCounts } {
    const late = this.expire(true);
    const referenceTypes = [...new Set([...this.configured.keys(), ...this.learned])].sort();
    return {
      late,
      counts: {
        paired: this.paired,
        excused: this.excused,
        referenceTypes,
        undecided: [...this.undecided.values()],
        window: this.window,
        forgotten: this.forgotten,
      },
    };
  }
}
