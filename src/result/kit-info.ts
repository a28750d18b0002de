// Facts about the kit a report records: its version, and what it certifies against: the requirement
// catalogue (the normative basis, in the kit's own words) and the contract, each by version and sha256.
// Both ship inside the package; the interface document itself does not, so a user who wants its hash in
// the report names their own copy (--interface-document FILE or `interfaceDocument:` in the target file).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { parse } from "yaml";
import { packageRoot } from "../package-root.ts";
import { UserInputError } from "../usage-error.ts";

/** The package root (kept under its old name for callers that compute repository-relative paths). */
export const repoRoot = packageRoot;

export function kitInfo(root = repoRoot): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name?: string;
    version?: string;
  };
  return { name: pkg.name ?? "lookup-conformance-kit", version: pkg.version ?? "0.0.0" };
}

/** What a report certifies against. */
export interface SpecInfo {
  /** sha256 of the user's copy of the interface document when one was named, else null. */
  interfaceDocument: string | null;
  /** File name (no directories: they may say who ran it) of that copy. */
  interfaceDocumentFile?: string;
  /** sha256 of the contract: every yaml/json file under openapi/ and event-schemas/, by path then content. */
  contract: string;
  /** info.version of the OpenAPI documents (one value when they agree, else "platform x, lookup-data y"). */
  contractVersion: string;
  /** The requirement catalogue: file, the kit release it ships with, entry count and sha256. */
  catalogue: { file: string; version: string; requirements: number; sha256: string };
}

/** The interface document copy could not be read: the caller turns this into a usage error (exit 2). */
export class InterfaceDocumentError extends UserInputError {
  override name = "InterfaceDocumentError";
}

export function specHashes(options: { interfaceDocument?: string; root?: string } = {}): SpecInfo {
  return { ...interfaceDocumentHash(options.interfaceDocument), ...packageSpec(options.root ?? repoRoot) };
}

type PackageSpec = Omit<SpecInfo, "interfaceDocument" | "interfaceDocumentFile">;
const packageSpecs = new Map<string, { stamp: string; spec: PackageSpec }>();

/** The contract's and the catalogue's hashes, read again only when one of their files changed: parsing
 *  them costs more than a small run's own judging. */
function packageSpec(root: string): PackageSpec {
  const catalogueFile = join(root, "requirements", "catalogue.yaml");
  const contractFiles = ["openapi", "event-schemas"].flatMap((dir) => listFiles(join(root, dir)));
  const stamp = [...contractFiles, catalogueFile, join(root, "package.json")]
    .map((file) => {
      const stat = existsSync(file) ? statSync(file) : undefined;
      return `${file}:${stat?.size}:${stat?.mtimeMs}`;
    })
    .join("\n");
  const known = packageSpecs.get(root);
  if (known?.stamp === stamp) return known.spec;
  const contract = createHash("sha256");
  for (const file of contractFiles) {
    contract.update(relative(root, file).split("\\").join("/"));
    contract.update("\0");
    contract.update(readFileSync(file));
    contract.update("\0");
  }
  const catalogueText = existsSync(catalogueFile) ? readFileSync(catalogueFile) : Buffer.alloc(0);
  const entries = (parse(catalogueText.toString("utf8")) as { requirements?: unknown[] } | null)
    ?.requirements;
  const spec: PackageSpec = {
    contract: contract.digest("hex"),
    contractVersion: contractVersion(root),
    catalogue: {
      file: "requirements/catalogue.yaml",
      version: kitInfo(root).version,
      requirements: Array.isArray(entries) ? entries.length : 0,
      sha256: sha256(catalogueText),
    },
  };
  packageSpecs.set(root, { stamp, spec });
  return spec;
}

function interfaceDocumentHash(
  file: string | undefined,
): Pick<SpecInfo, "interfaceDocument" | "interfaceDocumentFile"> {
  if (file === undefined) return { interfaceDocument: null };
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new InterfaceDocumentError(
      `interface document ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); ` +
        "name a readable copy of the interface document, or leave the option out",
    );
  }
  return { interfaceDocument: sha256(bytes), interfaceDocumentFile: basename(file) };
}

function contractVersion(root: string): string {
  const versions = ["platform", "lookup-data"].map((name) => {
    const file = join(root, "openapi", `${name}.yaml`);
    if (!existsSync(file)) return [name, "unknown"] as const;
    const doc = parse(readFileSync(file, "utf8")) as { info?: { version?: unknown } } | null;
    return [name, String(doc?.info?.version ?? "unknown")] as const;
  });
  const distinct = [...new Set(versions.map(([, v]) => v))];
  return distinct.length === 1 && distinct[0] !== undefined
    ? distinct[0]
    : versions.map(([n, v]) => `${n} ${v}`).join(", ");
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
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
