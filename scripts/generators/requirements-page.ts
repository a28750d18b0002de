// Renders requirements/catalogue.md from requirements/catalogue.yaml, requirements/exploration.md from the
// exploration model, and the enforcement table of
// docs/assumptions.md (each assumption and the checks, contract nodes and event rules that hold it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rule } from "../../src/events/document/requirements.ts";
import {
  assumptionEnforcement,
  openapiAssumptionNodes,
  renderEnforcementSection,
  withEnforcementSection,
} from "../../src/requirements/assumption-audit.ts";
import { loadCatalogue, renderCatalogueMarkdown } from "../../src/requirements/catalogue.ts";
import { loadExploration, renderExplorationMarkdown } from "../../src/requirements/exploration.ts";
import { allChecks } from "../../suites/index.ts";
import type { GeneratedFile } from "../generate.ts";

export async function generate(root: string): Promise<GeneratedFile[]> {
  const catalogue = loadCatalogue();
  const assumptionsPath = "docs/assumptions.md";
  const rows = assumptionEnforcement(
    catalogue,
    allChecks,
    openapiAssumptionNodes(join(root, "openapi")),
    rule,
  );
  const page = withEnforcementSection(
    readFileSync(join(root, assumptionsPath), "utf8"),
    renderEnforcementSection(rows),
  );
  return [
    { path: "requirements/catalogue.md", content: renderCatalogueMarkdown(catalogue) },
    { path: assumptionsPath, content: page },
    {
      path: "requirements/exploration.md",
      content: renderExplorationMarkdown(
        loadExploration(),
        new Map(catalogue.requirements.map((r) => [r.id, `${r.level}: ${r.text}`])),
      ),
    },
  ];
}
