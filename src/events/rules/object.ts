// The object of a snapshot: never empty; attribute values and their lookupError; a relationship object;
// crosswalks.
import { describeValue } from "../check/event-problem.ts";
import { pointer } from "../check/filtering-fields.ts";
import { isRecord } from "../check/payload-shape.ts";
import { rule } from "../document/requirements.ts";
import { bySchema, type EventFindings, eventRule } from "./event-rule.ts";

export const objectNotEmpty = eventRule({ requirements: [rule.objectNotEmpty], judge: bySchema });

export const attributeValue = eventRule({ requirements: [rule.attributeValue], judge: bySchema });

export const lookupError = eventRule({
  requirements: [rule.lookupError],
  // The schemas judge lookupError where they describe attribute values; this judge finds it wherever
  // values sit, and runs only when the message has a key of that name.
  judge({ typed, walk }, found) {
    if (!typed?.info || typed.kind === "none" || !walk.lookupError) return undefined;
    const object = typed.payload.object;
    if (isRecord(object)) nestedLookupErrors(object, found);
    return undefined;
  },
});

export const relationshipObject = eventRule({
  requirements: [rule.relationshipObject],
  judge: {
    foundBy:
      "the payload schemas (event-schemas/), and the filtering fields' walk of events/event-filter-01 where a filter lets a field through",
  },
});

export const crosswalk = eventRule({ requirements: [rule.crosswalk], judge: bySchema });

const lookupErrorMessage =
  'lookupError must be a string starting with a numeric error code (1003 when the canonical value mapping is missing), e.g. "1003: canonical value not found"';

/**
 * lookupError wherever attribute values sit: nested and reference attributes carry values inside values,
 * relationship objects inside the object. Walks the object iteratively (its depth is bounded already);
 * a place the schema reported already is not reported twice.
 */
function nestedLookupErrors(object: Record<string, unknown>, found: EventFindings): void {
  const requirement = lookupError.requirements[0];
  const reported = new Set(
    found.problems.filter((p) => p.requirement === requirement).map((p) => p.instancePath),
  );
  const stack: [unknown, string][] = [[object, "/payload/object"]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, string];
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index -= 1) {
        const item = node[index];
        if (item !== null && typeof item === "object") stack.push([item, `${path}/${index}`]);
      }
      continue;
    }
    if (!isRecord(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      // Paths are built only where they are used: for a lookupError and for a nested object or array.
      if (key === "lookupError") {
        const at = `${path}${pointer(key)}`;
        const valid = typeof value === "string" && /^[0-9]+/.test(value);
        if (!valid && !reported.has(at)) {
          found.add({
            instancePath: at,
            keyword: typeof value === "string" ? "pattern" : "type",
            message: `${lookupErrorMessage}; got ${describeValue(value)}`,
          });
        }
      } else if (value !== null && typeof value === "object") stack.push([value, `${path}${pointer(key)}`]);
    }
  }
}
