// The payload of each kind: a snapshot's type and object, ovChanged, exceededQueueSizeLimit, a deltas
// message's members, the large-object fallback, the split URIs and the change requests' bare name.
import { ovChangedTypes } from "../check/read-message.ts";
import { rule } from "../document/requirements.ts";
import { bySchema, eventRule } from "./event-rule.ts";

export const snapshot = eventRule({ requirements: [rule.snapshot], judge: bySchema });

export const ovChanged = eventRule({
  requirements: [rule.ovChanged],
  // Its type and its place are the schemas'; that it is there when analyzeOvChanges is true is this judge's.
  judge({ typed, config }, found) {
    if (!typed?.info || !config || config.analyzeOvChanges !== true) return undefined;
    const { type, kind, payload } = typed;
    if (
      ovChangedTypes.has(type) &&
      (kind === "snapshot" || kind === "large-object") &&
      !("ovChanged" in payload)
    ) {
      found.add({
        instancePath: "/payload",
        keyword: "required",
        message: `${type} without ovChanged although the streaming configuration sets analyzeOvChanges true (ovChanged may be absent only when it is false)`,
      });
    }
    return undefined;
  },
});

export const exceededQueueSizeLimit = eventRule({
  requirements: [rule.exceededQueueSizeLimit],
  judge: bySchema,
});

export const deltas = eventRule({ requirements: [rule.deltas], judge: bySchema });

export const largeObject = eventRule({
  requirements: [rule.largeObject],
  judge({ typed, headerRecord }, found) {
    if (!typed?.info) return undefined;
    const { kind, payload } = typed;
    if (kind === "snapshot" && payload.exceededQueueSizeLimit === true) {
      found.add({
        instancePath: "/payload/exceededQueueSizeLimit",
        keyword: "largeObject",
        message:
          "exceededQueueSizeLimit true marks the large-object fallback, which is sent without object; this payload carries both: send the snapshot without exceededQueueSizeLimit, or the fallback without object",
      });
    }
    if (kind === "large-object" && payload.uri === undefined) {
      // The document says the fallback carries the object URI, not in which field: the sourceObjectUri
      // header carries it as well as a uri field would.
      const source = headerRecord?.sourceObjectUri;
      if (typeof source !== "string" || source === "") {
        found.add({
          instancePath: "/payload",
          keyword: "required",
          message:
            "a large-object fallback carries the object URI, in uri or in the sourceObjectUri header; this one has neither: add uri",
        });
      }
    }
    return undefined;
  },
});

export const splitUris = eventRule({ requirements: [rule.splitUris], judge: bySchema });

export const changeRequest = eventRule({
  // What "fully supported" (EVENT-TYPES-05) means for a checker is what this rule enforces (the
  // catalogue's checking says so).
  requirements: [rule.changeRequest, "EVENT-TYPES-05"],
  judge: bySchema,
});
