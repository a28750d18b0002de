// The entity side of EVENT-STREAM-02: "when a change occurs inside a relation or an entity that is part of
// a reference attribute of other entities, ovChanged is always true in the ENTITY_CHANGED events sent for
// those related entities". A stream does not say which change caused an ENTITY_CHANGED, so this judges
// only what a message shows itself:
// - a deltas ENTITY_CHANGED listing a change of a reference attribute (a value carrying refEntity or
//   refRelation): the change is inside the referenced entity or the relation, so ovChanged is true;
// - a snapshot ENTITY_CHANGED whose reference attribute values differ from those of the same entity's
//   previous objectVersion (v - 1, seen in this stream): likewise.
// An ENTITY_CHANGED that does not show its reference attributes, or whose previous version was not seen
// (no objectVersion header, reordered, a gap), is not judged: nothing in it tells.
// Memory: one number and a version per entity whose snapshots carry reference values, never more than
// maxTracked (the oldest forgotten first, counted).

import { rule } from "../document/requirements.ts";
import type { RequirementProblem } from "./event-problem.ts";
import type { MessageFacts } from "./message-facts.ts";
import { payloadFingerprint } from "./payload-fingerprint.ts";
import { isRecord, ovChangedOf, ovChangedPath } from "./payload-shape.ts";

function isReferenceValue(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && (isRecord(value.refEntity) || isRecord(value.refRelation));
}

function referenced(value: Record<string, unknown>): string {
  const entity = value.refEntity;
  const uri = isRecord(entity) ? entity.objectURI : undefined;
  return typeof uri === "string" ? uri : "a referenced entity";
}

/** The reference attribute a deltas ENTITY_CHANGED changes, if any: its name and the referenced entity. */
function changedReferenceInDeltas(deltas: unknown): { attribute: string; entity: string } | undefined {
  if (!isRecord(deltas)) return undefined;
  const collection = isRecord(deltas.deltaCollection) ? deltas.deltaCollection : deltas;
  const items = collection.delta;
  if (!Array.isArray(items)) return undefined;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (!isRecord(item)) continue;
    const value = isReferenceValue(item.newValue)
      ? item.newValue
      : isReferenceValue(item.oldValue)
        ? item.oldValue
        : undefined;
    if (value !== undefined)
      return { attribute: String(item.attributeType ?? "a reference attribute"), entity: referenced(value) };
  }
  return undefined;
}

/** An order-free digest of a snapshot's reference attribute values; undefined when it shows none. */
function referenceDigest(object: Record<string, unknown>): number | undefined {
  const attributes = object.attributes;
  if (!isRecord(attributes)) return undefined;
  let digest: number | undefined;
  for (const name in attributes) {
    const values = attributes[name];
    if (!Array.isArray(values)) continue;
    for (let index = 0; index < values.length; index += 1) {
      const value = values[index];
      if (!isReferenceValue(value)) continue;
      // A sum: the same values in another order give the same digest.
      digest = ((digest ?? 0) + payloadFingerprint([name, value])) % 2 ** 52;
    }
  }
  return digest;
}

const basis =
  "ovChanged is always true in the ENTITY_CHANGED events sent for entities whose reference attribute a change inside a relation or a referenced entity reaches";

interface Seen {
  version: number;
  digest: number;
}

export class ReferenceChanges {
  private readonly seen = new Map<string, Seen>();
  /** Entities forgotten at the memory bound (their next change is not compared). */
  evicted = 0;

  constructor(private readonly maxTracked: number) {}

  /** The finding of one message, if its own content shows a reference attribute change with ovChanged false. */
  observe(facts: MessageFacts, position: string): RequirementProblem | undefined {
    const type = facts.type;
    if (type !== "ENTITY_CHANGED" && type !== "ENTITY_CREATED") return undefined;
    const payload = facts.payload;
    const uri = facts.uri;
    if (!isRecord(payload) || uri === undefined) return undefined;
    const object = payload.object;
    if (!isRecord(object)) {
      if (type !== "ENTITY_CHANGED" || ovChangedOf(payload) !== false) return undefined;
      const changed = changedReferenceInDeltas(payload.deltas);
      if (changed === undefined) return undefined;
      return this.problem(
        position,
        payload,
        `ENTITY_CHANGED for ${uri} lists a change of its reference attribute ${changed.attribute} (a value referencing ${changed.entity}), a change inside a relation or a referenced entity, but carries ovChanged false; ${basis}`,
      );
    }
    const version = facts.objectVersion;
    if (version === undefined) return undefined;
    const digest = referenceDigest(object);
    const before = this.seen.get(uri);
    if (digest === undefined) {
      // No reference values shown: nothing to compare the next version with.
      if (before !== undefined && version > before.version) this.seen.delete(uri);
      return undefined;
    }
    if (before !== undefined && version <= before.version) return undefined;
    this.remember(uri, version, digest, before !== undefined);
    if (
      type !== "ENTITY_CHANGED" ||
      before === undefined ||
      before.version !== version - 1 ||
      before.digest === digest ||
      ovChangedOf(payload) !== false
    )
      return undefined;
    return this.problem(
      position,
      payload,
      `ENTITY_CHANGED for ${uri} (objectVersion ${version}) shows reference attribute values that differ from those of objectVersion ${version - 1}, a change inside a relation or a referenced entity, but carries ovChanged false; ${basis}`,
    );
  }

  private remember(uri: string, version: number, digest: number, known: boolean): void {
    // Re-inserted, so the map's order is the order of last change and the oldest goes first.
    if (known) this.seen.delete(uri);
    this.seen.set(uri, { version, digest });
    if (this.seen.size > this.maxTracked) {
      const oldest = this.seen.keys().next().value as string;
      this.seen.delete(oldest);
      this.evicted += 1;
    }
  }

  private problem(position: string, payload: Record<string, unknown>, message: string): RequirementProblem {
    return {
      position,
      instancePath: ovChangedPath(payload),
      requirement: rule.referenceOvChanged,
      keyword: "stream:reference-change-ovchanged",
      message,
    };
  }
}
