// Content of object: with a filtering property set, object holds only the listed fields; with it absent,
// all available fields (checked as: the identifying fields are there, and the documented relationship shape).

import type { ObjectKind } from "../event-schemas.ts";
import { rule } from "../rules.ts";
import { alwaysTolerated, type FieldSelection, type ResolvedStreamingConfig } from "../streaming-config.ts";
import { addProblem, type EventProblem } from "./event-problem.ts";

/** The RELATIONSHIP_CREATED snapshot shape of the document: every field present when nothing is filtered. */
export const relationshipShapeFields = [
  "uri",
  "type",
  "createdBy",
  "createdTime",
  "updatedBy",
  "updatedTime",
  "startRefPinned",
  "startRefIgnored",
  "endRefPinned",
  "endRefIgnored",
  "attributes",
  "crosswalks",
] as const;

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
): EventProblem[] {
  const relationship = kind === "relationship";
  const selection = relationship ? config.relationFields : config.entityFields;
  const property = relationship ? "RelationEventsFilteringFields" : "JMSEventsFilteringFields";
  const problems: EventProblem[] = [];
  if (selection) {
    const filterRule = relationship ? rule.relationFilter : rule.entityFilter;
    for (const field of Object.keys(object)) {
      if (!selection.top.has(field)) {
        addProblem(
          problems,
          position,
          pointer("payload", "object", field),
          filterRule,
          "filtering",
          `field "${field}" is not listed in ${property} (allowed: ${listed(selection)}; uri and type are always tolerated); object must hold only the listed fields`,
        );
        continue;
      }
      const keys = selection.nested.get(field);
      const value = object[field];
      if (!keys || value === null || typeof value !== "object" || Array.isArray(value)) continue;
      for (const key of Object.keys(value)) {
        if (!keys.has(key)) {
          addProblem(
            problems,
            position,
            pointer("payload", "object", field, key),
            filterRule,
            "filtering",
            `"${field}.${key}" is not listed in ${property} (listed under ${field}: ${[...keys].join(", ")}); object must hold only the listed fields`,
          );
        }
      }
    }
    return problems;
  }
  if (kind === "change-request") return problems;
  for (const field of alwaysTolerated) {
    if (!(field in object)) {
      addProblem(
        problems,
        position,
        pointer("payload", "object"),
        rule.allFields,
        "filtering",
        `object has no "${field}" although ${property} is absent from the streaming configuration (then all available fields are sent)`,
      );
    }
  }
  if (eventType === "RELATIONSHIP_CREATED") {
    // uri and type are reported above under the all-fields rule; not twice.
    const missing = relationshipShapeFields.filter(
      (field) => !(field in object) && !alwaysTolerated.includes(field),
    );
    if (missing.length > 0) {
      addProblem(
        problems,
        position,
        pointer("payload", "object"),
        rule.relationshipObject,
        "required",
        `RELATIONSHIP_CREATED object lacks ${missing.join(", ")}; with RelationEventsFilteringFields absent every field of the documented relationship shape is sent`,
      );
    }
  }
  return problems;
}
