// The document's field tables as type rules. MUST-level checks judge only the fields a record carries:
// the document marks no field as required, so the kit never requires one (the schema suite, SHOULD,
// holds the kit's stricter choices).
import { LOOKUP_TYPE_URI_PATTERN, lookupTypeName, lookupTypeUri } from "../../src/contract/index.ts";

type Rule = "string" | "number" | "integer" | "boolean" | "array" | ((value: unknown) => string | undefined);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function typeProblem(rule: Rule, value: unknown): string | undefined {
  switch (rule) {
    case "string":
    case "number":
    case "boolean":
      return typeof value === rule ? undefined : `expected a ${rule}, got ${JSON.stringify(value)}`;
    case "integer":
      return Number.isInteger(value) ? undefined : `expected an integer, got ${JSON.stringify(value)}`;
    case "array":
      return Array.isArray(value) ? undefined : `expected an array, got ${JSON.stringify(value)}`;
    default:
      return rule(value);
  }
}

function objectOf(rules: Record<string, Rule>): (value: unknown) => string | undefined {
  return (value) => {
    if (!isObject(value)) return `expected an object, got ${JSON.stringify(value)}`;
    return fieldProblems(value, rules)[0];
  };
}

function arrayOf(rule: Rule): (value: unknown) => string | undefined {
  return (value) => {
    if (!Array.isArray(value)) return `expected an array, got ${JSON.stringify(value)}`;
    for (const [i, item] of value.entries()) {
      const problem = typeProblem(rule, item);
      if (problem) return `[${i}]: ${problem}`;
    }
    return undefined;
  };
}

/** Problems of the fields present in `record`, as "field: problem". */
export function fieldProblems(record: Record<string, unknown>, rules: Record<string, Rule>): string[] {
  const problems: string[] = [];
  for (const [field, rule] of Object.entries(rules)) {
    if (!(field in record) || record[field] === undefined) continue;
    const problem = typeProblem(rule, record[field]);
    if (problem)
      problems.push(`${field}${problem.startsWith("[") || problem.startsWith(".") ? "" : ": "}${problem}`);
  }
  return problems;
}

const lookupTypeUriPattern = new RegExp(LOOKUP_TYPE_URI_PATTERN);

const lookupTypeUriRule = (value: unknown) =>
  typeof value === "string" && lookupTypeUriPattern.test(value)
    ? undefined
    : `expected a lookup type URI ${lookupTypeUri("<type_name>")}, got ${JSON.stringify(value)}`;

// A bare type name, or the URI of one: what remains once the URI prefix is taken off is a name without "/".
const lookupTypeNameOrUriRule = (value: unknown) =>
  typeof value === "string" && /^[^/]+$/.test(lookupTypeName(value))
    ? undefined
    : `expected a lookup type name or ${lookupTypeUri("<type_name>")}, got ${JSON.stringify(value)}`;

/** Resource table "Lookup". */
export const lookupRules: Record<string, Rule> = {
  tenantId: "string",
  updatedBy: "string",
  updateDate: "number",
  version: "integer",
  type: lookupTypeUriRule,
  code: "string",
  enabled: "boolean",
  sourceMappings: arrayOf(
    objectOf({
      source: "string",
      values: arrayOf(
        objectOf({
          code: "string",
          value: "string",
          enabled: "boolean",
          canonicalValue: "boolean",
          downStreamDefaultValue: "boolean",
        }),
      ),
    }),
  ),
  localizations: "array",
  parents: arrayOf("string"),
  attributes: arrayOf(objectOf({ name: "string", value: "string" })),
  startDate: "number",
  endDate: "number",
};

/** Resource table "Autopilot match statistic"; status is an open set of strings. */
export const statisticRules: Record<string, Rule> = {
  tenantId: "string",
  lookupType: lookupTypeNameOrUriRule,
  source: "string",
  unmappedValue: "string",
  candidateLookupCode: "string",
  candidateValue: "string",
  semanticScore: "number",
  centroidMatch: "boolean",
  currentFrequency: "number",
  requiredFrequency: "number",
  frequencyAtMapping: "number",
  frequencyWindowHours: "number",
  status: "string",
  mappedAt: "number",
  mappedBy: "string",
  createdAt: "number",
  sourceFrequency: objectOf({
    totalCount: "number",
    hourlyFrequency: (value) => {
      if (!isObject(value)) return `expected an object, got ${JSON.stringify(value)}`;
      const bad = Object.entries(value).find(
        ([key, count]) => !/^\d+$/.test(key) || typeof count !== "number",
      );
      return bad
        ? `expected counts keyed by epoch-millisecond buckets, got "${bad[0]}": ${JSON.stringify(bad[1])}`
        : undefined;
    },
  }),
  updateDate: "number",
  aiConfidence: "number",
  aiReasoning: "string",
  dcrId: "string",
  configVersion: "number",
};

/** Resource table "Blocked value" (lookupType: the URI form, the bare name accepted). */
export const blockedValueRules: Record<string, Rule> = {
  tenantId: "string",
  lookupType: lookupTypeNameOrUriRule,
  value: "string",
  createdAt: "number",
  createdBy: "string",
};

/** The first problems of a list of records, naming the record. */
export function recordsProblem(
  records: readonly unknown[],
  rules: Record<string, Rule>,
  name: (record: Record<string, unknown>) => string,
): string | undefined {
  const found: string[] = [];
  for (const record of records) {
    if (!isObject(record)) {
      found.push(`a record is not an object: ${JSON.stringify(record)}`);
    } else {
      for (const problem of fieldProblems(record, rules)) found.push(`${name(record)}: ${problem}`);
    }
    if (found.length >= 5) break;
  }
  return found.length === 0 ? undefined : `fields of the wrong type: ${found.join("; ")}`;
}
