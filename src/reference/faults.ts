// Seeded faults: each switch makes the reference break exactly one rule, so the kit's checks can be proved.

export interface FaultEntry {
  /** kebab-case, named after the rule it breaks */
  name: string;
  description: string;
  /** Requirement-catalogue id of the rule broken. */
  rule: string;
}

function fault<const N extends string>(name: N, rule: string, description: string) {
  return { name, rule, description } as const;
}

export const FAULTS = [
  fault(
    "scan-repeats-record-at-page-boundary",
    "SCAN-04",
    "every page after the first starts with the last record of the previous page",
  ),
  fault(
    "scan-loses-record-at-page-boundary",
    "SCAN-04",
    "every page after the first skips the record that should open it",
  ),
  fault("scan-ignores-order", "SCAN-06", "order=desc is ignored; records come in ascending order"),
  fault("scan-ignores-sort", "SCAN-06", "the sort parameter is ignored; records come in identity order"),
  fault("scan-exceeds-limit", "LOOKUP-SCAN-03", "every page holds one record more than the limit"),
  fault("scan-ignores-filter", "SCAN-07", "the filter parameter is ignored; every record is returned"),
  fault(
    "scan-never-ends",
    "SCAN-05",
    "every response carries a scrollId; after the last record empty pages follow forever",
  ),
  fault(
    "autopilot-type-scan-returns-other-types",
    "AUTOPILOT-02",
    "the per-type autopilot scan returns the statistics of every lookup type",
  ),
  fault("quota-off-by-one", "TOKEN-QUOTA-02", "one token more than maxActiveTokensAllowed is issued"),
  fault(
    "quota-not-enforced",
    "TOKEN-STATE-03",
    "with multi-token support on, tokens are issued beyond the quota",
  ),
  fault(
    "expired-token-accepted",
    "TOKEN-STATE-04",
    "an expired token is still accepted by the data endpoints",
  ),
  fault("expired-token-still-counted", "TOKEN-STATE-05", "expired tokens keep counting toward the quota"),
  fault(
    "same-token-with-multitoken-on",
    "TOKEN-QUOTA-01",
    "with multi-token support on, a valid token is returned again instead of a new one",
  ),
  fault(
    "new-token-with-multitoken-off",
    "TOKEN-STATE-01",
    "with multi-token support off, every token request issues a new token",
  ),
  fault("quota-201-accepted", "TOKEN-QUOTA-03", "maxActiveTokensAllowed up to 201 passes validation"),
  fault(
    "rdbms-rule-ignored",
    "CONFIG-CUSTOMER-04",
    "multitokenConfig is stored for a customer with an rdbms tenant",
  ),
  fault(
    "delete-by-type-removes-other-types",
    "TASK-03",
    "a delete task with parameters.type removes the lookups of every type",
  ),
  fault(
    "delete-by-uris-removes-more",
    "TASK-04",
    "a delete task with parameters.uris also removes one unlisted lookup of the same type",
  ),
  fault(
    "delete-touches-other-tenant",
    "TASK-05",
    "a delete task removes the matching lookups of every tenant, not only its own",
  ),
  fault("delete-task-never-completes", "TASK-06", "a delete task is accepted but never runs"),
  fault("blocked-values-offset-ignored", "BLOCKED-02", "the blocked-values offset is ignored (always 0)"),
  fault("blocked-values-limit-ignored", "BLOCKED-03", "the blocked-values limit is ignored (always 100)"),
  fault("missing-auth-accepted", "AUTH-01", "requests without an Authorization header are answered"),
  fault("cross-tenant-read", "AUTH-ROLES-04", "a ROLE_RDM viewer can read tenants that are not on its list"),
  fault("viewer-allowed-to-delete", "AUTH-ROLES-03", "ROLE_RDM may create delete tasks"),
  fault(
    "concurrent-quota-race",
    "TOKEN-QUOTA-06",
    "the quota check and the token insert are split by an await, so parallel requests overshoot",
  ),
  fault("version-not-dotted", "SERVICE-03", "the version is not a dotted number"),
  fault("healthcheck-not-ok", "SERVICE-01", "the healthcheck status is not OK"),
  fault(
    "token-error-not-json",
    "TOKEN-QUOTA-07",
    "the quota refusal is text/plain and does not mention the limit",
  ),
  fault(
    "limit-over-100-accepted-silently",
    "LOOKUP-SCAN-04",
    "scan limits above 100 are accepted and honoured (limit=150 returns 150 records)",
  ),
] as const satisfies readonly FaultEntry[];

export type FaultName = (typeof FAULTS)[number]["name"];

const known = new Set<string>(FAULTS.map((f) => f.name));

export function isFaultName(name: string): name is FaultName {
  return known.has(name);
}

/** The switched-on faults; throws on an unknown name so typos never silently run the correct reference. */
export function faultSet(names: readonly string[] = []): ReadonlySet<FaultName> {
  for (const name of names) {
    if (!isFaultName(name)) {
      throw new Error(`unknown fault "${name}"; expected one of: ${FAULTS.map((f) => f.name).join(", ")}`);
    }
  }
  return new Set(names as FaultName[]);
}
