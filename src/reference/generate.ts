// Deterministic large data for load runs (`lckit serve --lookups 1000000`): same seed, same records.
import { lookupTypeUri } from "../contract/lookup-type.ts";
import type { Lookup, Statistic } from "./types.ts";

export interface GenerateOptions {
  tenant: string;
  lookups?: number;
  statistics?: number;
  seed?: number;
}

const TYPES = ["GenIndustry", "GenLanguage", "GenProductLine", "GenRegion", "GenSpecialty", "GenTitle"];
const SOURCES = ["SAP", "Salesforce", "Veeva", "Marketo", "Workday"];
const STATUSES = ["AUTOMAPPED", "MISSPELLED", "MANUALLY_MAPPED", "LOOKUP_CREATED", "TRACKING", "REJECTED"];
const USERS = ["rdm-loader", "maria.lopez@acme.example", "j.chen@acme.example"];
const BASE_TIME = Date.UTC(2025, 0, 1);
// Shared, frozen empty arrays keep a million generated lookups small; records are never mutated.
const NONE: readonly never[] = Object.freeze([]);

function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** `count` lookups spread over the generated types, produced in identity order (type, then code). */
export function generateLookups(tenant: string, count: number, seed = 1): Lookup[] {
  const random = prng(seed);
  const out: Lookup[] = new Array(count);
  const width = Math.max(7, String(count).length);
  let n = 0;
  for (let t = 0; t < TYPES.length; t++) {
    const type = lookupTypeUri(TYPES[t] as string);
    const share = Math.floor(count / TYPES.length) + (t < count % TYPES.length ? 1 : 0);
    for (let i = 0; i < share; i++, n++) {
      const code = `G${pad(n, width)}`;
      const value = `${TYPES[t]?.slice(3)} value ${n}`;
      out[n] = {
        tenantId: tenant,
        updatedBy: USERS[Math.floor(random() * USERS.length)] as string,
        updateDate: BASE_TIME + Math.floor(random() * 31_536_000_000),
        version: 1 + Math.floor(random() * 5),
        type,
        code,
        enabled: random() > 0.05,
        sourceMappings: [
          {
            source: "Reltio",
            values: [{ code, value, enabled: true, canonicalValue: true, downStreamDefaultValue: true }],
          },
        ],
        localizations: NONE as never[],
        parents: NONE as never[],
        attributes: NONE as never[],
      };
    }
  }
  return out;
}

/** `count` autopilot statistics with unique identities; some without candidate, some with dcrId. */
export function generateStatistics(tenant: string, count: number, seed = 1): Statistic[] {
  const random = prng(seed ^ 0x5f3759df);
  const out: Statistic[] = new Array(count);
  const width = Math.max(7, String(count).length);
  for (let n = 0; n < count; n++) {
    const status = STATUSES[n % STATUSES.length] as string;
    const createdAt = BASE_TIME + Math.floor(random() * 31_536_000_000);
    const bucket = createdAt - (createdAt % 3_600_000);
    const total = 1 + Math.floor(random() * 80);
    const candidate = status !== "TRACKING" || n % 2 === 0;
    const mapped = status !== "TRACKING" && status !== "REJECTED";
    const stat: Statistic = {
      tenantId: tenant,
      lookupType: (TYPES[n % TYPES.length] as string).slice(0),
      source: SOURCES[Math.floor(n / TYPES.length) % SOURCES.length] as string,
      unmappedValue: `unmapped value ${pad(n, width)}`,
      semanticScore: Math.round(random() * 1000) / 1000,
      centroidMatch: random() < 0.6,
      currentFrequency: total,
      requiredFrequency: 10,
      frequencyAtMapping: mapped ? total : 0,
      frequencyWindowHours: 24,
      status,
      createdAt,
      sourceFrequency: { totalCount: total, hourlyFrequency: { [String(bucket)]: total } },
      updateDate: createdAt + 3_600_000,
      aiConfidence: Math.round(random() * 1000) / 1000,
      aiReasoning: `Generated record ${n} with status ${status}.`,
      configVersion: 4,
    };
    if (candidate) {
      stat.candidateLookupCode = `G${pad(n % 1000, width)}`;
      stat.candidateValue = `candidate ${n % 1000}`;
    }
    if (mapped) {
      stat.mappedAt = createdAt + 60_000;
      stat.mappedBy = status === "MANUALLY_MAPPED" ? (USERS[1] as string) : "SYSTEM";
    }
    if (n % 11 === 0 && status !== "TRACKING") stat.dcrId = `dcr-gen-${pad(n, width)}`;
    out[n] = stat;
  }
  return out;
}
