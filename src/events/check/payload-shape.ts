// Reading a payload's shape the way every event rule reads it: a plain object, and the ovChanged flag, which
// the document shows on the payload or on its deltas (deltaCollection or not).

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** ovChanged wherever the payload kind carries it: top level (snapshot, fallback) or in the deltas;
 *  undefined when absent. */
export function ovChangedOf(payload: Record<string, unknown>): boolean | undefined {
  if (typeof payload.ovChanged === "boolean") return payload.ovChanged;
  const deltas = payload.deltas;
  if (!isRecord(deltas)) return undefined;
  if (typeof deltas.ovChanged === "boolean") return deltas.ovChanged;
  const collection = deltas.deltaCollection;
  if (isRecord(collection) && typeof collection.ovChanged === "boolean") return collection.ovChanged;
  return undefined;
}

/** Where a problem about ovChanged points: where the message carries the flag, or where it would. */
export function ovChangedPath(payload: Record<string, unknown>): string {
  if ("ovChanged" in payload) return "/payload/ovChanged";
  const deltas = payload.deltas;
  if (isRecord(deltas) && "deltaCollection" in deltas) return "/payload/deltas/deltaCollection/ovChanged";
  return "/payload/deltas/ovChanged";
}
