// Generates src/generated/events/streaming-config.ts from event-schemas/ with json-schema-to-typescript:
// the one event type the code reads as typed data (a streaming configuration, which users write).
// Event messages get no generated types: the checker must take every message as unknown JSON (the
// schemas and ajv decide what it is), the generator builds them from its world model and mutations
// break them on purpose, so typed payload unions would be imported by nothing. The schema files
// are bundled into one document first (every relative $ref rewritten to a local pointer), because the
// ref parser json-schema-to-typescript uses loses the base of a $ref that has sibling keywords.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compile, type JSONSchema } from "json-schema-to-typescript";
import type { GeneratedFile } from "../generate.ts";

const header = (source: string): string =>
  `// generated, do not edit: built by scripts/generators/event-types.ts from ${source}.\n// Run \`npm run generate\` after changing the schemas.\n`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function listSchemas(dir: string, sub = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
    const path = sub ? `${sub}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listSchemas(dir, path));
    else if (entry.name.endsWith(".schema.json")) out.push(path);
  }
  return out.sort();
}

/** "envelopes/large-object.schema.json" -> "envelopes~1large-object": the key of the file in the bundle. */
function keyOf(path: string): string {
  return path.replace(/\.schema\.json$/, "");
}

function resolvePath(from: string, relative: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of relative.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Rewrites the $refs of one file to pointers into the bundle's $defs. */
function rebase(node: Json, file: string): Json {
  if (Array.isArray(node)) return node.map((item) => rebase(item, file));
  if (node === null || typeof node !== "object") return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id" || key === "$schema") continue;
    if (key === "$ref" && typeof value === "string") {
      const [target = "", fragment = ""] = value.split("#");
      const path = target === "" ? file : resolvePath(file, target);
      out.$ref = `#/$defs/${escapePointer(keyOf(path))}${fragment}`;
      continue;
    }
    out[key] = rebase(value, file);
  }
  return out;
}

export function bundleEventSchemas(root: string): { $defs: Record<string, Json> } {
  const dir = join(root, "event-schemas");
  const defs: Record<string, Json> = {};
  for (const path of listSchemas(dir)) {
    defs[keyOf(path)] = rebase(JSON.parse(readFileSync(join(dir, path), "utf8")) as Json, path);
  }
  return { $defs: defs };
}

async function compileRoot(root: string, key: string, name: string): Promise<string> {
  const bundle = bundleEventSchemas(root);
  // The root is the chosen schema itself (a root $ref is not followed), carrying the bundle as $defs.
  const chosen = bundle.$defs[key] as { [key: string]: Json };
  const schema = {
    ...chosen,
    title: name,
    $defs: { ...(chosen.$defs as object), ...bundle.$defs },
  } as unknown as JSONSchema;
  return compile(schema, name, {
    bannerComment: "",
    format: false,
    additionalProperties: true,
    unreachableDefinitions: false,
    declareExternallyReferenced: true,
    strictIndexSignatures: false,
    $refOptions: { resolve: { external: false } },
  });
}

export async function generate(root: string): Promise<GeneratedFile[]> {
  const config = await compileRoot(root, "streaming-config", "StreamingConfiguration");
  return [
    {
      path: "src/generated/events/streaming-config.ts",
      content: `${header("event-schemas/streaming-config.schema.json")}\n${config}`,
    },
  ];
}
