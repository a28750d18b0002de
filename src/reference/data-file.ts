// A team's own sandbox data (lckit serve --data FILE, createReference({ data })): one YAML or JSON document
// holding every kind of the fixture world, validated by the same schemas and reference rules as the kit's
// fixtures before anything starts. An error names the file, the JSON path, what is wrong and a correct entry.
import { readFileSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { referenceData as validatedData } from "./data-document.ts";
import { type FixtureData, FixtureError, type Kind } from "./fixture-world.ts";
import { DEFAULT_FIXTURES_DIR, loadFixtures, yamlParser } from "./fixtures.ts";

export type { ReferenceData } from "./data-document.ts";

/** The first record of the kit's own fixtures of a kind, as one JSON line: an entry known to be correct. */
export function exampleEntry(kind: Kind): string | undefined {
  const fixtures = loadFixtures(DEFAULT_FIXTURES_DIR);
  const byKind: Record<Kind, readonly unknown[]> = {
    tenants: fixtures.tenants,
    customers: fixtures.customers,
    clients: fixtures.clients,
    lookups: fixtures.lookups,
    statistics: fixtures.statistics,
    "blocked-values": fixtures.blockedValues,
  };
  const first = byKind[kind][0];
  return first === undefined ? undefined : JSON.stringify(first);
}

/** Validates a data document already parsed (from a file or given to createReference); `file` names it. */
export function referenceData(document: unknown, file = "data"): FixtureData {
  return validatedData(document, file, exampleEntry);
}

// The worlds of data files already validated in this process, by name and text: a test suite that starts a
// sandbox per test parses and validates its file once. Frozen, so shared; a few files at most are kept.
const validated = new Map<string, FixtureData>();
const VALIDATED_KEPT = 8;

/** Reads and validates a data file (.json as JSON, anything else as YAML, its parser loaded for it only). */
export function loadDataFile(path: string): FixtureData {
  // Relative to the working directory when the file is below it, else as given.
  const below = relative(process.cwd(), path);
  const shown = below === "" || below.startsWith("..") || isAbsolute(below) ? path : below;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FixtureError(
      `${shown}: cannot be read (${code ?? (error as Error).message}); give the path of a YAML or JSON data file (see examples/sandbox-data.yaml)`,
    );
  }
  const key = `${shown}\u0000${path.endsWith(".json")}\u0000${text}`;
  const known = validated.get(key);
  if (known) return known;
  let document: unknown;
  try {
    document = path.endsWith(".json") ? JSON.parse(text) : yamlParser().parse(text);
  } catch (error) {
    throw new FixtureError(`${shown}: cannot be parsed: ${(error as Error).message}`);
  }
  const world = referenceData(document, shown);
  if (validated.size >= VALIDATED_KEPT) validated.delete(validated.keys().next().value as string);
  validated.set(key, world);
  return world;
}
