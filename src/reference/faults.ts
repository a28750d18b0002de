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
  // ---------------------------------------------------------------- service and authentication
  fault("status-not-ok", "SERVICE-02", 'GET /status answers {"status": "DOWN"} although the service works'),
  fault(
    "malformed-token-accepted",
    "AUTH-03",
    "a bearer token that was never issued is accepted as if it were valid (only its form is checked)",
  ),
  fault(
    "viewer-read-refused",
    "AUTH-ROLES-03",
    "ROLE_RDM may not read blocked values: the endpoint demands the edit rights of ROLE_RDM_EDIT",
  ),
  fault(
    "editor-delete-refused",
    "AUTH-ROLES-02",
    "ROLE_RDM_EDIT is refused delete tasks (and their status); only the tenant admin may delete",
  ),
  fault(
    "admin-config-refused",
    "AUTH-ROLES-01",
    "PUT .../clients demands a platform-wide admin: ROLE_ADMIN_TENANT_{t} is refused with 403",
  ),
  fault(
    "configuration-open-to-viewer",
    "AUTH-ROLES-05",
    "customer and client configuration is allowed to ROLE_RDM and ROLE_RDM_EDIT of a tenant of the customer",
  ),
  // ---------------------------------------------------------------- token endpoint
  fault(
    "reissued-token-not-stored",
    "TOKEN-ENDPOINT-01",
    "with multi-token support off, a repeated token request answers a freshly generated token that was never stored, so it is refused on use",
  ),
  fault("token-type-missing", "TOKEN-ENDPOINT-04", "the token answer carries no token_type"),
  fault(
    "grant-in-query-refused",
    "TOKEN-ENDPOINT-03",
    "grant_type is read from the form body only; in the query string it counts as missing",
  ),
  fault(
    "token-errors-not-rfc6749",
    "TOKEN-ENDPOINT-05",
    "a token request without grant_type is answered unsupported_grant_type instead of invalid_request",
  ),
  fault("quota-0-accepted", "TOKEN-QUOTA-09", "maxActiveTokensAllowed=0 passes validation"),
  fault(
    "token-validity-ignored",
    "TOKEN-VALIDITY-01",
    "the token endpoint ignores the client's accessTokenValidity: every token lives 3600 s and expires_in says 3600",
  ),
  fault(
    "multitoken-needs-quota-value",
    "TOKEN-QUOTA-01",
    "multitokenConfig without maxActiveTokensAllowed keeps multi-token support off: the same token is returned again",
  ),
  // ---------------------------------------------------------------- scans
  fault(
    "first-page-null-body-refused",
    "SCAN-01",
    "a first scan request whose body is JSON null is refused with 400 (only no body opens a scroll)",
  ),
  fault(
    "scan-restarts-after-end",
    "SCAN-05",
    "the scroll never closes: after the last record an empty page with the scrollId follows, then the scroll starts over",
  ),
  fault(
    "raw-scroll-id-refused",
    "SCAN-08",
    "a next-page request carrying the raw scroll id as text/plain is refused with 400",
  ),
  fault(
    "unknown-scroll-id-restarts",
    "SCAN-12",
    "an unknown or expired scroll id opens a new scroll and answers its first page with 200",
  ),
  fault(
    "lookup-record-field-wrong-type",
    "LOOKUP-01",
    "the lookups scan answers updateDate as an ISO-8601 string instead of epoch milliseconds",
  ),
  fault(
    "statistic-field-wrong-type",
    "AUTOPILOT-07",
    'the autopilot scans answer centroidMatch as the string "true"/"false" instead of a boolean',
  ),
  // ---------------------------------------------------------------- blocked values
  fault(
    "blocked-value-field-wrong-type",
    "BLOCKED-04",
    "blocked values carry createdAt as an ISO-8601 string instead of epoch milliseconds",
  ),
  fault(
    "blocked-values-default-limit-wrong",
    "BLOCKED-03",
    "without a limit parameter, blocked values come 50 at a time instead of 100",
  ),
  // ---------------------------------------------------------------- configuration
  fault(
    "customer-post-with-id-refused",
    "CONFIG-CUSTOMER-02",
    "POST of a customer refuses a body that carries its id (400), so a whole Customer object cannot be posted",
  ),
  fault("put-merges", "CONFIG-CUSTOMER-03", "PUT of a customer merges like POST: absent fields are kept"),
  fault("customer-post-answers-201", "CONFIG-CUSTOMER-03", "POST of a customer answers 201 instead of 200"),
  fault(
    "clients-answer-with-secrets",
    "CONFIG-CLIENT-04",
    "PUT .../clients answers the stored clients with their clientSecret",
  ),
  fault(
    "clients-answer-validity-as-string",
    "CONFIG-CLIENT-03",
    'PUT .../clients answers accessTokenValidity as a string ("3600") instead of an integer',
  ),
  fault(
    "unknown-customer-clients-created",
    "CONFIG-CLIENT-06",
    "PUT .../clients of an unknown customer creates the customer on the fly and answers 200",
  ),
  // ---------------------------------------------------------------- delete task
  fault(
    "delete-task-without-type-refused",
    "TASK-01",
    "a delete task without parameters.type (no parameters, or uris alone) is refused with 400",
  ),
  fault("task-without-id", "TASK-06", "the 202 answer to a delete task carries no task id"),
  fault(
    "invalid-task-type-accepted",
    "TASK-08",
    "a task of another type than delete is accepted and run as a delete task",
  ),
  fault(
    "task-status-created-time-as-string",
    "TASK-07",
    "GET /tasks/{tenantId}/{taskId} answers createdTime as an ISO-8601 string instead of epoch milliseconds",
  ),
  // ---------------------------------------------------------------- errors
  fault(
    "malformed-json-500",
    "ERRORS-03",
    "a request body that is not valid JSON makes the server fail with 500 instead of a 400",
  ),
  fault(
    "oversized-body-500",
    "ERRORS-03",
    "a request body over 1 MiB makes the server fail with 500 instead of a 413",
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
