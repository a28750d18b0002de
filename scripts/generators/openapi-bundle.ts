// Generates the single-file artefacts openapi/dist/{platform,lookup-data}.{yaml,json}: every $ref of the
// multi-file contract resolved into one self-contained document, for tools that cannot follow relative
// file references (Dredd, Specmatic, Postman import, Microcks, code generators run outside this repository).
//
// Besides inlining, the bundle ties one named example per operation across its parameters, its request body
// and its success response (the name of the success response's first example). Example-driven tools pair a
// request example with the response example of the same name; tying them makes the request they send one
// the sandbox accepts: the fixture tenant acme, customer cust-acme, lookup type Country, a token request
// with the fixture client's credentials in the form. The source documents stay as authored.
//
// A second pair, openapi/dist/kit-preferences/*, is the same bundle with the kit's preferences (the
// x-kit-preference entries, where the interface document is silent) applied as validation keywords: the
// contract `lckit serve` and the SHOULD-level checks hold to. Consumers build against the first; the
// second says what the kit's sandbox will additionally refuse (docs/consumers.md).
import { join } from "node:path";
import { stringify } from "yaml";
import { type Host, isObject, RefResolver } from "../../src/contract/index.ts";
import type { GeneratedFile } from "../generate.ts";

const hosts: readonly Host[] = ["platform", "lookup-data"];
const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

/**
 * Request examples to tie where the first listed one would not be accepted on its own: the token request
 * authenticated by form fields needs no Basic header that an example-driven tool would not know to send.
 */
const preferredRequestExample: Record<string, string> = { issueToken: "formAuth" };

type Json = Record<string, unknown>;

/** The bundled document of one host: resolved, path-level parameters pushed into operations, examples tied. */
export function bundleDocument(openapiDir: string, host: Host): Json {
  const resolved = new RefResolver().resolveDocument(join(openapiDir, `${host}.yaml`));
  // A deep copy: the resolver shares one object per $ref target, the bundle edits operations one by one.
  const document = JSON.parse(JSON.stringify(resolved)) as Json;
  const paths = isObject(document.paths) ? document.paths : {};
  for (const pathItem of Object.values(paths)) {
    if (!isObject(pathItem)) continue;
    const shared = Array.isArray(pathItem.parameters) ? pathItem.parameters : [];
    for (const method of methods) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const own = Array.isArray(operation.parameters) ? operation.parameters : [];
      const key = (parameter: unknown) => (isObject(parameter) ? `${parameter.in}:${parameter.name}` : "");
      const ownKeys = new Set(own.map(key));
      const merged = [...shared.filter((parameter) => !ownKeys.has(key(parameter))), ...own];
      if (merged.length > 0) operation.parameters = JSON.parse(JSON.stringify(merged));
      tieExamples(operation);
    }
    delete pathItem.parameters;
  }
  return document;
}

/** The name tied across an operation: its first 2xx response's first named example. */
export function tiedExampleName(operation: Json): string | undefined {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const success = Object.keys(responses)
    .filter((status) => /^2\d\d$/.test(status))
    .sort()[0];
  const response = success ? responses[success] : undefined;
  if (!isObject(response) || !isObject(response.content)) return undefined;
  for (const media of Object.values(response.content)) {
    if (isObject(media) && isObject(media.examples)) {
      const [name] = Object.keys(media.examples);
      if (name) return name;
    }
  }
  return undefined;
}

function tieExamples(operation: Json): void {
  const name = tiedExampleName(operation);
  if (!name) return;
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
    if (!isObject(parameter)) continue;
    const value = parameterValue(parameter);
    if (value === undefined) continue;
    const examples = isObject(parameter.examples) ? parameter.examples : {};
    // OpenAPI allows example or examples on a parameter, not both.
    delete parameter.example;
    parameter.examples = {
      [name]: { summary: "Tied example (the fixture world of lckit serve)", value },
      ...examples,
    };
  }
  const body = operation.requestBody;
  if (!isObject(body) || !isObject(body.content)) return;
  // Only the first media type is tied: the others are alternatives a tool need not exercise.
  const [media] = Object.values(body.content);
  if (!isObject(media)) return;
  const examples = isObject(media.examples) ? media.examples : {};
  if (name in examples) return;
  const preferred = preferredRequestExample[String(operation.operationId)];
  const source =
    (preferred && examples[preferred]) ??
    Object.values(examples)[0] ??
    ("example" in media ? { value: media.example } : undefined);
  if (!isObject(source)) return;
  delete media.example;
  media.examples = { [name]: JSON.parse(JSON.stringify(source)), ...examples };
}

function parameterValue(parameter: Json): unknown {
  if (isObject(parameter.examples)) {
    const first = Object.values(parameter.examples)[0];
    if (isObject(first) && "value" in first) return first.value;
  }
  if ("example" in parameter) return parameter.example;
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  return schema.default ?? schema.example;
}

/** The bundle with every x-kit-preference applied as validation keywords (a deep copy). */
export function withKitPreferences(document: Json): Json {
  const copy = JSON.parse(JSON.stringify(document)) as Json;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isObject(node)) return;
    const preference = node["x-kit-preference"];
    if (isObject(preference)) {
      // On a parameter the keywords belong to its schema; a key naming a property narrows that property.
      const target = "in" in node && isObject(node.schema) ? node.schema : node;
      const properties = isObject(target.properties) ? target.properties : {};
      for (const [key, value] of Object.entries(preference)) {
        const property = properties[key];
        if (isObject(property) && isObject(value)) Object.assign(property, value);
        else target[key] = value;
      }
    }
    for (const [key, value] of Object.entries(node))
      if (key !== "examples" && key !== "example") visit(value);
  };
  visit(copy);
  const info = isObject(copy.info) ? copy.info : {};
  copy.info = {
    ...info,
    title: `${String(info.title)} (with the kit's preferences)`,
  };
  return copy;
}

function yamlText(host: Host, document: Json, preferences = false): string {
  const header = [
    `# Generated by npm run generate from openapi/${host}.yaml and openapi/components/ (every $ref resolved,`,
    "# one example tied per operation), do not edit: change the source documents and run `npm run generate`.",
    ...(preferences
      ? [
          "# The kit's preferences (x-kit-preference) are applied as validation keywords: the sandbox's contract.",
        ]
      : []),
  ].join("\n");
  // aliasDuplicateObjects off: repeated schemas are written out in full, no YAML anchors (some tools
  // reject them).
  return `${header}\n${stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 })}`;
}

export async function generate(root: string): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const host of hosts) {
    const document = bundleDocument(join(root, "openapi"), host);
    files.push({ path: `openapi/dist/${host}.yaml`, content: yamlText(host, document) });
    files.push({ path: `openapi/dist/${host}.json`, content: `${JSON.stringify(document, null, 2)}\n` });
    const preferred = withKitPreferences(document);
    files.push({
      path: `openapi/dist/kit-preferences/${host}.yaml`,
      content: yamlText(host, preferred, true),
    });
    files.push({
      path: `openapi/dist/kit-preferences/${host}.json`,
      content: `${JSON.stringify(preferred, null, 2)}\n`,
    });
  }
  return files;
}
