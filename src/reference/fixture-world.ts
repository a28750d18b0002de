// The fixture world: its kinds, the schema check of each kind and the references between records. No file
// access here: the loaders (fixtures.ts, data-file.ts) read files, a browser bundle gives objects.
import type { ValidateFunction } from "ajv";
import { closest } from "../did-you-mean.ts";
import { fixtureSchemas } from "../generated/fixture-schemas.ts";
import { fixtureValidators } from "../generated/fixture-validators.js";
import type { BlockedValue, Client, Customer, Lookup, Statistic, Tenant } from "./types.ts";

export interface FixtureClient extends Client {
  customerId: string;
}

export interface FixtureData {
  tenants: readonly Tenant[];
  customers: readonly Customer[];
  clients: readonly FixtureClient[];
  lookups: readonly Lookup[];
  statistics: readonly Statistic[];
  blockedValues: readonly BlockedValue[];
}

export class FixtureError extends Error {
  override name = "FixtureError";
}

// The schemas are built by fixture-schema.ts from the contract's, generated (src/generated/fixture-schemas.ts)
// and compiled (src/generated/fixture-validators.js).
export const KINDS = {
  tenants: { required: true },
  customers: { required: true },
  clients: { required: true },
  lookups: { required: false },
  statistics: { required: false },
  "blocked-values": { required: false },
} as const;
export type Kind = keyof typeof KINDS;
export const FIXTURE_KINDS = Object.keys(KINDS) as Kind[];

/** The schema validator of a kind: the generated ones, or others (npm run generate checks with fresh ones). */
export type ValidatorOf = (kind: Kind) => ValidateFunction;
const generatedValidator: ValidatorOf = (kind) => fixtureValidators[kind];

/** One kind's records as read from a file: where they came from, for messages naming file and JSON path. */
export interface KindSource {
  /** The file as shown in messages. */
  file: string;
  /** JSON pointer of the records inside the file ("" for a file of its own, "/clients" in a data file). */
  pointer: string;
  data: unknown;
}

/** What a correct entry of a kind looks like: the first record of the kit's own fixtures, as one line. */
export type ExampleOf = (kind: Kind) => string | undefined;

function validateKind(
  kind: Kind,
  source: KindSource,
  example: ExampleOf | undefined,
  validatorOf: ValidatorOf,
): unknown[] {
  const validate = validatorOf(kind);
  if (!validate(source.data)) {
    const e = validate.errors?.[0];
    const where = `${source.pointer}${e?.instancePath ?? ""}` || "/";
    const unknownKey =
      e?.keyword === "additionalProperties" ? String(e.params.additionalProperty) : undefined;
    if (unknownKey !== undefined) {
      const allowed = keysAt(fixtureSchemas[kind], e?.instancePath ?? "");
      const near = closest(unknownKey, allowed);
      throw new FixtureError(
        `${source.file}: ${where}/${unknownKey}: unknown key${near ? `; did you mean "${near}"?` : ""} Allowed here: ${allowed.join(", ")}`,
      );
    }
    const detail = e?.params && Object.keys(e.params).length > 0 ? ` (${JSON.stringify(e.params)})` : "";
    const shown = example?.(kind);
    throw new FixtureError(
      `${source.file}: ${where}: ${e?.message ?? "invalid"}${detail}${shown ? `; a correct entry looks like ${shown}` : ""}`,
    );
  }
  return source.data as unknown[];
}

/** The keys a kind's schema allows at a JSON pointer of a record (array indexes step into items). */
function keysAt(schema: Record<string, unknown>, pointer: string): string[] {
  let node: Record<string, unknown> | undefined = schema;
  for (const part of pointer.split("/").slice(1)) {
    const next: unknown = /^\d+$/.test(part)
      ? node?.items
      : (node?.properties as Record<string, unknown>)?.[part];
    node = next !== null && typeof next === "object" ? (next as Record<string, unknown>) : undefined;
  }
  return Object.keys((node?.properties as Record<string, unknown> | undefined) ?? {});
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Validates the records of each kind (schema first, then references between them: tenants of customers,
 * lookups, statistics and blocked values, customers of clients, duplicates) and freezes the world. Throws a
 * FixtureError naming file, JSON path and what is wrong at the first problem.
 */
export function fixtureWorld(
  sources: Partial<Record<Kind, KindSource>>,
  example?: ExampleOf,
  options: { schemaChecked?: boolean; validatorOf?: ValidatorOf } = {},
): FixtureData {
  const read = (kind: Kind): { file: string; pointer: string; data: unknown[] } => {
    const source = sources[kind];
    if (source === undefined) {
      if (KINDS[kind].required) throw new FixtureError(`${kind}: missing; the fixture world needs ${kind}`);
      return { file: kind, pointer: "", data: [] };
    }
    const data = options.schemaChecked
      ? (source.data as unknown[])
      : validateKind(kind, source, example, options.validatorOf ?? generatedValidator);
    return { file: source.file, pointer: source.pointer, data };
  };
  const t = read("tenants");
  const tenants = t.data as Tenant[];
  const tenantIds = new Set<string>();
  tenants.forEach((tenant, i) => {
    if (tenantIds.has(tenant.id))
      throw new FixtureError(`${t.file}: ${t.pointer}/${i}/id: duplicate tenant "${tenant.id}"`);
    tenantIds.add(tenant.id);
  });
  const modeOf = new Map(tenants.map((tenant) => [tenant.id, tenant.authMigrationMode]));
  const knownTenant = (file: string, path: string, id: string) => {
    if (!tenantIds.has(id)) {
      throw new FixtureError(
        `${file}: ${path}: unknown tenant "${id}"; declare it ${t.pointer === "" ? "in tenants.yaml" : `under ${t.pointer}`} (known: ${[...tenantIds].join(", ")})`,
      );
    }
  };

  const c = read("customers");
  const customers = c.data as Customer[];
  const customerIds = new Set<string>();
  customers.forEach((customer, i) => {
    if (customerIds.has(customer.id)) {
      throw new FixtureError(`${c.file}: ${c.pointer}/${i}/id: duplicate customer "${customer.id}"`);
    }
    customerIds.add(customer.id);
    customer.tenants?.forEach((id, j) => {
      knownTenant(c.file, `${c.pointer}/${i}/tenants/${j}`, id);
      // The document's rule: multitokenConfig on a tenant with auth.migration.mode=rdbms is a validation error.
      if (customer.multitokenConfig !== undefined && modeOf.get(id) === "rdbms") {
        throw new FixtureError(
          `${c.file}: ${c.pointer}/${i}/multitokenConfig: tenant "${id}" uses auth.migration.mode=rdbms, where multitokenConfig is a validation error; remove multitokenConfig or give the tenant authMigrationMode: cassandra`,
        );
      }
    });
  });

  const k = read("clients");
  const clients = (k.data as Partial<FixtureClient>[]).map((raw, i): FixtureClient => {
    if (!customerIds.has(raw.customerId ?? "")) {
      throw new FixtureError(
        `${k.file}: ${k.pointer}/${i}/customerId: unknown customer "${raw.customerId}"; known: ${[...customerIds].join(", ")}`,
      );
    }
    return {
      scope: [],
      resourceIds: [],
      authorizedGrantTypes: ["client_credentials"],
      redirectUri: [],
      accessTokenValidity: 3600,
      ...raw,
    } as FixtureClient;
  });
  const clientIds = new Set<string>();
  clients.forEach((client, i) => {
    if (clientIds.has(client.clientId)) {
      throw new FixtureError(`${k.file}: ${k.pointer}/${i}/clientId: duplicate client "${client.clientId}"`);
    }
    clientIds.add(client.clientId);
  });

  const l = read("lookups");
  const lookups = l.data as Lookup[];
  const lookupKeys = new Set<string>();
  lookups.forEach((lookup, i) => {
    knownTenant(l.file, `${l.pointer}/${i}/tenantId`, lookup.tenantId);
    const key = `${lookup.tenantId}\u0000${lookup.type}\u0000${lookup.code}`;
    if (lookupKeys.has(key)) {
      throw new FixtureError(
        `${l.file}: ${l.pointer}/${i}: duplicate lookup ${lookup.tenantId}/${lookup.type}/${lookup.code}`,
      );
    }
    lookupKeys.add(key);
  });

  const s = read("statistics");
  const statistics = s.data as Statistic[];
  const statKeys = new Set<string>();
  statistics.forEach((stat, i) => {
    knownTenant(s.file, `${s.pointer}/${i}/tenantId`, stat.tenantId);
    // One unmapped value may have several records (the document names no key); the time each was created
    // tells them apart.
    const key = `${stat.tenantId}\u0000${stat.lookupType}\u0000${stat.source}\u0000${stat.unmappedValue}\u0000${stat.createdAt}`;
    if (statKeys.has(key)) {
      throw new FixtureError(
        `${s.file}: ${s.pointer}/${i}: duplicate statistic (lookupType, source, unmappedValue, createdAt) = (${stat.lookupType}, ${stat.source}, ${stat.unmappedValue}, ${stat.createdAt}): give the second record of one unmapped value another createdAt`,
      );
    }
    statKeys.add(key);
  });

  const b = read("blocked-values");
  const blockedValues = b.data as BlockedValue[];
  blockedValues.forEach((value, i) => {
    knownTenant(b.file, `${b.pointer}/${i}/tenantId`, value.tenantId);
  });

  return deepFreeze({ tenants, customers, clients, lookups, statistics, blockedValues });
}
