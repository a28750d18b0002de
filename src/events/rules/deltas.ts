// Deltas: the delta message and its items (the document shows their shape but leaves the structure of
// deltas open: SHOULD), and only changed attributes listed (MUST).
import { canonicalJson } from "../check/canonical-json.ts";
import { isRecord } from "../check/payload-shape.ts";
import { rule } from "../document/requirements.ts";
import { eventSchemas } from "../event-schemas.ts";
import { bySchema, type EventFindings, eventRule } from "./event-rule.ts";

export const deltaMessage = eventRule({
  requirements: [rule.deltaMessage],
  // One walk of the deltas judges this rule and events/event-delta-03.
  judge({ typed }, found) {
    if (!typed?.info || typed.type !== "ENTITY_CHANGED" || typed.kind !== "deltas") return undefined;
    const deltas = typed.payload.deltas;
    if (isRecord(deltas)) judgeDeltaContent(deltas, typed.payload.uri, found);
    return undefined;
  },
});

export const deltaItem = eventRule({ requirements: [rule.deltaItem], judge: bySchema });

export const deltaOnlyChanged = eventRule({
  requirements: [rule.deltaOnlyChanged],
  judge: {
    foundBy: "the walk of the deltas of events/event-delta-01 (src/events/rules/deltas.ts)",
    judgedWith: deltaMessage,
  },
});

/** The delta items of a deltas member in either shape seen: a delta message or a bare delta collection. */
function deltaItemsOf(deltas: Record<string, unknown>): { items: unknown[]; path: string } {
  const collection = deltas.deltaCollection;
  if (isRecord(collection) && Array.isArray(collection.delta)) {
    return { items: collection.delta, path: "/payload/deltas/deltaCollection/delta" };
  }
  if (Array.isArray(deltas.delta)) return { items: deltas.delta, path: "/payload/deltas/delta" };
  return { items: [], path: "" };
}

/** Required fields of the delta message a deltas member lacks before it counts as another shape. */
const shapeMismatch = 3;

/** One walk of a deltas member: its shape (this rule, SHOULD) and its items listing only changes
 *  (events/event-delta-03, MUST), each finding under its rule's header. */
function judgeDeltaContent(deltas: Record<string, unknown>, uri: unknown, found: EventFindings): void {
  const schemas = eventSchemas();
  // The document shows the delta message's shape but leaves the structure of deltas open: the kit's
  // preferred shapes are SHOULD-level, reported as warnings.
  const collectionShape = "delta" in deltas && !("deltaCollection" in deltas);
  const preferred = collectionShape ? schemas.preferredDeltas.collection : schemas.preferredDeltas.message;
  const errors = preferred(deltas);
  const missingAtTop = (errors ?? []).filter((e) => e.keyword === "required" && e.instancePath === "");
  if (errors && !collectionShape && missingAtTop.length >= shapeMismatch) {
    found.add({
      instancePath: "/payload/deltas",
      keyword: "x-preferred-shape",
      message: `deltas is neither the document's ENTITY_CHANGED delta message (id, user, method, url, clientType, timestamp, objectUri, objectType, objectLabel, data, deltaCollection, eventId, itemsTotal) nor a delta collection {ovChanged, delta}; got fields ${Object.keys(deltas).join(", ") || "none"}. The document does not show the structure of deltas, so this is a warning only`,
    });
  } else if (errors) {
    found.addSchemaErrors(errors, "/payload/deltas");
  }
  if (typeof deltas.objectUri === "string" && typeof uri === "string" && deltas.objectUri !== uri) {
    found.add({
      instancePath: "/payload/deltas/objectUri",
      keyword: "agreement",
      message: `deltas.objectUri is ${deltas.objectUri} but the payload's uri is ${uri}; both should name the changed entity`,
    });
  }
  const { items, path } = deltaItemsOf(deltas);
  items.forEach((item, index) => {
    if (!isRecord(item) || item.type !== "ATTRIBUTE_CHANGED") return;
    if (item.oldValue === undefined || item.newValue === undefined) return;
    if (canonicalJson(item.oldValue) === canonicalJson(item.newValue)) {
      found.addFor(deltaOnlyChanged, {
        instancePath: `${path}/${index}`,
        keyword: "changed",
        message: `ATTRIBUTE_CHANGED for ${String(item.attributeType)} has identical oldValue and newValue; only changed attributes are listed`,
      });
    }
  });
}
