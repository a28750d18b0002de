// Reads YAML/JSON contract files and follows $ref lazily (relative files and JSON pointers), so the diff can
// walk two versions side by side without inlining them: recursive event schemas stay finite.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";

/** A node of a loaded document and the file it was read from (where its relative $refs start). */
export interface Located {
  node: unknown;
  file: string;
}

/** Loads files once per instance and resolves $ref chains. */
export class DocumentLoader {
  private readonly files = new Map<string, unknown>();

  /** The parsed file; throws naming the file when it cannot be read or parsed. */
  load(file: string): unknown {
    const path = resolve(file);
    if (!this.files.has(path)) {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch (error) {
        throw new Error(`cannot read ${file}: ${(error as Error).message}`);
      }
      try {
        this.files.set(path, parse(text) as unknown);
      } catch (error) {
        throw new Error(`${file} is neither YAML nor JSON: ${(error as Error).message}`);
      }
    }
    return this.files.get(path);
  }

  /** The node a $ref chain ends at (the node itself when it has no $ref); `ref` names the last target. */
  deref(located: Located, depth = 0): Located & { ref?: string } {
    const { node, file } = located;
    if (!isRecord(node) || typeof node.$ref !== "string") return located;
    if (depth > 50) throw new Error(`$ref chain too long at ${file}: ${node.$ref}`);
    const [target = "", pointer = ""] = node.$ref.split("#", 2);
    const targetFile = target === "" ? file : resolve(dirname(file), target);
    const root = this.load(targetFile);
    const resolved = followPointer(root, pointer, `${targetFile}#${pointer}`);
    const next = this.deref({ node: resolved, file: targetFile }, depth + 1);
    return { ...next, ref: next.ref ?? `${targetFile}#${pointer}` };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function followPointer(root: unknown, pointer: string, where: string): unknown {
  if (pointer === "" || pointer === "/") return root;
  let node = root;
  for (const raw of pointer.replace(/^\//, "").split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node)) node = node[key];
    else node = undefined;
    if (node === undefined) throw new Error(`unresolved $ref ${where}: nothing at "${key}"`);
  }
  return node;
}
