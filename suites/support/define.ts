// Declaring a check: an HTTP check is a rule of kind "http" (src/check/rule.ts, the one shape of every rule
// of the kit); its suite comes from its id and its level from its title, so they cannot disagree.
import { type Check, defineRule } from "../../src/check/index.ts";

export type CheckDefinition = Omit<Check, "suite" | "level" | "kind">;

export function defineCheck(definition: CheckDefinition): Check {
  const check = defineRule("http", definition);
  return { ...check, suite: check.id.split("/")[0] as string };
}
