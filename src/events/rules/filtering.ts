// Filtering fields: what JMSEventsFilteringFields and RelationEventsFilteringFields let into an object,
// the fields both share, and the fields each adds per kind of object.
import { filteringProblems, kindFieldProblems } from "../check/filtering-fields.ts";
import { isRecord } from "../check/payload-shape.ts";
import { rule } from "../document/requirements.ts";
import { bySchema, eventRule, type FoundBy } from "./event-rule.ts";

export const entityFilter = eventRule({
  requirements: [rule.entityFilter],
  // One walk of the object judges the filters of both kinds (this rule, event-filter-02 and -03).
  judge({ typed, config, position }, found) {
    if (!typed?.info || !config) return undefined;
    const { kind, type, payload } = typed;
    const object = payload.object;
    if (isRecord(object) && (kind === "snapshot" || kind === "name-only"))
      found.push(...filteringProblems(typed.info.objectKind, type, object, config, position));
    return undefined;
  },
});

/** The rules the walk of events/event-filter-01 judges too, on the messages it walks. */
const byFilterWalk: FoundBy = {
  foundBy:
    "the walk of the filtering fields of events/event-filter-01 (src/events/check/filtering-fields.ts)",
  judgedWith: entityFilter,
};

export const allFields = eventRule({ requirements: [rule.allFields], judge: byFilterWalk });

export const relationFilter = eventRule({ requirements: [rule.relationFilter], judge: byFilterWalk });

export const commonFields = eventRule({ requirements: [rule.commonFields], judge: bySchema });

export const entityKindFields = eventRule({
  requirements: [rule.entityKindFields],
  // One walk of a snapshot's object judges the per-kind fields of both kinds (this rule, -06 and -07).
  judge({ typed, config, position }, found) {
    if (!typed?.info || typed.kind !== "snapshot") return undefined;
    const object = typed.payload.object;
    if (!isRecord(object)) return undefined;
    const misplaced = kindFieldProblems(typed.info.objectKind, typed.type, object, position, config);
    if (misplaced) found.push(...misplaced);
    return undefined;
  },
});

/** The rules the walk of events/event-filter-05 judges too, on the messages it walks. */
const byKindFieldWalk: FoundBy = {
  foundBy: "the walk of the per-kind fields of events/event-filter-05 (src/events/check/filtering-fields.ts)",
  judgedWith: entityKindFields,
};

export const relationKindFields = eventRule({
  requirements: [rule.relationKindFields],
  judge: byKindFieldWalk,
});

export const unlistedKindField = eventRule({
  requirements: [rule.unlistedKindField],
  judge: byKindFieldWalk,
});
