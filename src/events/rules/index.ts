// Every event rule, in the order their judges read a message (the order of a message's problems): the
// headers, the payload's type and its schema, the payload of its kind, the configuration, the object, the
// deltas and, last, the headers' agreement with the payload. A judge that stops (a payload that is not an
// object, of no type, of an unsupported type) ends the message's inspection, so the judges before it
// judge nothing of such a payload. A rule found elsewhere (by the schemas, the stream
// rules, another rule's walk) sits beside its concept. Each file is named after a concept of the document.

import type { Level } from "../../check/index.ts";
import { oneJsonDocument, redeliveryTolerated } from "./delivery.ts";
import { deltaItem, deltaMessage, deltaOnlyChanged } from "./deltas.ts";
import type { MessageJudge } from "./event-rule.ts";
import { knownType, referenceCompanion, unknownType, unsupportedType, unusedType } from "./event-types.ts";
import {
  allFields,
  commonFields,
  entityFilter,
  entityKindFields,
  relationFilter,
  relationKindFields,
  unlistedKindField,
} from "./filtering.ts";
import { headerAgreement, headers, objectVersion, versionReuse } from "./headers.ts";
import { attributeValue, crosswalk, lookupError, objectNotEmpty, relationshipObject } from "./object.ts";
import {
  changeRequest,
  deltas,
  exceededQueueSizeLimit,
  largeObject,
  ovChanged,
  snapshot,
  splitUris,
} from "./payload.ts";
import { payloadKind } from "./payload-kind.ts";
import { gdpr, largeObjectConfig, referenceOvChanged } from "./stream.ts";

export { type EventRule, type MessageJudge, STOP } from "./event-rule.ts";

export const EVENT_RULES = [
  oneJsonDocument,
  redeliveryTolerated,
  headers,
  objectVersion,
  versionReuse,
  unknownType,
  unusedType,
  knownType,
  unsupportedType,
  referenceCompanion,
  snapshot,
  exceededQueueSizeLimit,
  deltas,
  splitUris,
  changeRequest,
  largeObject,
  payloadKind,
  largeObjectConfig,
  ovChanged,
  entityFilter,
  allFields,
  relationFilter,
  commonFields,
  entityKindFields,
  relationKindFields,
  unlistedKindField,
  objectNotEmpty,
  attributeValue,
  lookupError,
  relationshipObject,
  crosswalk,
  deltaMessage,
  deltaItem,
  deltaOnlyChanged,
  gdpr,
  referenceOvChanged,
  headerAgreement,
] as const;

/** The judges of the rules that read one message, in order (inspectMessage runs them). */
export const MESSAGE_JUDGES: readonly MessageJudge[] = EVENT_RULES.flatMap((r) =>
  typeof r.judge === "function" ? [r.judge] : [],
);

/** Every check an event run reports (one per event rule, by id), with the requirement ids it traces to. */
export function eventChecks(): {
  id: string;
  rule: string;
  title: string;
  level: Level;
  requirements: string[];
}[] {
  return [...EVENT_RULES]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((r) => ({
      id: r.id,
      rule: r.requirements[0] as string,
      title: r.title,
      level: r.level,
      requirements: [...r.requirements],
    }));
}
