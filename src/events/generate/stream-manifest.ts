// The manifest of a generated stream: where its invalid messages are and which rule each breaks, its
// re-sends and displaced messages, and the streaming configuration it was shaped by.

import { selectableFields } from "../event-schemas.ts";
import type { StreamingConfig } from "../streaming-config.ts";
import type { InvalidEntry, StreamManifest, StreamOptions } from "./stream-options.ts";
import { type Draft, relationTypes } from "./world-objects.ts";

/**
 * JMSEventsFilteringFields of generated streams: the fields both filtering properties share (from the
 * event schemas), the entity and interaction fields the generator sends, and the objectVersion header.
 */
function entityFields(): string[] {
  const sent = ["label", "secondaryLabel", "roles", "potentialMatchTOs", "timestamp", "members"];
  return [...selectableFields("common"), ...sent, "objectVersion"];
}

/** RelationEventsFilteringFields of generated streams: every field the schemas give a relationship. */
function relationFields(): string[] {
  return [...selectableFields("relationship")];
}

/** The generator's relation types that back reference attributes; their companions go to the start
 *  entity (said for one, left to either end for the other: both forms of the key). */
function referenceRelationTypes(): NonNullable<StreamingConfig["referenceRelationTypes"]> {
  return relationTypes
    .filter((type) => type.reference)
    .map((type, index) =>
      index === 0
        ? { type: `configuration/relationTypes/${type.name}`, entity: "start" as const }
        : type.name,
    );
}

export function manifestOf(options: StreamOptions, created: Draft[], ordered: Draft[]): StreamManifest {
  const invalidMessages: InvalidEntry[] = [];
  const byRule: Record<string, number> = {};
  const byType: Record<string, number> = {};
  ordered.forEach((draft, index) => {
    byType[draft.type] = (byType[draft.type] ?? 0) + 1;
    if (!draft.invalid) return;
    invalidMessages.push({ index, rule: draft.invalid.rule, description: draft.invalid.description });
    byRule[draft.invalid.rule] = (byRule[draft.invalid.rule] ?? 0) + 1;
  });
  const displaced = ordered.filter((draft, index) => created[index] !== draft).length;
  return {
    seed: options.seed,
    total: ordered.length,
    valid: ordered.length - invalidMessages.length,
    invalid: invalidMessages.length,
    invalidMessages,
    byRule,
    duplicates: ordered.filter((d) => d.duplicate).length,
    displaced,
    byType,
    streamingConfig:
      options.payloadType === "mixed"
        ? undefined
        : {
            JMSEventsFilteringFields: entityFields(),
            RelationEventsFilteringFields: relationFields(),
            payloadType: options.payloadType ?? "snapshot",
            // false: ovChanged may be absent (the checker's own mutations start from messages without it);
            // generated ENTITY_CHANGED and RELATIONSHIP_CHANGED messages carry it all the same.
            analyzeOvChanges: false,
            largeObjectsSupport: true,
            referenceRelationTypes: referenceRelationTypes(),
          },
  };
}
