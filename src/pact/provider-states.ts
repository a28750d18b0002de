// The provider states the kit's pacts use, named after the data they require. Consumer tests name them
// with STATE.*; `lckit pact verify` has a handler for each (state-handlers.ts). A pact naming a state that
// is not listed here cannot be verified by the kit: the verification reports it.
import type { CredentialRole } from "../check/index.ts";

export const STATE = {
  viewerClient: "client acme-viewer may use the client_credentials grant",
  quotaReached: "client acme-quota at its token quota",
  countryLookups: "tenant acme has lookups of type Country",
  scrollOpen: "a scroll is open on tenant acme",
  probeLookup: "tenant acme has the lookup Gender/PACT-PROBE",
  statistics: "tenant acme has autopilot statistics",
  countryStatistics: "tenant acme has autopilot statistics of lookup type Country",
  blockedValues: "tenant acme has blocked values of lookup type Country",
  customerQuota: "customer cust-acme allows 5 active tokens per client",
  viewerValidity: "client acme-viewer of customer cust-acme has an access-token validity of 3600 seconds",
  rdbmsCustomer: "customer cust-legacy has the tenant legacy with auth.migration.mode rdbms",
  snapshotStream: "tenant acme streams events as snapshots",
  deltasStream: "tenant acme streams events as deltas",
  largeObjects: "tenant acme streams events with largeObjectsSupport on",
  // The access token a request carries: the state yields it as accessToken, and the pact's Authorization
  // header is fromProviderState("Bearer ${accessToken}"), so any Pact verifier that calls a state-change
  // URL sends a token the provider accepts (no request filter of the kit needed).
  viewerToken: "client acme-viewer holds an access token",
  editorToken: "client acme-editor holds an access token",
  adminToken: "client acme-admin holds an access token",
  rdbmsAdminToken: "client legacy-admin holds an access token",
} as const;

export type StateName = (typeof STATE)[keyof typeof STATE];

/** The scroll the "scroll is open" state opens: the consumer's next-page request continues it. */
export const OPEN_SCROLL_QUERY = { limit: 2, filter: "equals(type,'Country')", sort: "code" } as const;

/** Code of the lookup the delete-task pact deletes (type Gender). */
export const PROBE_CODE = "PACT-PROBE";

export interface ProviderStateSpec {
  name: StateName;
  /** What must hold on the provider, in words. */
  means: string;
  /** Values the handler returns for the pact's fromProviderState expressions (${name}). */
  provides: readonly string[];
  /** The client the interaction speaks for: whose credentials replace the pact's example ones. */
  role?: CredentialRole;
  /** What verification against a live target does with the state (it can only check, never arrange). */
  live: string;
}

export const providerStates: readonly ProviderStateSpec[] = [
  {
    name: STATE.viewerClient,
    means: "the viewer client exists and may use the client_credentials grant",
    provides: [],
    role: "viewer",
    live: "checked: the target file names credentials.viewer",
  },
  {
    name: STATE.quotaReached,
    means: "the quota client holds maxActiveTokensAllowed active tokens (multi-token support on)",
    provides: [],
    role: "quota",
    live: "not checkable without consuming quota: bring credentials.quota to its quota before verifying",
  },
  {
    name: STATE.countryLookups,
    means: "the tenant has at least 3 lookups of type Country",
    provides: ["tenantId"],
    live: "checked with a scan filtered on the type",
  },
  {
    name: STATE.scrollOpen,
    means:
      "a scan of the tenant's Country lookups (limit 2, sorted by code) is open, with more pages to come",
    provides: ["tenantId", "scrollId"],
    live: "arranged by reading: the handler opens the scroll (a scan) and passes its scrollId on",
  },
  {
    name: STATE.probeLookup,
    means: `the tenant has the lookup ${PROBE_CODE} of type Gender (the delete-task pact deletes it)`,
    provides: ["tenantId"],
    role: "editor",
    live: "checked with a scan; create the lookup before verifying (the interface has no create operation)",
  },
  {
    name: STATE.statistics,
    means: "the tenant has more than 10 autopilot statistics",
    provides: ["tenantId"],
    live: "checked with a scan",
  },
  {
    name: STATE.countryStatistics,
    means: "the tenant has autopilot statistics of lookup type Country",
    provides: ["tenantId"],
    live: "checked with a scan of the type",
  },
  {
    name: STATE.blockedValues,
    means: "the tenant has blocked values of lookup type Country",
    provides: ["tenantId"],
    live: "checked with a listing",
  },
  {
    name: STATE.customerQuota,
    means:
      "the tenant's customer has multitokenConfig with maxActiveTokensAllowed 5 (the pact sets it again)",
    provides: ["customerId"],
    role: "admin",
    live: "not checkable (the interface cannot read a customer): configure it before verifying",
  },
  {
    name: STATE.viewerValidity,
    means: "the viewer client has accessTokenValidity 3600 (the pact sets it again)",
    provides: ["customerId", "clientId"],
    role: "admin",
    live: "not checkable (the interface cannot read a client): configure it before verifying",
  },
  {
    name: STATE.rdbmsCustomer,
    means: "a customer has a tenant with auth.migration.mode=rdbms",
    provides: ["customerId"],
    role: "rdbmsAdmin",
    live: "checked: the target file names rdbmsCustomerId and credentials.rdbmsAdmin",
  },
  {
    name: STATE.snapshotStream,
    means: "the streaming configuration sends snapshots (payloadType snapshot)",
    provides: [],
    live: "messages always come from the kit's event generator",
  },
  {
    name: STATE.deltasStream,
    means: "the streaming configuration sends deltas (payloadType deltas)",
    provides: [],
    live: "messages always come from the kit's event generator",
  },
  {
    name: STATE.largeObjects,
    means: "largeObjectsSupport is on and the object exceeds the size limit",
    provides: [],
    live: "messages always come from the kit's event generator",
  },
  ...(
    [
      [STATE.viewerToken, "viewer"],
      [STATE.editorToken, "editor"],
      [STATE.adminToken, "admin"],
      [STATE.rdbmsAdminToken, "rdbmsAdmin"],
    ] as const
  ).map(
    ([name, role]): ProviderStateSpec => ({
      name,
      means: `an access token of the ${role} client, obtained with the client_credentials grant`,
      provides: ["accessToken"],
      role,
      live: `obtained with client_credentials from credentials.${role} of the target file`,
    }),
  ),
];

const byName = new Map<string, ProviderStateSpec>(providerStates.map((spec) => [spec.name, spec]));

/** The spec of a state named in a pact, or undefined when the kit does not know it. */
export function providerState(name: string): ProviderStateSpec | undefined {
  return byName.get(name);
}
