// Filtering fields: what JMSEventsFilteringFields and RelationEventsFilteringFields let into an object,
// the fields both share, and the fields each adds per kind of object.
import { filteringProblems, kindFieldProblems } from "../check/filtering-fields.ts";
import { isRecord } from "../check/payload-shape.ts";
import { rule } from "../document/requirements.ts";
import { bySchema, eventRule, type FoundBy } from "./event-rule.ts";

export const entityFilter = eventRule({
  id: "events/event-filter-01",
  title: "MUST For entities, object holds only the fields listed in JMSEventsFilteringFields.",
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

export const allFields = eventRule({
  id: "events/event-filter-02",
  title: "MUST When the filtering property is absent, object holds all available fields.",
  requirements: [rule.allFields],
  judge: byFilterWalk,
});

export const relationFilter = eventRule({
  id: "events/event-filter-03",
  title:
    "MUST For relationships, object holds only the fields listed in RelationEventsFilteringFields, in the same way.",
  requirements: [rule.relationFilter],
  judge: byFilterWalk,
});

export const commonFields = eventRule({
  id: "events/event-filter-04",
  title:
    "MUST Both properties share the fields uri, type, createdBy, createdTime, updatedBy, updatedTime, startDate, endDate, attributes, crosswalks, tags, ratings and consolidatedRating.",
  requirements: [rule.commonFields],
  judge: bySchema,
});

export const entityKindFields = eventRule({
  id: "events/event-filter-05",
  title:
    "MUST JMSEventsFilteringFields adds per object kind roles, ctSubscribedUris, defaultProfilePic, label, secondaryLabel (entities); analyticsAttributes (categories); name (groups); potentialMatchTOs, matchRules, matchScore, relevance (potential matches); timestamp, members (interactions, change requests).",
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
  id: "events/event-filter-06",
  title:
    "MUST RelationEventsFilteringFields adds startRefPinned, startRefIgnored, endRefPinned, endRefIgnored, startObject and endObject.",
  requirements: [rule.relationKindFields],
  judge: byKindFieldWalk,
});

export const unlistedKindField = eventRule({
  id: "events/event-filter-07",
  title:
    "SHOULD Without the object's filtering property in the streaming configuration, an object carries the per-kind fields of its own kind only; a field the filtering properties add for another kind of object (analyticsAttributes or label on a relationship, members on an entity, startObject on an interaction) is reported as a warning. Fields on none of the lists are not judged.",
  requirements: [rule.unlistedKindField],
  judge: byKindFieldWalk,
});
