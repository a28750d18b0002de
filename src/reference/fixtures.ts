// Loads and validates the fixture world (fixtures/reference by default). Problems name file, path and fix.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join, relative } from "node:path";
import { kitFixtures } from "../generated/kit-fixtures.ts";
import { packagePath } from "../package-root.ts";
import {
  FIXTURE_KINDS,
  type FixtureData,
  FixtureError,
  fixtureWorld,
  KINDS,
  type Kind,
  type KindSource,
  type ValidatorOf,
} from "./fixture-world.ts";

// The YAML parser loads on first use, for a YAML file only: a start from the kit's own fixtures, unchanged
// since they were validated (src/generated/kit-fixtures.ts), or from a JSON data file needs none. The
// schemas are checked by validators compiled ahead (src/generated/fixture-validators.js): no ajv at start.
const require = createRequire(import.meta.url);
export const yamlParser = (): typeof import("yaml") => require("yaml");

export const DEFAULT_FIXTURES_DIR = packagePath("fixtures", "reference");

const cache = new Map<string, FixtureData>();

/** One fixture file as read: its path, how messages show it, its text, and its parse. */
export interface FixtureFile {
  path: string;
  shown: string;
  text: string;
  /** The parsed content (.json as JSON, else YAML); a FixtureError naming the file when it does not parse. */
  parse(): unknown;
}

/** The file of a kind in a fixture directory, read (absent for a missing optional kind). */
function readKind(dir: string, kind: Kind): FixtureFile | undefined {
  const candidates = [`${kind}.yaml`, `${kind}.yml`, `${kind}.json`].map((name) => join(dir, name));
  const present = candidates.filter((file) => existsSync(file));
  const shown = (file: string) => relative(process.cwd(), file) || file;
  if (present.length > 1) {
    throw new FixtureError(
      `${present.map(shown).join(" and ")}: two files for the fixture "${kind}"; keep one of them`,
    );
  }
  const file = present[0];
  if (file === undefined) {
    if (KINDS[kind].required) {
      throw new FixtureError(
        `${shown(join(dir, `${kind}.yaml`))}: missing; a fixture directory needs ${kind}.yaml (or .json)`,
      );
    }
    return undefined;
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new FixtureError(`${shown(file)}: cannot be read: ${(error as Error).message}`);
  }
  return {
    path: file,
    shown: shown(file),
    text,
    parse() {
      try {
        return file.endsWith(".json") ? JSON.parse(text) : yamlParser().parse(text);
      } catch (error) {
        throw new FixtureError(`${shown(file)}: cannot be parsed: ${(error as Error).message}`);
      }
    },
  };
}

/** Every kind's file of a fixture directory, read. */
export function fixtureFiles(dir: string): Partial<Record<Kind, FixtureFile>> {
  const files: Partial<Record<Kind, FixtureFile>> = {};
  for (const kind of FIXTURE_KINDS) {
    const file = readKind(dir, kind);
    if (file) files[kind] = file;
  }
  return files;
}

/** A digest of a fixture directory's files: each kind's file name and text. */
export function fixturesDigest(files: Partial<Record<Kind, FixtureFile>>): string {
  const hash = createHash("sha256");
  for (const kind of FIXTURE_KINDS) {
    const file = files[kind];
    if (file) hash.update(`${kind}\u0000${basename(file.path)}\u0000${file.text}\u0000`);
  }
  return hash.digest("hex");
}

/** Parses and validates fixture files: schemas, then references between records. */
export function validateFixtures(
  files: Partial<Record<Kind, FixtureFile>>,
  validatorOf?: ValidatorOf,
): FixtureData {
  const sources: Partial<Record<Kind, KindSource>> = {};
  for (const [kind, file] of Object.entries(files) as [Kind, FixtureFile][])
    sources[kind] = { file: file.shown, pointer: "", data: file.parse() };
  return fixtureWorld(sources, undefined, { validatorOf });
}

/**
 * Files identical to the kit's own fixtures when they were validated (the digest generated beside them)
 * need no schema check again, and their YAML is already parsed; the references between records are still
 * checked, as every load does.
 */
function knownValidFixtures(files: Partial<Record<Kind, FixtureFile>>): FixtureData | undefined {
  if (fixturesDigest(files) !== kitFixtures.digest) return undefined;
  const sources: Partial<Record<Kind, KindSource>> = {};
  for (const [kind, file] of Object.entries(files) as [Kind, FixtureFile][]) {
    const data = file.path.endsWith(".json") ? file.parse() : structuredClone(kitFixtures.yaml[kind]);
    sources[kind] = { file: file.shown, pointer: "", data };
  }
  return fixtureWorld(sources, undefined, { schemaChecked: true });
}

/** Loads a fixture directory once per process; the records are frozen and shared by every reference. */
export function loadFixtures(dir: string = DEFAULT_FIXTURES_DIR): FixtureData {
  const cached = cache.get(dir);
  if (cached) return cached;
  const files = fixtureFiles(dir);
  const data = knownValidFixtures(files) ?? validateFixtures(files);
  cache.set(dir, data);
  return data;
}
