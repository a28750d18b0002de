// Renders requirements/catalogue.md from requirements/catalogue.yaml.
import { loadCatalogue, renderCatalogueMarkdown } from "../../src/requirements/catalogue.ts";
import type { GeneratedFile } from "../generate.ts";

export async function generate(_root: string): Promise<GeneratedFile[]> {
  return [{ path: "requirements/catalogue.md", content: renderCatalogueMarkdown(loadCatalogue()) }];
}
