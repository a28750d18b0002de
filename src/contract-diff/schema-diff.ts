// Compares two versions of a JSON Schema (OpenAPI 3.1 schema objects or event schemas) in one direction:
// - "request": what consumers send and the provider must still accept. Narrowing breaks (a type, an enum
//   value or a bound taken away, a field newly required); widening is compatible.
// - "response": what the provider sends and consumers must still understand. Widening breaks (a new enum
//   value, a new type, a looser bound, a field removed or no longer required); narrowing is compatible.
import { type DocumentLoader, isRecord, type Located } from "./document-loader.ts";

export type Direction = "request" | "response";
export type ChangeLevel = "breaking" | "compatible";

/** One classified difference between two contract versions. */
export interface ContractChange {
  level: ChangeLevel;
  /** Stable code of the kind of change, e.g. field-removed, enum-value-added, endpoint-removed. */
  kind: string;
  /** Where: operation or event type, then the part and the field path. */
  where: string;
  /** What changed, in words with the old and new values. */
  detail: string;
}

export interface SchemaDiffContext {
  loader: DocumentLoader;
  changes: ContractChange[];
  /** Pairs of $ref targets already compared in a direction: recursive schemas end here. */
  seen: Set<string>;
}

const breakingWhen = (direction: Direction, narrowing: boolean): ChangeLevel =>
  (direction === "request") === narrowing ? "breaking" : "compatible";

function push(context: SchemaDiffContext, level: ChangeLevel, kind: string, where: string, detail: string) {
  context.changes.push({ level, kind, where, detail });
}

function typesOf(schema: Record<string, unknown>): Set<string> | undefined {
  const type = schema.type;
  if (typeof type === "string") return new Set([type]);
  if (Array.isArray(type)) return new Set(type.map(String));
  return undefined;
}

/** Does `outer` accept every value of type `inner` (integer is a number)? */
function covers(outer: Set<string>, inner: string): boolean {
  return outer.has(inner) || (inner === "integer" && outer.has("number"));
}

function valuesOf(schema: Record<string, unknown>): Set<string> | undefined {
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map((value) => JSON.stringify(value)));
  if ("const" in schema) return new Set([JSON.stringify(schema.const)]);
  return undefined;
}

const upperBounds = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"] as const;
const lowerBounds = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"] as const;

function closed(schema: Record<string, unknown>): boolean {
  return schema.additionalProperties === false || schema.unevaluatedProperties === false;
}

/** Compares two schema nodes and records every difference found below `where`. */
export function diffSchema(
  context: SchemaDiffContext,
  before: Located,
  after: Located,
  direction: Direction,
  where: string,
): void {
  const old = context.loader.deref(before);
  const next = context.loader.deref(after);
  if (old.ref && next.ref) {
    // Scope: the operation or event type and its part (where up to " $"), so a shared schema is reported
    // under each operation that uses it, and a recursive one is walked once per scope.
    const key = `${direction}|${old.ref}|${next.ref}|${where.split(" $")[0]}`;
    if (context.seen.has(key)) return;
    context.seen.add(key);
  }
  if (!isRecord(old.node) || !isRecord(next.node)) {
    if (JSON.stringify(old.node) !== JSON.stringify(next.node))
      push(
        context,
        "breaking",
        "schema-changed",
        where,
        `schema ${JSON.stringify(old.node)} became ${JSON.stringify(next.node)}`,
      );
    return;
  }
  const a = old.node;
  const b = next.node;
  const child = (node: unknown, from: Located): Located => ({ node, file: from.file });

  // Types.
  const typesA = typesOf(a);
  const typesB = typesOf(b);
  if (typesA && !typesB)
    push(
      context,
      breakingWhen(direction, false),
      "type-widened",
      where,
      `type ${[...typesA].join("|")} became any type`,
    );
  else if (!typesA && typesB)
    push(
      context,
      breakingWhen(direction, true),
      "type-narrowed",
      where,
      `any type became ${[...typesB].join("|")}`,
    );
  else if (typesA && typesB) {
    const lost = [...typesA].filter((type) => !covers(typesB, type));
    const gained = [...typesB].filter((type) => !covers(typesA, type));
    if (lost.length > 0)
      push(
        context,
        breakingWhen(direction, true),
        "type-narrowed",
        where,
        `type ${[...typesA].join("|")} became ${[...typesB].join("|")} (no longer ${lost.join(", ")})`,
      );
    if (gained.length > 0)
      push(
        context,
        breakingWhen(direction, false),
        "type-widened",
        where,
        `type ${[...typesA].join("|")} became ${[...typesB].join("|")} (now also ${gained.join(", ")})`,
      );
  }

  // Enumerations and constants.
  const valuesA = valuesOf(a);
  const valuesB = valuesOf(b);
  if (valuesA && !valuesB)
    push(
      context,
      breakingWhen(direction, false),
      "enum-removed",
      where,
      `the value list ${[...valuesA].join(", ")} was dropped (any value now)`,
    );
  else if (!valuesA && valuesB)
    push(
      context,
      breakingWhen(direction, true),
      "enum-added",
      where,
      `values are now limited to ${[...valuesB].join(", ")}`,
    );
  else if (valuesA && valuesB) {
    const added = [...valuesB].filter((value) => !valuesA.has(value));
    const removed = [...valuesA].filter((value) => !valuesB.has(value));
    if (added.length > 0)
      push(
        context,
        breakingWhen(direction, false),
        "enum-value-added",
        where,
        `new value(s) ${added.join(", ")}`,
      );
    if (removed.length > 0)
      push(
        context,
        breakingWhen(direction, true),
        "enum-value-removed",
        where,
        `value(s) ${removed.join(", ")} removed`,
      );
  }

  // Bounds and patterns.
  for (const bound of [...upperBounds, ...lowerBounds]) {
    const x = a[bound];
    const y = b[bound];
    if (x === y) continue;
    const upper = (upperBounds as readonly string[]).includes(bound);
    const tightened =
      typeof x !== "number" ? typeof y === "number" : typeof y !== "number" ? false : upper ? y < x : y > x;
    push(
      context,
      breakingWhen(direction, tightened),
      tightened ? "bound-tightened" : "bound-loosened",
      where,
      `${bound} ${x ?? "none"} became ${y ?? "none"}`,
    );
  }
  if (a.pattern !== b.pattern) {
    const narrowing = b.pattern !== undefined;
    push(
      context,
      a.pattern !== undefined && b.pattern !== undefined ? "breaking" : breakingWhen(direction, narrowing),
      "pattern-changed",
      where,
      `pattern ${a.pattern ?? "none"} became ${b.pattern ?? "none"}`,
    );
  }

  // Object fields.
  const requiredA = new Set(Array.isArray(a.required) ? a.required.map(String) : []);
  const requiredB = new Set(Array.isArray(b.required) ? b.required.map(String) : []);
  for (const name of requiredB)
    if (!requiredA.has(name))
      push(context, breakingWhen(direction, true), "required-added", `${where}.${name}`, "newly required");
  for (const name of requiredA)
    if (!requiredB.has(name))
      push(
        context,
        breakingWhen(direction, false),
        "required-removed",
        `${where}.${name}`,
        "no longer required",
      );
  const propertiesA = isRecord(a.properties) ? a.properties : {};
  const propertiesB = isRecord(b.properties) ? b.properties : {};
  for (const name of Object.keys(propertiesA)) {
    if (!(name in propertiesB)) {
      const level: ChangeLevel = direction === "response" || closed(b) ? "breaking" : "compatible";
      push(
        context,
        level,
        "field-removed",
        `${where}.${name}`,
        direction === "response" ? "no longer sent" : "no longer declared",
      );
      continue;
    }
    diffSchema(
      context,
      child(propertiesA[name], old),
      child(propertiesB[name], next),
      direction,
      `${where}.${name}`,
    );
  }
  for (const name of Object.keys(propertiesB))
    if (!(name in propertiesA)) push(context, "compatible", "field-added", `${where}.${name}`, "new field");
  if (!closed(a) && closed(b))
    push(
      context,
      breakingWhen(direction, true),
      "object-closed",
      where,
      "undeclared fields are no longer allowed",
    );
  if (closed(a) && !closed(b))
    push(
      context,
      breakingWhen(direction, false),
      "object-opened",
      where,
      "undeclared fields are now allowed",
    );
  if (isRecord(a.additionalProperties) && isRecord(b.additionalProperties))
    diffSchema(
      context,
      child(a.additionalProperties, old),
      child(b.additionalProperties, next),
      direction,
      `${where}.*`,
    );

  // Arrays.
  if (a.items !== undefined && b.items !== undefined)
    diffSchema(context, child(a.items, old), child(b.items, next), direction, `${where}[]`);

  // Compositions: alternatives added to oneOf/anyOf widen, allOf members added narrow.
  for (const keyword of ["oneOf", "anyOf", "allOf"] as const) {
    const listA = Array.isArray(a[keyword]) ? (a[keyword] as unknown[]) : [];
    const listB = Array.isArray(b[keyword]) ? (b[keyword] as unknown[]) : [];
    const common = Math.min(listA.length, listB.length);
    for (let index = 0; index < common; index++)
      diffSchema(
        context,
        child(listA[index], old),
        child(listB[index], next),
        direction,
        `${where}(${keyword} ${index})`,
      );
    if (listA.length === listB.length) continue;
    const widens = (keyword === "allOf") === listB.length < listA.length;
    push(
      context,
      breakingWhen(direction, !widens),
      `${keyword}-changed`,
      where,
      `${keyword} had ${listA.length} member(s), now ${listB.length}`,
    );
  }
}
