// Every event rule, in the order their judges read a message (the order of a message's problems): the
// headers, the payload's type and its schema, the payload of its kind, the configuration, the object, the
// deltas and, last, the headers' agreement with the payload. A judge that stops (a payload that is not an
// object, of no type, of an unsupported type) ends the message's inspection, so the judges before it
// judge nothing of such a payload. A rule found elsewhere (by the schemas, the stream
// rules, another rule's walk) sits beside its concept. Each file is named after a concept of the document.

import { findingOf } from "../../rules/finding.ts";
import { type EventProblem, type RequirementProblem, whereOf } from "../check/event-problem.ts";
import { oneJsonDocument, redeliveryTolerated } from "./delivery.ts";
import { deltaItem, deltaMessage, deltaOnlyChanged } from "./deltas.ts";
import type { EventRule, MessageJudge } from "./event-rule.ts";
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

/** The rules that read one message, in order (inspectMessage runs their judges). */
export const MESSAGE_RULES: readonly (EventRule & { judge: MessageJudge })[] = EVENT_RULES.flatMap((r) =>
  typeof r.judge === "function" ? [r as EventRule & { judge: MessageJudge }] : [],
);

/** The judges of the rules that read one message, in order. */
export const MESSAGE_JUDGES: readonly MessageJudge[] = MESSAGE_RULES.map((r) => r.judge);

/** Each rule by its first requirement: the one a walk's problem is reported under. */
const BY_REQUIREMENT = new Map<string, EventRule>(
  EVENT_RULES.map((r) => [r.requirements[0] as string, r as EventRule]),
);

/** The rule whose findings are reported under `requirement` (its first requirement). */
export function eventRuleOf(requirement: string): EventRule {
  const found = BY_REQUIREMENT.get(requirement);
  if (found === undefined)
    throw new Error(
      `no event rule has ${requirement} as its first requirement: declare one in src/events/rules/`,
    );
  return found;
}

/** A walk's problem as its rule's finding: the rule's id and requirement from the rule's header, and a
 *  severity from the rule's level (a MUST rule's finding fails the message, a SHOULD or MAY one's warns). */
export function eventFinding(problem: RequirementProblem): EventProblem {
  const { position, instancePath, keyword, message } = problem;
  const owner = eventRuleOf(problem.requirement);
  return findingOf(owner, {
    where: whereOf(position, instancePath),
    message,
    evidence: { position, instancePath, keyword, severity: owner.level === "MUST" ? "error" : "warning" },
  });
}
