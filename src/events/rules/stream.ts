// The stream: after a GDPR removal only creations and GDPR removals remain; a reference attribute's change
// reaches the entities that hold it with ovChanged true; large-object fallbacks only where configured.
import { rule } from "../document/requirements.ts";
import { byReferenceCompanions, byStreamRules, eventRule } from "./event-rule.ts";

export const gdpr = eventRule({ requirements: [rule.gdpr], judge: byStreamRules });

export const referenceOvChanged = eventRule({
  requirements: [rule.referenceOvChanged],
  judge: byReferenceCompanions,
});

export const largeObjectConfig = eventRule({
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
