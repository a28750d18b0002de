// Headers: the headers every message carries, objectVersion as the streaming configuration lists it, and
// the headers' agreement with the payload.

import { describeValue } from "../check/event-problem.ts";
import { isRecord } from "../check/payload-shape.ts";
import { rule } from "../document/requirements.ts";
import { eventSchemas } from "../event-schemas.ts";
import { byStreamRules, eventRule } from "./event-rule.ts";

export const headers = eventRule({
  requirements: [rule.headers],
  judge(message, found) {
    if (message.headers === undefined) return undefined;
    if (!message.headerRecord) {
      found.add({
        instancePath: "/headers",
        keyword: "type",
        message: `headers must be an object, got ${describeValue(message.headers)}`,
      });
      return undefined;
    }
    found.addSchemaErrors(eventSchemas().headers(message.headerRecord), "/headers");
    return undefined;
  },
});

export const objectVersion = eventRule({
  requirements: [rule.objectVersion],
  judge({ headerRecord, config }, found) {
    if (!headerRecord) return undefined;
    if (config?.objectVersionHeader === "required" && !("objectVersion" in headerRecord)) {
      found.add({
        instancePath: "/headers",
        keyword: "required",
        message: "header objectVersion is missing although JMSEventsFilteringFields lists objectVersion",
      });
    } else if (config?.objectVersionHeader === "forbidden" && "objectVersion" in headerRecord) {
      found.add({
        instancePath: "/headers/objectVersion",
        keyword: "not",
        message:
          "header objectVersion is present although JMSEventsFilteringFields does not list it; it is sent only when listed",
      });
    }
    return undefined;
  },
});

export const versionReuse = eventRule({ requirements: [rule.versionReuse], judge: byStreamRules });

export const headerAgreement = eventRule({
  requirements: [rule.headerAgreement],
  judge({ typed, headerRecord }, found) {
    if (!typed || !headerRecord) return undefined;
    const { type, kind } = typed;
    const eventType = headerRecord.eventType;
    if (typeof eventType === "string" && eventType !== type) {
      found.add({
        instancePath: "/headers/eventType",
        keyword: "agreement",
        message: `header eventType is ${eventType} but the payload's type is ${type}; they must be equal`,
      });
    }
    const source = headerRecord.sourceObjectUri;
    const payloadUri = payloadUriOf(typed);
    if (typeof source === "string" && typeof payloadUri === "string" && source !== payloadUri) {
      found.add({
        instancePath: "/headers/sourceObjectUri",
        keyword: "agreement",
        message: `header sourceObjectUri is ${source} but the payload is about ${payloadUri} (${kind === "snapshot" ? "object.uri" : "uri"}); they must be equal`,
      });
    }
    return undefined;
  },
});

/** The URI a payload says it is about: object.uri of a snapshot (or of a change request's object), else uri. */
export function payloadUriOf({ kind, payload }: { kind: string; payload: Record<string, unknown> }): unknown {
  const object = payload.object;
  return kind === "snapshot" || (kind === "name-only" && isRecord(object))
    ? isRecord(object)
      ? object.uri
      : undefined
    : payload.uri;
}
