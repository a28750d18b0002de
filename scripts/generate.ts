// Regenerates src/generated/ from the contract; with --check, fails (exit 1) when a generated file is stale.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as callerRulesTable from "./generators/caller-rules-table.ts";
import * as eventTypes from "./generators/event-types.ts";
import * as faultsPage from "./generators/faults-page.ts";
import * as openapiBundle from "./generators/openapi-bundle.ts";
import * as openapiTypes from "./generators/openapi-types.ts";
import * as referenceStart from "./generators/reference-start.ts";
import * as requirementsPage from "./generators/requirements-page.ts";
import * as traceability from "./generators/traceability.ts";

export interface GeneratedFile {
  /** Path relative to the repository root. */
  path: string;
  content: string;
}

const root = join(dirname(new URL(import.meta.url).pathname), "..");
const generators = [
  openapiTypes,
  openapiBundle,
  eventTypes,
  requirementsPage,
  faultsPage,
  traceability,
  callerRulesTable,
  referenceStart,
];

export async function generateAll(): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  for (const generator of generators) files.push(...(await generator.generate(root)));
  return files;
}

export async function staleFiles(): Promise<string[]> {
  const stale: string[] = [];
  for (const file of await generateAll()) {
    const path = join(root, file.path);
    if (!existsSync(path) || readFileSync(path, "utf8") !== file.content) stale.push(file.path);
  }
  return stale;
}

async function cli(): Promise<number> {
  if (process.argv.includes("--check")) {
    const stale = await staleFiles();
    if (stale.length === 0) {
      console.error("generate: src/generated is up to date");
      return 0;
    }
    console.error(
      `generate: stale generated files: ${stale.join(", ")}. Run \`npm run generate\` and commit.`,
    );
    return 1;
  }
  for (const file of await generateAll()) {
    const path = join(root, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
    console.error(`generate: wrote ${file.path}`);
  }
  return 0;
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  process.exitCode = await cli();
}
