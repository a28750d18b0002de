// The event contract (event-schemas/) loaded and compiled once with ajv (JSON Schema 2020-12): one
// validator per event type, so checking a message dispatches on `type` instead of trying a big oneOf.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { packagePath } from "../package-root.ts";
import type { ObjectKind, ObjectPayloadKind } from "./payload-kind.ts";

export type { ObjectKind };

export const eventSchemasDir = packagePath("event-schemas");

export interface SchemaFile {
  /** Path relative to event-schemas/, with forward slashes. */
  path: string;
  schema: Record<string, unknown>;
}

/**
 * Validates data against one schema: null when valid, else every error (with parentSchema, so that the
 * checker can find the rule). Valid data runs a lean validator (first error stops it, no error details);
 * only data that fails runs the detailed one, compiled on first need.
 */
export type Validator = (data: unknown) => ErrorObject[] | null;

export interface EventTypeInfo {
  type: string;
  objectKind: ObjectKind;
  /** GROUP_*: defined by the document, "currently unused". */
  unused: boolean;
  schemaId: string;
  /** The whole per-type schema (every payload kind). */
  validate: Validator;
  /** One validator per payload kind ($defs snapshot, deltas, largeObject); none for change requests. */
  byKind: Partial<Record<ObjectPayloadKind, Validator>>;
}

/** What the checker reads from a subschema when one of its keywords fails. */
export interface Annotation {
  /** x-requirements of the subschema or of its nearest ancestor in the same file; the first is reported. */
  rules: string[];
  /** x-message of this very subschema: the readable rule, said once in the schema. */
  message?: string;
  /** title of the subschema or of its nearest titled ancestor. */
  title?: string;
}

export interface CompiledEventSchemas {
  files: SchemaFile[];
  types: ReadonlyMap<string, EventTypeInfo>;
  unsupportedTypes: readonly string[];
  headers: Validator;
  payload: Validator;
  message: Validator;
  streamingConfig: Validator;
  /** The kit's preferred deltas shapes (SHOULD level: the document does not show the structure of deltas). */
  preferredDeltas: { message: Validator; collection: Validator };
  annotations: WeakMap<object, Annotation>;
}

/** Annotation keywords of the kit; declared so that ajv's strict mode accepts them. */
export const annotationKeywords = [
  "x-requirements",
  "x-message",
  "x-event-type",
  "x-object-kind",
  "x-unused",
  "x-unsupported-types",
] as const;

export function readEventSchemas(dir: string = eventSchemasDir): SchemaFile[] {
  const files: SchemaFile[] = [];
  const visit = (sub: string): void => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const path = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".schema.json")) {
        files.push({ path, schema: JSON.parse(readFileSync(join(dir, path), "utf8")) });
      }
    }
  };
  visit("");
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

function annotate(node: unknown, inherited: Annotation, into: WeakMap<object, Annotation>): void {
  if (Array.isArray(node)) {
    for (const item of node) annotate(item, inherited, into);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  const rules = record["x-requirements"];
  const own: Annotation = {
    rules: Array.isArray(rules) ? (rules as string[]) : inherited.rules,
    title: typeof record.title === "string" ? record.title : inherited.title,
  };
  if (typeof record["x-message"] === "string") own.message = record["x-message"];
  into.set(record, own);
  const forChildren: Annotation = { rules: own.rules, title: own.title };
  for (const value of Object.values(record)) annotate(value, forChildren, into);
}

function getCompiled(ajv: Ajv2020, id: string): ValidateFunction {
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`event-schemas: no schema with $id ${id}; check the $id of the file`);
  return validate;
}

function newAjv(detailed: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: detailed,
    // verbose: errors carry parentSchema, through which a failure finds its x-requirements (no path parsing).
    verbose: detailed,
    strict: true,
    strictRequired: false,
    strictTypes: false,
    discriminator: true,
  });
  // "fast" formats: date-time by one regular expression (ISO 8601 / RFC 3339 shape), no calendar checks.
  addFormats.default(ajv, { mode: "fast" });
  ajv.addVocabulary([...annotationKeywords]);
  return ajv;
}

export function compileEventSchemas(dir: string = eventSchemasDir): CompiledEventSchemas {
  const files = readEventSchemas(dir);
  const annotations = new WeakMap<object, Annotation>();
  const idOf = new Map<string, string>();
  for (const file of files) {
    const id = file.schema.$id;
    if (typeof id !== "string") throw new Error(`event-schemas/${file.path}: every schema needs a $id`);
    idOf.set(file.path, id);
    annotate(file.schema, { rules: [] }, annotations);
  }
  const load = (ajv: Ajv2020): Ajv2020 => {
    for (const file of files) ajv.addSchema(file.schema);
    return ajv;
  };
  const lean = load(newAjv(false));
  let detailed: Ajv2020 | undefined;
  const validator = (ref: string): Validator => {
    const fast = getCompiled(lean, ref);
    let full: ValidateFunction | undefined;
    return (data) => {
      if (fast(data)) return null;
      detailed ??= load(newAjv(true));
      full ??= getCompiled(detailed, ref);
      return full(data) ? [] : (full.errors ?? []);
    };
  };
  const byPath = (path: string): Validator => validator(idOf.get(path) ?? path);

  const types = new Map<string, EventTypeInfo>();
  for (const file of files) {
    const type = file.schema["x-event-type"];
    if (typeof type !== "string") continue;
    const schemaId = idOf.get(file.path) ?? file.path;
    const defs = (file.schema.$defs ?? {}) as Record<string, unknown>;
    const kind = (name: string): Validator | undefined =>
      name in defs ? validator(`${schemaId}#/$defs/${name}`) : undefined;
    types.set(type, {
      type,
      objectKind: file.schema["x-object-kind"] as ObjectKind,
      unused: file.schema["x-unused"] === true,
      schemaId,
      validate: byPath(file.path),
      byKind: { snapshot: kind("snapshot"), deltas: kind("deltas"), "large-object": kind("largeObject") },
    });
  }
  const payloadFile = files.find((file) => file.path === "payload.schema.json");
  const unsupportedTypes = (payloadFile?.schema["x-unsupported-types"] ?? []) as string[];
  return {
    files,
    types,
    unsupportedTypes,
    headers: byPath("headers.schema.json"),
    payload: byPath("payload.schema.json"),
    message: byPath("message.schema.json"),
    streamingConfig: byPath("streaming-config.schema.json"),
    preferredDeltas: {
      message: byPath("objects/entity-changed-delta.schema.json"),
      collection: byPath("objects/delta-collection.schema.json"),
    },
    annotations,
  };
}

/** The properties a schema file declares: its own and those of the object schemas in its allOf. */
function declaredFields(schema: Record<string, unknown>): string[] {
  const parts = [schema, ...((schema.allOf ?? []) as Record<string, unknown>[])];
  return parts.flatMap((part) => Object.keys((part.properties ?? {}) as Record<string, unknown>));
}

let objectFields: { common: string[]; entity: string[]; relationship: string[] } | undefined;

/**
 * The object fields a filtering property can select, as the contract declares them
 * (objects/common.schema.json, then the kind's own in objects/entity.schema.json or
 * objects/relationship.schema.json), in their order there. Read from the files, not compiled.
 */
export function selectableFields(kind: "common" | "entity" | "relationship"): readonly string[] {
  if (!objectFields) {
    const files = compiled?.files ?? readEventSchemas();
    const fields = (path: string): string[] => {
      const file = files.find((candidate) => candidate.path === path);
      if (!file) throw new Error(`event-schemas/${path} is missing; restore it from the package`);
      return declaredFields(file.schema);
    };
    const common = fields("objects/common.schema.json");
    objectFields = {
      common,
      entity: [...common, ...fields("objects/entity.schema.json")],
      relationship: [...common, ...fields("objects/relationship.schema.json")],
    };
  }
  return objectFields[kind];
}

let listed: ReadonlySet<string> | undefined;

/** The event types of the document's lists: the table's (one schema file each) and the unsupported list.
 *  Read from the files, not compiled. */
export function listedEventTypes(): ReadonlySet<string> {
  if (!listed) {
    const files = compiled?.files ?? readEventSchemas();
    const types = files.map((file) => file.schema["x-event-type"]).filter((t) => typeof t === "string");
    const payload = files.find((file) => file.path === "payload.schema.json");
    listed = new Set([...types, ...((payload?.schema["x-unsupported-types"] ?? []) as string[])]);
  }
  return listed;
}

let compiled: CompiledEventSchemas | undefined;

/** The compiled contract, built on first use and shared by every check afterwards. */
export function eventSchemas(): CompiledEventSchemas {
  compiled ??= compileEventSchemas();
  return compiled;
}
