// The requirement catalogue as the report's coverage needs it: entries plus the repository-relative path.
import { relative } from "node:path";
import type { CatalogueEntry } from "../report/coverage.ts";
import { cataloguePath, loadCatalogue as loadRequirements } from "../requirements/catalogue.ts";
import { repoRoot } from "./kit-info.ts";

export interface Catalogue {
  /** Repository-relative path of requirements/catalogue.yaml; null for an empty catalogue given by a test. */
  path: string | null;
  requirements: CatalogueEntry[];
}

/** Loads and validates requirements/catalogue.yaml (throws naming every problem); retired entries are left out. */
export function loadCatalogue(): Catalogue {
  const requirements = loadRequirements()
    .requirements.filter((entry) => !entry.retired)
    .map(({ id, section, level, text, kind }) => ({ id, section, level, text, kind }));
  return { path: relative(repoRoot, cataloguePath).split("\\").join("/"), requirements };
}
