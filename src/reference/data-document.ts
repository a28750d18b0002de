// A data document given as an object (createReference({ data }), the browser's handlers): validated by the
// same schemas and reference rules as the kit's fixtures. No file access here: data-file.ts reads files.
import {
  type ExampleOf,
  type FixtureClient,
  type FixtureData,
  FixtureError,
  fixtureWorld,
  type Kind,
  type KindSource,
} from "./fixture-world.ts";
import type { BlockedValue, Customer, Lookup, Statistic, Tenant } from "./types.ts";

/** A data document: tenants, customers and clients are required; the data records are optional. */
export interface ReferenceData {
  tenants: Tenant[];
  /** Give a customer multitokenConfig to switch multi-token support on for its clients. */
  customers: Customer[];
  /** Each client names its customer (customerId); scope, grant types and validity have defaults. */
  clients: (Partial<FixtureClient> &
    Pick<FixtureClient, "customerId" | "clientId" | "clientSecret" | "authorities">)[];
  lookups?: Lookup[];
  statistics?: Statistic[];
  blockedValues?: BlockedValue[];
}

/** The document's keys and the fixture kind each holds. */
const KEYS: Record<keyof ReferenceData, Kind> = {
  tenants: "tenants",
  customers: "customers",
  clients: "clients",
  lookups: "lookups",
  statistics: "statistics",
  blockedValues: "blocked-values",
};

/** Validates a data document already parsed (from a file or given to createReference); `file` names it. */
export function referenceData(document: unknown, file = "data", exampleEntry?: ExampleOf): FixtureData {
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    throw new FixtureError(
      `${file}: /: expected an object with the keys ${Object.keys(KEYS).join(", ")}, got ${Array.isArray(document) ? "an array" : document === null ? "null" : typeof document}; see examples/sandbox-data.yaml`,
    );
  }
  const unknown = Object.keys(document).filter((key) => !(key in KEYS));
  if (unknown.length > 0) {
    throw new FixtureError(
      `${file}: /${unknown[0]}: unknown key; a data document holds ${Object.keys(KEYS).join(", ")}`,
    );
  }
  // Validation freezes what it keeps: a copy, so the caller's own object stays theirs.
  const own = structuredClone(document) as Record<string, unknown>;
  const sources: Partial<Record<Kind, KindSource>> = {};
  for (const [key, kind] of Object.entries(KEYS) as [keyof ReferenceData, Kind][]) {
    const data = own[key];
    if (data === undefined) {
      if (kind === "tenants" || kind === "customers" || kind === "clients") {
        throw new FixtureError(
          `${file}: /${key}: missing; a data document needs tenants, customers and clients; a correct entry of ${key} looks like ${exampleEntry?.(kind) ?? "the examples/sandbox-data.yaml entries"}`,
        );
      }
      continue;
    }
    sources[kind] = { file, pointer: `/${key}`, data };
  }
  return fixtureWorld(sources, exampleEntry);
}
