// Loads a YAML OpenAPI document and inlines every $ref (relative files and JSON pointers), so ajv and Prism
// see one self-contained tree. A (file, pointer) target resolves to one shared object: validators compiled
// for it are reused by every operation that refers to it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";

// The YAML parser loads when a document is first read: importing this module (as the reference does, for
// the fixture schemas it builds only when fixtures need checking) costs nothing at start.
const require = createRequire(import.meta.url);
const parse = (text: string): unknown => (require("yaml") as typeof import("yaml")).parse(text);

/** Reads and resolves documents; one instance caches files and resolved targets across documents. */
export class RefResolver {
  private readonly files = new Map<string, unknown>();
  private readonly resolved = new Map<string, unknown>();
  private readonly inProgress = new Set<string>();

  /** The document at `path` with every $ref replaced by its (shared) target. */
  resolveDocument(path: string): Record<string, unknown> {
    const document = this.resolveTarget(resolve(path), "");
    if (!isObject(document)) throw new Error(`${path}: expected a YAML mapping at the top level`);
    return document;
  }

  private load(file: string): unknown {
    let document = this.files.get(file);
    if (document === undefined) {
      try {
        document = parse(readFileSync(file, "utf8")) as unknown;
      } catch (error) {
        throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
      this.files.set(file, document);
    }
    return document;
  }

  private resolveTarget(file: string, pointer: string): unknown {
    const key = `${file}#${pointer}`;
    if (this.resolved.has(key)) return this.resolved.get(key);
    if (this.inProgress.has(key))
      throw new Error(`circular $ref at ${key}: the contract loader inlines refs and needs an acyclic tree`);
    this.inProgress.add(key);
    const node = this.walk(followPointer(this.load(file), pointer, key), file);
    this.inProgress.delete(key);
    this.resolved.set(key, node);
    return node;
  }

  private walk(node: unknown, file: string): unknown {
    if (Array.isArray(node)) return node.map((item) => this.walk(item, file));
    if (!isObject(node)) return node;
    const ref = node.$ref;
    if (typeof ref === "string") {
      const hash = ref.indexOf("#");
      const target = hash === -1 ? ref : ref.slice(0, hash);
      const pointer = hash === -1 ? "" : ref.slice(hash + 1);
      const resolved = this.resolveTarget(target === "" ? file : resolve(dirname(file), target), pointer);
      const siblings = Object.entries(node).filter(([name]) => name !== "$ref");
      if (siblings.length === 0) return resolved;
      // OpenAPI 3.1 lets description/summary sit beside $ref; they override the target's.
      const overlay = Object.fromEntries(siblings.map(([name, value]) => [name, this.walk(value, file)]));
      return isObject(resolved) ? { ...resolved, ...overlay } : resolved;
    }
    return Object.fromEntries(Object.entries(node).map(([name, value]) => [name, this.walk(value, file)]));
  }
}

function followPointer(document: unknown, pointer: string, key: string): unknown {
  if (pointer === "" || pointer === "/") return document;
  let node = document;
  for (const raw of pointer.replace(/^\//, "").split("/")) {
    const segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) && !Array.isArray(node)) throw new Error(`unresolved $ref ${key}: no "${segment}"`);
    node = (node as Record<string, unknown>)[segment];
    if (node === undefined) throw new Error(`unresolved $ref ${key}: no "${segment}"`);
  }
  return node;
}

/** True for a plain (non-array, non-null) object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
