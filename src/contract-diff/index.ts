// `lckit contract diff OLD NEW`: breaking and compatible changes between two versions of the contract, in
// the spirit of a backward-compatibility check. OLD and NEW are each an OpenAPI document (YAML or JSON), or
// a directory laid out like this repository (openapi/*.yaml and/or event-schemas/types/*.schema.json), or
// an openapi/ or event-schemas/ directory itself.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { UserInputError } from "../usage-error.ts";
import { DocumentLoader, isRecord, type Located } from "./document-loader.ts";
import { diffOpenApi } from "./openapi-diff.ts";
import { type ContractChange, diffSchema, type SchemaDiffContext } from "./schema-diff.ts";

export type { ContractChange } from "./schema-diff.ts";

/** OLD or NEW cannot be read as a contract: a usage error (exit 2). */
export class ContractInputError extends UserInputError {
  override name = "ContractInputError";
}

/** What one side of the comparison holds. */
interface ContractSide {
  /** OpenAPI documents by file name. */
  openapi: Map<string, string>;
  /** Event schema files by event type. */
  events: Map<string, string> | undefined;
  /** A single document given as a file: paired with the other side's single document whatever its name. */
  single: boolean;
}

function isOpenApiFile(loader: DocumentLoader, file: string): boolean {
  if (!/\.(ya?ml|json)$/.test(file)) return false;
  try {
    const document = loader.load(file);
    return isRecord(document) && typeof document.openapi === "string";
  } catch {
    return false;
  }
}

function openapiFilesIn(loader: DocumentLoader, dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name);
    if (statSync(file).isFile() && isOpenApiFile(loader, file)) found.set(name, file);
  }
  return found;
}

function eventTypesIn(loader: DocumentLoader, dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".json")) continue;
    const file = join(dir, name);
    const schema = loader.load(file);
    const type =
      isRecord(schema) && typeof schema["x-event-type"] === "string"
        ? schema["x-event-type"]
        : name.replace(/\.schema\.json$|\.json$/, "");
    found.set(type, file);
  }
  return found;
}

function readSide(loader: DocumentLoader, path: string, label: string): ContractSide {
  if (!existsSync(path))
    throw new ContractInputError(
      `${label} ${path} does not exist; give an OpenAPI file or a contract directory`,
    );
  if (statSync(path).isFile()) {
    if (!isOpenApiFile(loader, path))
      throw new ContractInputError(
        `${label} ${path} is not an OpenAPI document (expected YAML or JSON with an "openapi" key); for event schemas give their directory`,
      );
    return { openapi: new Map([[basename(path), path]]), events: undefined, single: true };
  }
  const openapiDir = existsSync(join(path, "openapi")) ? join(path, "openapi") : path;
  const openapi = openapiFilesIn(loader, openapiDir);
  const typesDir = [join(path, "event-schemas", "types"), join(path, "types")].find((dir) => existsSync(dir));
  const events = typesDir ? eventTypesIn(loader, typesDir) : undefined;
  if (openapi.size === 0 && !events)
    throw new ContractInputError(
      `${label} ${path} holds no contract: expected OpenAPI documents (in it or in openapi/) or event schemas (types/*.schema.json, or event-schemas/types/)`,
    );
  return { openapi, events, single: false };
}

/** Every change from OLD to NEW, breaking ones first, each group in the order found. */
export function diffContracts(oldPath: string, newPath: string): ContractChange[] {
  const loader = new DocumentLoader();
  const old = readSide(loader, oldPath, "OLD");
  const next = readSide(loader, newPath, "NEW");
  if (old.single !== next.single)
    throw new ContractInputError(
      "compare like with like: two OpenAPI files, or two contract directories (got a file and a directory)",
    );
  const context: SchemaDiffContext = { loader, changes: [], seen: new Set() };
  const located = (file: string | undefined): Located | undefined =>
    file === undefined ? undefined : { node: loader.load(file), file };

  if (old.single) {
    diffOpenApi(context, located([...old.openapi.values()][0]), located([...next.openapi.values()][0]), "");
  } else {
    const names = [...new Set([...old.openapi.keys(), ...next.openapi.keys()])];
    for (const name of names)
      diffOpenApi(context, located(old.openapi.get(name)), located(next.openapi.get(name)), name);
    if (old.events || next.events) diffEvents(context, old.events ?? new Map(), next.events ?? new Map());
  }
  const breaking = context.changes.filter((change) => change.level === "breaking");
  const compatible = context.changes.filter((change) => change.level === "compatible");
  return [...breaking, ...compatible];
}

/** Event types removed (breaking: consumers wait for them), added (compatible), and changed payloads. */
function diffEvents(context: SchemaDiffContext, old: Map<string, string>, next: Map<string, string>): void {
  for (const [type, file] of old) {
    const counterpart = next.get(type);
    if (!counterpart) {
      context.changes.push({
        level: "breaking",
        kind: "event-type-removed",
        where: `event ${type}`,
        detail: "event type removed",
      });
      continue;
    }
    // Events flow from the provider to consumers: the response direction.
    diffSchema(
      context,
      { node: context.loader.load(file), file },
      { node: context.loader.load(counterpart), file: counterpart },
      "response",
      `event ${type} $`,
    );
  }
  for (const type of next.keys())
    if (!old.has(type))
      context.changes.push({
        level: "compatible",
        kind: "event-type-added",
        where: `event ${type}`,
        detail: "new event type",
      });
}

/** The report of `lckit contract diff` as text lines. */
export function formatChanges(changes: readonly ContractChange[]): string {
  const lines = changes.map(
    (change) =>
      `${change.level === "breaking" ? "BREAKING  " : "compatible"} ${change.where}: ${change.detail} [${change.kind}]`,
  );
  const breaking = changes.filter((change) => change.level === "breaking").length;
  lines.push(
    `contract diff: ${breaking} breaking, ${changes.length - breaking} compatible change(s)${breaking > 0 ? ": consumers of the old contract can break" : ""}`,
  );
  return `${lines.join("\n")}\n`;
}
