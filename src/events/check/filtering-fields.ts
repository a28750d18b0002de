// Content of object: with a filtering property set, object holds only the listed fields; with it absent,
// all available fields (checked as: the identifying fields are there, and the documented relationship shape).

import { relationshipShapeFields } from "../document/payload-fields.ts";
import { rule } from "../document/requirements.ts";
import type { ObjectKind } from "../event-schemas.ts";
import { alwaysTolerated, type FieldSelection, type ResolvedStreamingConfig } from "../streaming-config.ts";
import type { RequirementProblem } from "./event-problem.ts";

export function pointer(...parts: string[]): string {
  return parts.map((part) => `/${part.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

function listed(selection: FieldSelection): string {
  return [...selection.top].join(", ");
}

export function filteringProblems(
  kind: ObjectKind,
  eventType: string,
  object: Record<string, unknown>,
  config: ResolvedStreamingConfig,
  position: string,
): RequirementProblem[] {
  const relationship = kind === "relationship";
  const selection = relationship ? config.relationFields : config.entityFields;
  const property = relationship ? "RelationEventsFilteringFields" : "JMSEventsFilteringFields";
  const problems: RequirementProblem[] = [];
  if (selection) {
    const filterRule = relationship ? rule.relationFilter : rule.entityFilter;
    for (const field of Object.keys(object)) {
      if (!selection.top.has(field)) {
        problems.push({
          position,
          instancePath: pointer("payload", "object", field),
          requirement: filterRule,
          keyword: "filtering",
          message: `field "${field}" is not listed in ${property} (allowed: ${listed(selection)}; uri and type are always tolerated); object must hold only the listed fields`,
        });
        continue;
      }
      const keys = selection.nested.get(field);
      const value = object[field];
      if (!keys || value === null || typeof value !== "object" || Array.isArray(value)) continue;
      for (const key of Object.keys(value)) {
        if (!keys.has(key)) {
          problems.push({
            position,
            instancePath: pointer("payload", "object", field, key),
            requirement: filterRule,
            keyword: "filtering",
            message: `"${field}.${key}" is not listed in ${property} (listed under ${field}: ${[...keys].join(", ")}); object must hold only the listed fields`,
          });
        }
      }
    }
    return problems;
  }
  if (kind === "change-request") return problems;
  for (const field of alwaysTolerated) {
    if (!(field in object)) {
      problems.push({
        position,
        instancePath: pointer("payload", "object"),
        requirement: rule.allFields,
        keyword: "filtering",
        message: `object has no "${field}" although ${property} is absent from the streaming configuration (then all available fields are sent)`,
      });
    }
  }
  if (eventType === "RELATIONSHIP_CREATED") {
    // uri and type are reported above under the all-fields rule; not twice.
    const missing = relationshipShapeFields.filter(
      (field) => !(field in object) && !alwaysTolerated.includes(field),
    );
    if (missing.length > 0) {
      problems.push({
        position,
        instancePath: pointer("payload", "object"),
        requirement: rule.relationshipObject,
        keyword: "required",
        message: `RELATIONSHIP_CREATED object lacks ${missing.join(", ")}; with RelationEventsFilteringFields absent every field of the documented relationship shape is sent`,
      });
    }
  }
  return problems;
}

// The fields each filtering property adds per object kind (the document's tables).
const entityExtras = ["roles", "ctSubscribedUris", "defaultProfilePic", "label", "secondaryLabel"];
const categoryExtras = ["analyticsAttributes"];
const groupExtras = ["name"];
const potentialMatchExtras = ["potentialMatchTOs", "matchRules", "matchScore", "relevance"];
const memberExtras = ["timestamp", "members"];
/** RelationEventsFilteringFields' additions: relationship objects only (EVENT-FILTER-06). */
export const relationExtras: readonly string[] = [
  "startRefPinned",
  "startRefIgnored",
  "endRefPinned",
  "endRefIgnored",
  "startObject",
  "endObject",
];

/** Every per-kind field, and the kinds of object that may carry it. */
const kindsOfField = new Map<string, string>([
  ...entityExtras.map((field) => [field, "entity"] as const),
  ...categoryExtras.map((field) => [field, "category"] as const),
  ...groupExtras.map((field) => [field, "group"] as const),
  ...potentialMatchExtras.map((field) => [field, "potential-match"] as const),
  ...memberExtras.map((field) => [field, "interaction and change-request"] as const),
  ...relationExtras.map((field) => [field, "relationship"] as const),
]);

/** The per-kind fields an object of this kind may carry. Categories and potential matches have no event
 *  types of their own: the document does not say which entity events carry them, so any may. */
function allowedExtras(kind: ObjectKind): ReadonlySet<string> {
  switch (kind) {
    case "entity":
      return entityAllowed;
    case "group":
      return new Set(groupExtras);
    case "interaction":
    case "change-request":
      return memberAllowed;
    case "relationship":
      return relationAllowed;
    default:
      return everyExtra;
  }
}
const entityAllowed = new Set([...entityExtras, ...categoryExtras, ...potentialMatchExtras]);
const memberAllowed = new Set(memberExtras);
const relationAllowed = new Set(relationExtras);
const everyExtra = new Set(kindsOfField.keys());

const kindName: Record<ObjectKind, string> = {
  entity: "an entity",
  relationship: "a relationship",
  group: "a group",
  interaction: "an interaction",
  "change-request": "a change-request",
};

/**
 * EVENT-FILTER-05/06: a field the filtering properties add for one object kind, on an object of another
 * kind (an entity with members, a relationship with label, an interaction with startObject). Under a
 * streaming configuration that sets the object's filtering property the object holds only listed fields of
 * its kind: an error. Without that property "all available fields are included" and the document does not
 * say which fields are available, so the same field is a warning (EVENT-FILTER-07): the vendor's own
 * RELATIONSHIP_CREATED sample carries analyticsAttributes. Fields on no list are not judged here.
 */
export function kindFieldProblems(
  kind: ObjectKind,
  eventType: string,
  object: Record<string, unknown>,
  position: string,
  config?: ResolvedStreamingConfig,
): RequirementProblem[] | undefined {
  let problems: RequirementProblem[] | undefined;
  let allowed: ReadonlySet<string> | undefined;
  const relationship = kind === "relationship";
  const property = relationship ? "RelationEventsFilteringFields" : "JMSEventsFilteringFields";
  const listed = (relationship ? config?.relationFields : config?.entityFields) !== undefined;
  for (const field in object) {
    const owner = kindsOfField.get(field);
    if (owner === undefined) continue;
    allowed ??= allowedExtras(kind);
    if (allowed.has(field)) continue;
    const relation = owner === "relationship";
    const adds = `one ${relation ? "RelationEventsFilteringFields" : "JMSEventsFilteringFields"} adds for ${owner} objects only, but this ${eventType} object is ${kindName[kind]}`;
    problems ??= [];
    if (listed) {
      problems.push({
        position,
        instancePath: pointer("payload", "object", field),
        requirement: relation ? rule.relationKindFields : rule.entityKindFields,
        keyword: "x-object-kind",
        message: `field "${field}" is ${adds}; the streaming configuration sets ${property}, so the object holds only listed fields of its kind: remove it from this kind of object`,
      });
    } else {
      problems.push({
        position,
        instancePath: pointer("payload", "object", field),
        requirement: rule.unlistedKindField,
        keyword: "x-object-kind",
        message: `field "${field}" is ${adds}; without ${property} in the streaming configuration all available fields are sent, so it is allowed, but a consumer that reads it by the document's lists will not expect it here (give --config with ${property} to judge it as an error)`,
      });
    }
  }
  return problems;
}
