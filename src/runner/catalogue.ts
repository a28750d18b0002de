// Reads the requirement catalogue (requirements/catalogue.yaml) for the coverage part of a report.
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import type { CatalogueEntry } from "../report/coverage.ts";
import { repoRoot } from "./kit-info.ts";

export interface Catalogue {
  /** Repository-relative path, or null when the file does not exist. */
  path: string | null;
  requirements: CatalogueEntry[];
}

export function loadCatalogue(file = join(repoRoot, "requirements", "catalogue.yaml")): Catalogue {
  if (!existsSync(file)) return { path: null, requirements: [] };
  const path = relative(repoRoot, file).split("\\").join("/");
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${path} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const list = (doc as { requirements?: unknown } | null)?.requirements;
  if (!Array.isArray(list))
    throw new Error(`${path}: expected a top-level "requirements" list of { id, section, level, text }`);
  return {
    path,
    requirements: list.map((item, i) => {
      const entry = item as Record<string, unknown> | null;
      if (typeof entry?.id !== "string")
        throw new Error(`${path}: requirements[${i}] has no string "id"; every entry needs one`);
      const out: CatalogueEntry = { id: entry.id };
      if (entry.section !== undefined) out.section = String(entry.section);
      if (entry.level !== undefined) out.level = String(entry.level);
      if (entry.text !== undefined) out.text = String(entry.text);
      return out;
    }),
  };
}
