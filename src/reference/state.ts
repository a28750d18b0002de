// The reference's whole mutable world, built from the fixtures (plus generated data) for one instance.
import { lookupTypeName } from "../contract/lookup-type.ts";
import type { FixtureData } from "./fixture-world.ts";
import { LookupTable } from "./lookup-table.ts";
import { ScrollStore } from "./scroll.ts";
import type {
  BlockedValue,
  Customer,
  IssuedToken,
  Lookup,
  Statistic,
  StoredClient,
  Task,
  Tenant,
} from "./types.ts";

export interface ReferenceState {
  readonly tenants: Map<string, Tenant>;
  readonly customers: Map<string, Customer>;
  /** By clientId. */
  readonly clients: Map<string, StoredClient>;
  /** Every token ever issued (expired ones too, so their use is answered "expired"), by value. */
  readonly tokens: Map<string, IssuedToken>;
  /** Tokens per clientId in issue order; expired ones are pruned when the quota is counted. */
  readonly tokensByClient: Map<string, IssuedToken[]>;
  /** By tenant. */
  readonly lookups: Map<string, LookupTable>;
  /** By tenant, in identity order (lookupType, source, unmappedValue, createdAt). */
  readonly statistics: Map<string, readonly Statistic[]>;
  /** By tenant, then lookup type name, ordered by createdAt then value. */
  readonly blockedValues: Map<string, Map<string, readonly BlockedValue[]>>;
  readonly tasks: Map<string, Task>;
  readonly scrolls: ScrollStore;
}

export function compareStatisticIdentity(a: Statistic, b: Statistic): number {
  if (a.lookupType !== b.lookupType) return a.lookupType < b.lookupType ? -1 : 1;
  if (a.source !== b.source) return a.source < b.source ? -1 : 1;
  if (a.unmappedValue !== b.unmappedValue) return a.unmappedValue < b.unmappedValue ? -1 : 1;
  // One value may have several records (the document names no key): the earlier created first.
  return a.createdAt - b.createdAt;
}

function compareBlocked(a: BlockedValue, b: BlockedValue): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  if (a.value !== b.value) return a.value < b.value ? -1 : 1;
  return 0;
}

export interface ExtraData {
  lookups?: readonly Lookup[];
  statistics?: readonly Statistic[];
}

export function createState(fixtures: FixtureData, extra: ExtraData = {}): ReferenceState {
  const tenants = new Map(fixtures.tenants.map((t) => [t.id, t]));
  const customers = new Map(fixtures.customers.map((c) => [c.id, c]));
  const clients = new Map<string, StoredClient>();
  for (const { customerId, ...client } of fixtures.clients)
    clients.set(client.clientId, { customerId, client });

  const lookups = new Map<string, LookupTable>();
  for (const id of tenants.keys()) lookups.set(id, new LookupTable());
  for (const lookup of [...fixtures.lookups, ...(extra.lookups ?? [])])
    lookups.get(lookup.tenantId)?.add(lookup);

  const statsByTenant = new Map<string, Statistic[]>();
  for (const id of tenants.keys()) statsByTenant.set(id, []);
  for (const stat of [...fixtures.statistics, ...(extra.statistics ?? [])])
    statsByTenant.get(stat.tenantId)?.push(stat);
  for (const list of statsByTenant.values()) list.sort(compareStatisticIdentity);

  const blockedValues = new Map<string, Map<string, BlockedValue[]>>();
  for (const id of tenants.keys()) blockedValues.set(id, new Map());
  for (const value of fixtures.blockedValues) {
    const byType = blockedValues.get(value.tenantId);
    if (!byType) continue;
    const name = lookupTypeName(value.lookupType);
    const list = byType.get(name) ?? [];
    list.push(value);
    byType.set(name, list);
  }
  for (const byType of blockedValues.values()) for (const list of byType.values()) list.sort(compareBlocked);

  return {
    tenants,
    customers,
    clients,
    tokens: new Map(),
    tokensByClient: new Map(),
    lookups,
    statistics: statsByTenant,
    blockedValues,
    tasks: new Map(),
    scrolls: new ScrollStore(),
  };
}
