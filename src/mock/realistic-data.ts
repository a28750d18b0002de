// Realistic-data hints for Prism's dynamic responses (`lckit mock --dynamic --seed N`). Prism fills a schema
// with json-schema-faker, seeded; left to itself it invents negative timestamps, "bEaRer", versions like
// "3047720415.33", task types like "labore ex" and arrays of hundreds of strings. The hints narrow each
// field to what a real deployment sends (epoch milliseconds of recent years, a dotted version, lookup
// types and codes of the fixture world, a few array items), using only schema keywords the seeded
// generator honours (enum, pattern, minimum/maximum, maxItems), so the same seed gives the same answer.
// Every hint is a narrowing: what the hinted copy generates is still valid against the consumer contract.
import { LOOKUP_TYPE_URI_PATTERN, lookupTypeUri } from "../contract/index.ts";

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** 2024-01-01 to 2026-01-01 in epoch milliseconds. */
const EPOCH_MS = { minimum: 1_704_067_200_000, maximum: 1_767_225_600_000 };
const LOOKUP_TYPES = ["Country", "Gender", "Currency"];

const timestamps = new Set(["createdAt", "updateDate", "mappedAt", "createdTime", "startDate", "endDate"]);
const counts: Record<string, [number, number]> = {
  version: [1, 40],
  expires_in: [300, 3600],
  accessTokenValidity: [300, 86_400],
  refreshTokenValidity: [3600, 604_800],
  maxActiveTokensAllowed: [1, 200],
  currentFrequency: [0, 500],
  requiredFrequency: [1, 50],
  frequencyAtMapping: [0, 500],
  totalCount: [0, 500],
  frequencyWindowHours: [1, 168],
  configVersion: [1, 20],
};
const ratios = new Set(["semanticScore", "aiConfidence"]);
const strings: Record<string, Schema> = {
  access_token: { pattern: "^[A-Za-z0-9_-]{40}$" },
  scope: { enum: ["entities_api", "configuration_api entities_api"] },
  token_type: { enum: ["bearer"] },
  "rdm-service": { pattern: "^[1-3]\\.[0-9]{1,2}\\.[0-9]{1,2}$" },
  scrollId: { pattern: "^[A-Za-z0-9]{22}$" },
  tenantId: { enum: ["acme"] },
  code: { pattern: "^[A-Z]{2}$" },
  candidateLookupCode: { pattern: "^[A-Z]{2}$" },
  lookupType: { enum: LOOKUP_TYPES },
  source: { enum: ["Marketo", "Salesforce", "SAP"] },
  unmappedValue: { enum: ["Azeraijan", "Deutschland", "Brasil", "Espana"] },
  candidateValue: { enum: ["Azerbaijan", "Germany", "Brazil", "Spain"] },
  value: { enum: ["Azeraijan", "Deutschland", "Brasil", "Espana"] },
  mappedBy: { pattern: "^[a-z]{3,8}@acme\\.example$" },
  createdBy: { pattern: "^[a-z]{3,8}@acme\\.example$" },
  updatedBy: { pattern: "^[a-z]{3,8}@acme\\.example$" },
  clientId: { pattern: "^acme-(viewer|editor|admin|quota)$" },
  id: { pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$" },
};
/** Items of string lists, by the list's name. */
const itemHints: Record<string, Schema> = {
  scope: { enum: ["configuration_api", "entities_api", "users_api"] },
  authorities: { enum: ["ROLE_RDM", "ROLE_RDM_EDIT", "ROLE_ADMIN_TENANT_acme"] },
  authorizedGrantTypes: { enum: ["client_credentials"] },
  redirectUri: { enum: ["https://app.acme.example/callback"] },
  resourceIds: { enum: ["rdm"] },
  tenants: { enum: ["acme"] },
  parents: { pattern: "^acme/(Country|Gender|Currency)/[A-Z]{2}$" },
};
/** Array sizes: scan pages a few records, every other list fewer. */
const pageItems = 5;
const listItems = 3;

function typeIs(schema: Schema, ...types: string[]): boolean {
  const type = schema.type;
  return typeof type === "string"
    ? types.includes(type)
    : Array.isArray(type) && type.some((t) => types.includes(String(t)));
}

/** Narrows one property's schema in place by its name. */
function hintProperty(name: string, schema: Schema): void {
  if (timestamps.has(name) && typeIs(schema, "number", "integer")) {
    Object.assign(schema, { type: "integer", ...EPOCH_MS });
    return;
  }
  const range = counts[name];
  if (range && typeIs(schema, "number", "integer")) {
    const minimum = Math.max(range[0], typeof schema.minimum === "number" ? schema.minimum : range[0]);
    const maximum = Math.min(range[1], typeof schema.maximum === "number" ? schema.maximum : range[1]);
    Object.assign(schema, { type: "integer", minimum, maximum });
    return;
  }
  if (ratios.has(name) && typeIs(schema, "number")) {
    Object.assign(schema, { minimum: 0, maximum: 1 });
    return;
  }
  if (!typeIs(schema, "string")) return;
  if (schema.pattern === LOOKUP_TYPE_URI_PATTERN) {
    delete schema.pattern;
    schema.enum = LOOKUP_TYPES.map(lookupTypeUri);
    return;
  }
  const hint = strings[name];
  if (hint && schema.enum === undefined && schema.format === undefined) {
    if ("enum" in hint) delete schema.pattern;
    Object.assign(schema, hint);
  }
}

function hintArray(name: string, schema: Schema): void {
  if (name === "uris" && isSchema(schema.items) && typeIs(schema.items, "string"))
    Object.assign(schema.items, { pattern: `^acme/(${LOOKUP_TYPES.join("|")})/[A-Z]{2}$` });
  const cap = name === "values" ? pageItems : listItems;
  const maxItems = typeof schema.maxItems === "number" ? Math.min(schema.maxItems, cap) : cap;
  schema.maxItems = typeof schema.minItems === "number" ? Math.max(schema.minItems, maxItems) : maxItems;
  const items = isSchema(schema.items) ? schema.items : undefined;
  const hint = itemHints[name];
  if (items && hint && typeIs(items, "string") && items.enum === undefined && items.pattern === undefined) {
    Object.assign(items, hint);
    // A list of distinct values: no ["rdm", "rdm", "rdm"].
    if (
      Array.isArray(hint.enum) &&
      (typeof schema.minItems !== "number" || schema.minItems <= hint.enum.length)
    )
      Object.assign(schema, {
        uniqueItems: true,
        maxItems: Math.min(Number(schema.maxItems), hint.enum.length),
      });
  }
}

/** Walks a schema tree: properties by name, then every nested schema. */
function walk(node: unknown, name: string): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, name);
    return;
  }
  if (!isSchema(node)) return;
  // A string schema with example values and no other constraint: answer one of its examples, not lorem.
  if (
    typeIs(node, "string") &&
    Array.isArray(node.examples) &&
    node.enum === undefined &&
    node.pattern === undefined &&
    node.examples.every((value) => typeof value === "string")
  )
    node.enum = [...node.examples];
  if (typeIs(node, "array")) hintArray(name, node);
  if (isSchema(node.properties)) {
    for (const [property, schema] of Object.entries(node.properties))
      if (isSchema(schema)) hintProperty(property, schema);
    // No invented extra fields ("occaecat_35": false): an answer holds the fields the contract names.
    if (node.additionalProperties === undefined || node.additionalProperties === true)
      node.additionalProperties = false;
  }
  for (const [key, value] of Object.entries(node)) {
    // Examples are data, not schemas: leave them as the contract has them.
    if (key === "example" || key === "examples" || key === "enum" || key === "const") continue;
    walk(value, key === "properties" || key === "items" ? name : key);
  }
}

const methods = ["get", "put", "post", "delete", "patch"];

/**
 * A deep copy of an OpenAPI document with the realistic-data hints applied to the response schemas.
 * Requests keep the contract's schemas: Prism validates requests against this copy, and a hint there would
 * refuse what the contract accepts (another tenant in a body, any lookup code).
 */
export function withRealisticHints(document: Record<string, unknown>): Record<string, unknown> {
  // A copy: the contract's resolved documents are shared with its validators and must stay as they are.
  const copy = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  const paths = isSchema(copy.paths) ? copy.paths : {};
  for (const item of Object.values(paths))
    for (const method of methods) {
      const operation = isSchema(item) ? item[method] : undefined;
      if (isSchema(operation)) walk(operation.responses, "");
    }
  return copy;
}
