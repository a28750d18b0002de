// Turns ajv errors into problems under the requirement they break: the id comes from the failing
// subschema's x-requirements, the text from its x-message or from the keyword, saying what was expected
// and what came.
import type { ErrorObject } from "ajv/dist/2020.js";
import type { Annotation } from "../event-schemas.ts";
import { describeValue, type RequirementProblem } from "./event-problem.ts";

/** Wrapper keywords whose failure is already reported by the inner error. */
const wrappers = new Set(["if", "allOf", "anyOf", "oneOf", "$ref"]);

function what(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const got = describeValue(error.data);
  switch (error.keyword) {
    case "required":
      return `missing required field "${String(params.missingProperty)}"`;
    case "unevaluatedProperties":
    case "additionalProperties": {
      const field = String(params.unevaluatedProperty ?? params.additionalProperty);
      return `unexpected field "${field}": the document lists every field of this message; remove it`;
    }
    case "type":
      return `expected ${String(params.type)}, got ${got}`;
    case "const":
      return `expected ${describeValue(params.allowedValue)}, got ${got}`;
    case "enum":
      return `expected one of ${(params.allowedValues as unknown[]).map((v) => describeValue(v)).join(", ")}, got ${got}`;
    case "format":
      return `expected a ${String(params.format)} value, got ${got}`;
    case "pattern":
      return `expected a string matching ${String(params.pattern)}, got ${got}`;
    case "minProperties":
      return `expected an object with at least ${String(params.limit)} field(s), got ${got}`;
    default:
      return `${error.message ?? error.keyword}, got ${got}`;
  }
}

export function problemsFromErrors(
  errors: readonly ErrorObject[] | null | undefined,
  options: {
    position: string;
    /** "/payload" or "/headers": where the validated value sits in the message envelope. */
    prefix: string;
    annotations: WeakMap<object, Annotation>;
    fallbackRule: string;
  },
): RequirementProblem[] {
  const problems: RequirementProblem[] = [];
  // One keyword failing at one place is one problem, even when two subschemas (an envelope and a
  // per-type schema) both state it; the first, outermost statement is kept.
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    if (wrappers.has(error.keyword)) continue;
    const key = `${error.instancePath}\u0000${error.keyword}\u0000${JSON.stringify(error.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const annotation =
      error.parentSchema && typeof error.parentSchema === "object"
        ? options.annotations.get(error.parentSchema)
        : undefined;
    const rule = annotation?.rules[0] ?? options.fallbackRule;
    const where = annotation?.title ? ` (${annotation.title})` : "";
    const message = annotation?.message
      ? error.keyword === "required" || error.keyword.endsWith("Properties")
        ? `${annotation.message}: ${what(error)}`
        : `${annotation.message}; got ${describeValue(error.data)}`
      : `${what(error)}${where}`;
    problems.push({
      position: options.position,
      instancePath: `${options.prefix}${error.instancePath}`,
      requirement: rule,
      keyword: error.keyword,
      message,
    });
  }
  return problems;
}
