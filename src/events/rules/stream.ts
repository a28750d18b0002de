// The stream: after a GDPR removal only creations and GDPR removals remain; a reference attribute's change
// reaches the entities that hold it with ovChanged true; large-object fallbacks only where configured.
import { rule } from "../document/requirements.ts";
import { byReferenceCompanions, byStreamRules, eventRule } from "./event-rule.ts";

export const gdpr = eventRule({
  id: "events/event-stream-01",
  title:
    "MUST After ENTITY_REMOVED_GDPR, only ENTITY_CREATED and ENTITY_REMOVED_GDPR events remain for that entity.",
  requirements: [rule.gdpr],
  judge: byStreamRules,
});

export const referenceOvChanged = eventRule({
  id: "events/event-stream-02",
  title:
    "MUST When a change occurs inside a relation or an entity that is part of a reference attribute of other entities, the ENTITY_CHANGED events for those entities carry ovChanged true.",
  requirements: [rule.referenceOvChanged],
  judge: byReferenceCompanions,
});

export const largeObjectConfig = eventRule({
  id: "events/event-stream-03",
  title:
    "MUST Large-object fallback happens only with largeObjectsSupport on, when the compressed event exceeds the size limit.",
  requirements: [rule.largeObjectConfig],
  judge({ typed, config }, found) {
    if (!typed?.info || !config) return undefined;
    if (typed.kind === "large-object" && config.largeObjectsSupport === false) {
      found.add({
        instancePath: "/payload",
        keyword: "largeObjectsSupport",
        message:
          "a large-object fallback (no object, exceededQueueSizeLimit true), but the streaming configuration sets largeObjectsSupport false",
      });
    }
    return undefined;
  },
});
