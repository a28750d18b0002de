// The default world of lckit client check: the small shop of examples/sandbox-data.yaml (the file a team
// copies stays small), grown at start by records generated the same way every time, so that every scan the
// document defines pages at its documented page size: a client that drops the scrollId or asks a
// finished scroll for more shows itself without --data.
import { packagePath } from "../../package-root.ts";
import { type FixtureData, fixtureWorld, type KindSource } from "../../reference/fixture-world.ts";
import { loadDataFile } from "../../reference/index.ts";
import type { BlockedValue, Lookup, Statistic } from "../../reference/types.ts";

export const DEFAULT_CLIENT_DATA = packagePath("examples", "sandbox-data.yaml");

/** What the generated records add to the shop, per lookup type: more than a page of each where it counts. */
export const GENERATED = {
  tenant: "shop",
  /** The type of the data's first lookup (LCKIT_LOOKUP_TYPE): its lookups, statistics and blocked values page. */
  mainType: "ShippingCountry",
  secondType: "PaymentMethod",
  lookups: { main: 127, second: 11 },
  statistics: { main: 119, second: 10 },
  blockedValues: { main: 119 },
} as const;

const BASE_TIME = Date.UTC(2025, 2, 3, 9, 0, 0);
const MINUTE = 60_000;
const STEWARD = "sandbox.generator@shop.example";
const SOURCES = ["Checkout", "ERP", "Marketplace"];
const STATUSES = ["AUTOMAPPED", "MISSPELLED", "MANUALLY_MAPPED", "LOOKUP_CREATED"];

const pad = (n: number, width = 3) => String(n).padStart(width, "0");

function lookup(type: string, code: string, value: string, n: number): Lookup {
  return {
    tenantId: GENERATED.tenant,
    updatedBy: STEWARD,
    updateDate: BASE_TIME + n * MINUTE,
    version: 1 + (n % 3),
    type: `rdm/lookupTypes/${type}`,
    code,
    enabled: n % 17 !== 0,
    sourceMappings: [
      {
        source: "ERP",
        values: [{ code, value, enabled: true, canonicalValue: true, downStreamDefaultValue: true }],
      },
    ],
    localizations: [],
    parents: [],
    attributes: [],
  };
}

function statistic(type: string, n: number, code: string): Statistic {
  const status = STATUSES[n % STATUSES.length] as string;
  const createdAt = BASE_TIME + n * 7 * MINUTE;
  const bucket = createdAt - (createdAt % 3_600_000);
  const frequency = 10 + (n % 40);
  return {
    tenantId: GENERATED.tenant,
    lookupType: type,
    source: SOURCES[n % SOURCES.length] as string,
    unmappedValue: `${type} spelling ${pad(n)}`,
    candidateLookupCode: code,
    candidateValue: `${type} ${code}`,
    semanticScore: Math.round((0.5 + (n % 50) / 100) * 1000) / 1000,
    centroidMatch: n % 3 !== 0,
    currentFrequency: frequency,
    requiredFrequency: 10,
    frequencyAtMapping: frequency,
    frequencyWindowHours: 48,
    status,
    mappedAt: createdAt + 30 * MINUTE,
    mappedBy: status === "MANUALLY_MAPPED" ? STEWARD : "SYSTEM",
    createdAt,
    sourceFrequency: { totalCount: frequency, hourlyFrequency: { [String(bucket)]: frequency } },
    updateDate: createdAt + 30 * MINUTE,
    aiConfidence: Math.round((0.6 + (n % 40) / 100) * 1000) / 1000,
    aiReasoning: `Generated record ${n}: the candidate is the closest ${type} value.`,
    ...(n % 10 === 0 ? { dcrId: `dcr-${pad(n)}` } : {}),
    configVersion: 2,
  };
}

function blockedValue(type: string, n: number): BlockedValue {
  return {
    tenantId: GENERATED.tenant,
    lookupType: `rdm/lookupTypes/${type}`,
    value: `blocked ${type} value ${pad(n)}`,
    createdAt: BASE_TIME + n * MINUTE,
    createdBy: STEWARD,
  };
}

/** The generated records, the same on every call. */
export function generatedShopRecords(): Pick<FixtureData, "lookups" | "statistics" | "blockedValues"> {
  const { mainType, secondType } = GENERATED;
  const lookups: Lookup[] = [];
  for (let n = 1; n <= GENERATED.lookups.main; n++)
    lookups.push(lookup(mainType, `C${pad(n)}`, `Country ${n}`, n));
  for (let n = 1; n <= GENERATED.lookups.second; n++)
    lookups.push(lookup(secondType, `P${pad(n, 2)}`, `Payment method ${n}`, n));
  const statistics: Statistic[] = [];
  for (let n = 1; n <= GENERATED.statistics.main; n++) statistics.push(statistic(mainType, n, `C${pad(n)}`));
  for (let n = 1; n <= GENERATED.statistics.second; n++)
    statistics.push(statistic(secondType, n, `P${pad(n, 2)}`));
  const blockedValues: BlockedValue[] = [];
  for (let n = 1; n <= GENERATED.blockedValues.main; n++) blockedValues.push(blockedValue(mainType, n));
  return { lookups, statistics, blockedValues };
}

let world: FixtureData | undefined;

/** examples/sandbox-data.yaml and the generated records, validated once per process (frozen, shared). */
export function defaultClientWorld(): FixtureData {
  if (world) return world;
  const base = loadDataFile(DEFAULT_CLIENT_DATA);
  const extra = generatedShopRecords();
  const source = (data: readonly unknown[], pointer: string): KindSource => ({
    file: DEFAULT_CLIENT_DATA,
    pointer,
    data,
  });
  // The file is schema-checked by loadDataFile, the generated records by construction (and by a test):
  // the references between them (tenants, duplicates) are checked here.
  world = fixtureWorld(
    {
      tenants: source(base.tenants, "/tenants"),
      customers: source(base.customers, "/customers"),
      clients: source(base.clients, "/clients"),
      lookups: source([...base.lookups, ...extra.lookups], "/lookups"),
      statistics: source([...base.statistics, ...extra.statistics], "/statistics"),
      "blocked-values": source([...base.blockedValues, ...extra.blockedValues], "/blockedValues"),
    },
    undefined,
    { schemaChecked: true },
  );
  return world;
}
