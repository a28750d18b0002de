// Event types: every payload names its type; the document's table gives each type's payload shape, its
// list of unsupported types never appears, its unused types should not, and a type it does not know is a
// warning only.

import { describeValue } from "../check/event-problem.ts";
import { isRecord } from "../check/payload-shape.ts";
import { rule } from "../document/requirements.ts";
import { eventSchemas } from "../event-schemas.ts";
import { byReferenceCompanions, eventRule, STOP } from "./event-rule.ts";

export const knownType = eventRule({
  requirements: [rule.knownType],
  judge({ payload, typed }, found) {
    // A payload that is not an object is the payload kind's to report (events/event-payload-01).
    if (!isRecord(payload)) return undefined;
    if (typeof payload.type !== "string") {
      const type = payload.type;
      found.add({
        instancePath: type === undefined ? "/payload" : "/payload/type",
        keyword: type === undefined ? "required" : "type",
        message: `payload must carry type, the event type as a string; got ${describeValue(type)}`,
      });
      return STOP;
    }
    const info = typed?.info;
    if (!typed || !info || typed.kind === "none") return undefined;
    // The kind is decided by presence, so only that kind's schema is run: its errors are the ones that
    // matter, and no oneOf is tried.
    const validate = (typed.kind === "name-only" ? undefined : info.byKind[typed.kind]) ?? info.validate;
    found.addSchemaErrors(validate(typed.payload), "/payload");
    return undefined;
  },
});

export const unsupportedType = eventRule({
  requirements: [rule.unsupportedType],
  judge({ payload, typed }, found) {
    // A payload object of a string type the reading left untyped is of an unsupported type.
    if (typed || !isRecord(payload) || typeof payload.type !== "string") return undefined;
    const schemas = eventSchemas();
    found.add({
      instancePath: "/payload/type",
      keyword: "unsupported",
      message: `event type ${payload.type} is unsupported by the document (unsupported: ${schemas.unsupportedTypes.join(", ")}); a conforming stream never carries it`,
    });
    return STOP;
  },
});

export const unknownType = eventRule({
  requirements: [rule.unknownType],
  judge({ typed }, found) {
    if (!typed || typed.info) return undefined;
    // The document lists the types it describes and the ones that are unsupported; vendors also send
    // others (merge-failure notifications, for instance). Such a message is not checked further.
    found.add({
      instancePath: "/payload/type",
      keyword: "x-known-type",
      message: `event type "${typed.type}" is in neither the document's table of event types nor its list of unsupported types; its payload is not checked (expected one of ${[...eventSchemas().types.keys()].join(", ")})`,
    });
    return undefined;
  },
});

export const unusedType = eventRule({
  requirements: [rule.unusedType],
  judge({ typed }, found) {
    if (!typed?.info?.unused) return undefined;
    found.add({
      instancePath: "/payload/type",
      keyword: "x-unused",
      message: `event type ${typed.type} is defined but currently unused according to the document; a conforming stream should not carry it`,
    });
    return undefined;
  },
});

export const referenceCompanion = eventRule({
  requirements: [rule.referenceCompanion],
  judge: byReferenceCompanions,
});
