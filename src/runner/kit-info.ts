// Facts about the kit a report records: its version, and hashes of the documents it certifies against.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

export function kitInfo(root = repoRoot): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name?: string;
    version?: string;
  };
  return { name: pkg.name ?? "lookup-conformance-kit", version: pkg.version ?? "0.0.0" };
}

/** sha256 of the interface document (beside the repository, ../shared/interface-spec.md, when present) and
 *  of the contract (every yaml/json file under openapi/ and event-schemas/, by path then content). */
export function specHashes(root = repoRoot): { interfaceDocument: string | null; contract: string } {
  const documentPath = join(root, "..", "shared", "interface-spec.md");
  const interfaceDocument = existsSync(documentPath)
    ? createHash("sha256").update(readFileSync(documentPath)).digest("hex")
    : null;
  const contract = createHash("sha256");
  for (const dir of ["openapi", "event-schemas"]) {
    for (const file of listFiles(join(root, dir))) {
      contract.update(relative(root, file).split("\\").join("/"));
      contract.update("\0");
      contract.update(readFileSync(file));
      contract.update("\0");
    }
  }
  return { interfaceDocument, contract: contract.digest("hex") };
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path));
    else if (/\.(ya?ml|json)$/.test(name)) out.push(path);
  }
  return out;
}
