// How an event payload is built. The checker finds it by presence (object, deltas,
// exceededQueueSizeLimit), the generators choose it; one name and one spelling for both. The kind of object
// is here too (the schemas read it from x-object-kind), so that this file imports nothing.

/** Kind of business object a type's snapshot carries; decides which filtering property applies. */
export type ObjectKind = "entity" | "relationship" | "group" | "interaction" | "change-request";

/**
 * snapshot: the object itself; deltas: what changed; large-object: the fallback sent without object
 * (exceededQueueSizeLimit true); name-only: a change request's payload, which names it only.
 */
export type PayloadKind = "snapshot" | "deltas" | "large-object" | "name-only";

/** The kinds a payload of an object kind can take: a change request is named only, the others are sent
 *  as a snapshot, as deltas or as the large-object fallback. */
/** The kinds of a payload sent about an object (every kind but a change request's name). */
export type ObjectPayloadKind = Exclude<PayloadKind, "name-only">;

export function payloadKindsOf(objectKind: ObjectKind): readonly PayloadKind[] {
  return objectKind === "change-request" ? nameOnly : sentWhole;
}

const nameOnly: readonly PayloadKind[] = ["name-only"];
const sentWhole: readonly PayloadKind[] = ["snapshot", "deltas", "large-object"];
