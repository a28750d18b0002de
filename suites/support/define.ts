// Declaring a check: the suite comes from the id and the level from the title, so they cannot disagree.
import { type Check, LEVELS, type Level } from "../../src/check/index.ts";

export type CheckDefinition = Omit<Check, "suite" | "level">;

export function defineCheck(definition: CheckDefinition): Check {
  const [suite, slug, extra] = definition.id.split("/");
  if (!suite || !slug || extra !== undefined)
    throw new Error(`check id "${definition.id}" must be "<suite>/<slug>"`);
  const level = definition.title.split(" ")[0] as Level;
  if (!LEVELS.includes(level))
    throw new Error(
      `check ${definition.id}: title must start with MUST, SHOULD or MAY, got "${definition.title}"`,
    );
  if (definition.requirements.length === 0)
    throw new Error(`check ${definition.id} names no requirement; name the catalogue ids it proves`);
  return { ...definition, suite, level };
}
