// The payload's kind: a snapshot (the default) or a deltas message (or the large-object fallback), decided
// by presence, and the kind the streaming configuration's payloadType asks for.
import { describeValue } from "../check/event-problem.ts";
import { isRecord } from "../check/payload-shape.ts";
import { rule } from "../document/requirements.ts";
import { eventRule, STOP } from "./event-rule.ts";

export const payloadKind = eventRule({
  requirements: [rule.payloadKind],
  judge({ payload, typed, config, given }, found) {
    if (!isRecord(payload)) {
      found.add({
        instancePath: "/payload",
        keyword: "type",
        message: `payload must be a JSON object (snapshot or deltas message), got ${describeValue(payload)}`,
      });
      return STOP;
    }
    if (!typed?.info) return undefined;
    const { kind } = typed;
    if (kind === "none") {
      found.add({
        instancePath: "/payload",
        keyword: "payloadKind",
        message: `a ${typed.info.type} payload is a snapshot (with object), a deltas message (with uri and deltas) or a large-object fallback (without object, with exceededQueueSizeLimit true); this one has none of object, deltas and exceededQueueSizeLimit (got fields ${Object.keys(payload).join(", ")}): add the one it is meant to be`,
      });
      return undefined;
    }
    if (config && (kind === "snapshot" || kind === "deltas") && kind !== config.payloadType) {
      found.add({
        instancePath: "/payload",
        keyword: "payloadType",
        message: `a ${kind} payload, but the streaming configuration sets payloadType ${config.payloadType}${given?.payloadType === undefined ? " (the default)" : ""}`,
      });
    }
    return undefined;
  },
});
