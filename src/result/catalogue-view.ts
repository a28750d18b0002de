// The requirement catalogue as the report's coverage needs it (a view of the one catalogue of src/requirements):
// live entries plus the repository-relative path.
import { relative } from "node:path";
import { cataloguePath, loadCatalogue as loadRequirements } from "../requirements/catalogue.ts";
import { loadExploration } from "../requirements/exploration.ts";
import type { CatalogueEntry } from "./coverage.ts";
import { repoRoot } from "./kit-info.ts";

export interface CatalogueView {
  /** Repository-relative path of requirements/catalogue.yaml; null for an empty catalogue given by a test. */
  path: string | null;
  requirements: CatalogueEntry[];
}

/** Loads and validates requirements/catalogue.yaml (throws naming every problem); retired entries are left out. */
export function loadCatalogueView(): CatalogueView {
  const dimensions = new Map(loadExploration().requirements.map((entry) => [entry.id, entry.dimensions]));
  const requirements = loadRequirements()
    .requirements.filter((entry) => !entry.retired)
    .map(({ id, section, level, text, kind, notCheckable }) => ({
      id,
      section,
      level,
      text,
      kind,
      ...(notCheckable === undefined ? {} : { notCheckable }),
      ...(dimensions.has(id) ? { dimensions: dimensions.get(id) } : {}),
    }));
  return { path: relative(repoRoot, cataloguePath).split("\\").join("/"), requirements };
}
