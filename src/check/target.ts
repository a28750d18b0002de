// What a run is pointed at, as a check sees it: URLs, tenants, credentials by role, the pinned profile.

/** Credentials a check may ask for. A target file maps each to a client id and secret (env references). */
export const CREDENTIAL_ROLES = [
  "admin", // ROLE_ADMIN_TENANT_{tenant}
  "editor", // ROLE_RDM_EDIT with the tenant on its list
  "viewer", // ROLE_RDM with the tenant on its list
  "quota", // a client of the quota customer that checks may exhaust
  "otherAdmin", // ROLE_ADMIN_TENANT_{otherTenant}
  "rdbmsAdmin", // ROLE_ADMIN_TENANT_{rdbmsTenant}
] as const;
export type CredentialRole = (typeof CREDENTIAL_ROLES)[number];

export interface Credential {
  clientId: string;
  clientSecret: string;
}

/** What the kit pins where the document is silent; "auto" lets safe probes detect it. */
export interface Profile {
  scrollIdEncoding: "object" | "raw-text" | "json-string" | "auto";
  quotaRefusalStatus: number | "any-4xx";
  expiredTokenStatus: number | "401-or-403";
  validationErrorStatus: number | "400-or-422";
  clampsLimit: boolean | "auto";
}

export interface Target {
  name: string;
  baseUrl: string;
  rdmUrl: string;
  /** Tenant every check works in. */
  tenant: string;
  /** A second tenant for isolation checks; checks needing it skip when absent. */
  otherTenant?: string;
  /** Roles whose clients the target file states hold no access to otherTenant (not on their tenant list,
   *  no ROLE_ADMIN_TENANT_ of it). The interface cannot show a client's tenants, so only these are held
   *  to a refusal there; a stated-nothing client that gets in is a configuration question, not a finding. */
  otherTenantLackedBy?: CredentialRole[];
  /** A tenant with auth.migration.mode=rdbms and its customer, for the multitokenConfig rule. */
  rdbmsTenant?: string;
  rdbmsCustomerId?: string;
  /** Customer of `tenant` (configuration checks) and the customer of the quota client. */
  customerId?: string;
  quotaCustomerId?: string;
  /** A second quota client in a customer of its own (credentials.quotaAlt and quotaAltCustomerId in the
   *  target file). A live run then runs the quota checks in two lanes, each with its own quota client and
   *  customer. Each lane's checks see theirs as credentials.quota; a check reads this only to name the
   *  client's target-file key (credentials.quotaAlt) in a failure detail. */
  quotaAlt?: { customerId: string; credential: Credential };
  credentials: Partial<Record<CredentialRole, Credential>>;
  profile: Profile;
  /** True when both URLs are on loopback. Informational only: a port-forward to production is loopback too,
   *  so it grants nothing. */
  loopback: boolean;
  /** True for the embedded reference and for targets whose file says `disposable: true` (a sandbox the
   *  owner lets the kit change freely): write, quota and destructive checks run there without --allow. */
  disposable?: boolean;
}
