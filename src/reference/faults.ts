// Seeded faults: each switch makes the reference break exactly one rule, so the kit's checks can be proved.
// Each fault names the checks that catch it: a run against the reference with only that fault switched on
// fails exactly these checks (MUST and SHOULD alike) and no other. test/suites/faults.test.ts holds every
// fault to its list; docs/faults.md is rendered from it.

export interface FaultEntry {
  /** kebab-case, named after the rule it breaks */
  name: string;
  description: string;
  /** Requirement-catalogue id of the rule broken. */
  rule: string;
  /** Ids of the checks (suite/name) that fail when this fault alone is on; never empty. */
  caughtBy: readonly string[];
  /**
   * Suites a run of this fault needs besides those of `caughtBy`, so that a selection fails exactly as a
   * whole run does: where a schema check's operation is exercised only by another suite (the schema suite
   * sends no request that would change data), or where the traffic of a whole run already holds what a
   * schema check validates.
   */
  alsoRuns?: readonly string[];
  /** Checks the fault leaves nothing to judge (inconclusive, never passed): e.g. a deletion that empties
   *  the tenant before the check that deletes all of it. */
  leavesUndecided?: readonly string[];
}

/** The checks that fill a client's quota and read its refusal: a fault in issuing or counting tokens fails them all. */
const QUOTA_REFUSAL_CHECKS = [
  "token-quota/distinct-tokens-up-to-max",
  "token-quota/refusal-429",
  "token-quota/expired-token-frees-slot",
  "token-quota/raised-quota-applies",
  "token-quota/parallel-requests-never-exceed",
  "token-quota/model",
  "token-quota/quota-per-client",
] as const;

export const FAULTS = [
  {
    name: "scan-repeats-record-at-page-boundary",
    rule: "SCAN-04",
    description: "every page after the first starts with the last record of the previous page",
    caughtBy: [
      "lookup-scan/every-record-once",
      "autopilot-scan/every-record-once",
      "autopilot-scan/type-scan-pages",
      "explore/reads",
      "explore/after-delete",
    ],
  },
  {
    name: "scan-loses-record-at-page-boundary",
    rule: "SCAN-04",
    description: "every page after the first skips the record that should open it",
    // A filtered scroll loses records at its page boundaries too: the filter checks see it.
    caughtBy: [
      "lookup-scan/every-record-once",
      "lookup-scan/filter-equals-exact",
      "lookup-scan/filter-type-name",
      "lookup-scan/filter-grammar",
      "autopilot-scan/every-record-once",
      "autopilot-scan/filter-equals-exact",
      "autopilot-scan/type-scan-pages",
      "explore/reads",
      "explore/after-delete",
    ],
  },
  {
    name: "scan-ignores-order",
    rule: "SCAN-06",
    description: "order=desc is ignored; records come in ascending order",
    caughtBy: [
      "lookup-scan/order-respected",
      "lookup-scan/sort-fields-accepted",
      "autopilot-scan/order-respected",
      "autopilot-scan/sort-fields-accepted",
      "explore/reads",
    ],
  },
  {
    name: "scan-ignores-sort",
    rule: "SCAN-06",
    description: "the sort parameter is ignored; records come in identity order",
    caughtBy: [
      "lookup-scan/order-respected",
      "lookup-scan/sort-fields-accepted",
      "autopilot-scan/order-respected",
      "autopilot-scan/sort-fields-accepted",
      "explore/reads",
    ],
  },
  {
    name: "scan-exceeds-limit",
    rule: "LOOKUP-SCAN-03",
    description: "every page holds one record more than the limit",
    caughtBy: [
      "lookup-scan/page-within-limit",
      "autopilot-scan/page-within-limit",
      "autopilot-scan/default-limit",
      "autopilot-scan/type-scan-pages",
      "explore/reads",
      "explore/after-delete",
    ],
  },
  {
    name: "scan-ignores-filter",
    rule: "SCAN-07",
    description: "the filter parameter is ignored; every record is returned",
    caughtBy: [
      "lookup-scan/filter-equals-exact",
      "lookup-scan/filter-type-name",
      "lookup-scan/filter-grammar",
      "autopilot-scan/filter-equals-exact",
      "explore/reads",
      "explore/after-delete",
    ],
  },
  {
    name: "scan-never-ends",
    rule: "SCAN-05",
    description: "every response carries a scrollId; after the last record empty pages follow forever",
    // Empty pages that keep a scrollId still end a scan at MUST level (deployments do this); the kit's
    // choice, an answer without scrollId, is what they break.
    caughtBy: ["lookup-scan/end-without-scroll-id", "autopilot-scan/end-without-scroll-id"],
  },
  {
    name: "autopilot-type-scan-returns-other-types",
    rule: "AUTOPILOT-02",
    description: "the per-type autopilot scan returns the statistics of every lookup type",
    caughtBy: ["autopilot-scan/type-scan-only-that-type", "explore/reads", "explore/after-delete"],
  },
  {
    name: "scan-first-page-ties-reversed",
    rule: "SCAN-04",
    description:
      "the first page of the first scroll sorted by a field, picked before the full order exists, breaks ties the other way than the later pages: at a small limit a record sharing the sort value repeats or is lost at the first page boundary",
    caughtBy: ["lookup-scan/every-record-once", "autopilot-scan/every-record-once"],
  },
  {
    name: "scan-keyset-loses-ties",
    rule: "SCAN-04",
    description:
      "a sorted scroll resumes after the last record's value of the sort field: records sharing that value across a page boundary are lost",
    // A sorted filtered scroll loses them too: the filter checks read those.
    caughtBy: [
      "lookup-scan/every-record-once",
      "lookup-scan/filter-equals-exact",
      "autopilot-scan/every-record-once",
      "autopilot-scan/filter-equals-exact",
      "autopilot-scan/type-scan-pages",
      "explore/reads",
    ],
  },
  {
    name: "scan-filtered-sorted-repeats-at-boundary",
    rule: "SCAN-04",
    description:
      "a scroll with both a filter and a sort opens every page after the first with the last record of the page before",
    caughtBy: [
      "lookup-scan/every-record-once",
      "autopilot-scan/every-record-once",
      "autopilot-scan/type-scan-pages",
    ],
  },
  {
    name: "scan-filtered-full-last-page-repeated",
    rule: "SCAN-04",
    description:
      "a filtered scroll whose records fill its last page exactly answers one more page repeating that page",
    // Under a sort the repeated page also breaks the order where it starts again.
    caughtBy: [
      "lookup-scan/every-record-once",
      "lookup-scan/order-respected",
      "autopilot-scan/every-record-once",
      "autopilot-scan/order-respected",
      "autopilot-scan/type-scan-pages",
      "explore/after-delete",
    ],
  },
  {
    name: "scan-filter-dropped-under-sort",
    rule: "SCAN-07",
    description: "a scroll with both a filter and a sort ignores the filter: every record comes, sorted",
    caughtBy: ["lookup-scan/filter-equals-exact", "autopilot-scan/filter-equals-exact", "explore/reads"],
  },
  {
    // Mirrors the mutant `boundless && variants.has("short-pages")` -> true of scan-query.ts (issue 43).
    name: "autopilot-scan-short-pages",
    rule: "AUTOPILOT-03",
    description:
      "the autopilot scans serve at most 25 statistics a page whatever limit asks, 100 by default: pages end short while more follow",
    caughtBy: ["autopilot-scan/default-limit"],
  },
  {
    name: "autopilot-type-scan-sorts-each-page",
    rule: "SCAN-06",
    description:
      "the per-type autopilot scan sorts each page on its own: pages come unsorted, the records within a page sorted",
    caughtBy: ["autopilot-scan/order-respected"],
  },
  {
    name: "quota-off-by-one",
    rule: "TOKEN-QUOTA-02",
    description: "one token more than maxActiveTokensAllowed is issued",
    caughtBy: [...QUOTA_REFUSAL_CHECKS, "token-quota/default-quota-200", "explore/tokens"],
  },
  {
    name: "quota-refused-early",
    rule: "TOKEN-STATE-02",
    description:
      "a token request is refused for the limit one token before maxActiveTokensAllowed (a quota of 1 refuses the first token)",
    // Parallel requests refused early never exceed the quota: that check sees nothing wrong.
    caughtBy: [
      ...QUOTA_REFUSAL_CHECKS.filter((id) => id !== "token-quota/parallel-requests-never-exceed"),
      "token-quota/default-quota-200",
      "explore/tokens",
    ],
  },
  {
    name: "quota-not-enforced",
    rule: "TOKEN-STATE-03",
    description: "with multi-token support on, tokens are issued beyond the quota",
    caughtBy: [...QUOTA_REFUSAL_CHECKS, "token-quota/default-quota-200", "explore/tokens"],
  },
  {
    name: "expired-token-accepted",
    rule: "TOKEN-STATE-04",
    description: "an expired token is still accepted by the data endpoints",
    caughtBy: [
      "auth/expired-token-refused",
      "auth/expired-token-401",
      "token-quota/expired-token-frees-slot",
      "token-quota/model",
      "token-quota/validity-from-client-configuration",
      "explore/tokens",
    ],
  },
  {
    name: "expired-token-still-counted",
    rule: "TOKEN-STATE-05",
    description: "expired tokens keep counting toward the quota",
    // Expired tokens of one quota check still hold slots in the next: every check that fills a quota sees it.
    caughtBy: [
      ...QUOTA_REFUSAL_CHECKS,
      "token-quota/multitoken-config-activates",
      "token-quota/default-quota-200",
      "token-quota/validity-from-client-configuration",
      "explore/tokens",
    ],
  },
  {
    name: "same-token-with-multitoken-on",
    rule: "TOKEN-QUOTA-01",
    description: "with multi-token support on, a valid token is returned again instead of a new one",
    caughtBy: [
      ...QUOTA_REFUSAL_CHECKS,
      "token-quota/multitoken-config-activates",
      "token-quota/default-quota-200",
      "explore/tokens",
    ],
  },
  {
    name: "new-token-with-multitoken-off",
    rule: "TOKEN-STATE-01",
    description: "with multi-token support off, every token request issues a new token",
    caughtBy: ["token-quota/single-token-reused", "token-quota/model", "explore/tokens"],
  },
  {
    name: "quota-201-accepted",
    rule: "TOKEN-QUOTA-03",
    description: "maxActiveTokensAllowed up to 201 passes validation",
    caughtBy: [
      "token-quota/max-above-200-refused",
      "token-quota/validation-error-names-field",
      "schema/putCustomer",
    ],
  },
  {
    name: "quota-201-accepted-by-post",
    rule: "TOKEN-QUOTA-03",
    description:
      "maxActiveTokensAllowed up to 201 passes validation on POST of a customer (PUT keeps the limit)",
    // The POST succeeded where the contract has the refusal: its schema check sees it too.
    caughtBy: ["token-quota/max-above-200-refused", "schema/postCustomer"],
  },
  {
    name: "quota-change-ignored-on-post",
    rule: "TOKEN-QUOTA-10",
    description:
      "a POST that sets maxActiveTokensAllowed where a multitokenConfig is stored keeps the stored one (a raise applies on PUT only)",
    caughtBy: ["token-quota/raised-quota-applies", "token-quota/model"],
  },
  {
    name: "multitoken-stays-on-after-off",
    rule: "TOKEN-STATE-01",
    description:
      "once a client was issued tokens under multitokenConfig, switching multi-token support off keeps issuing it new tokens under the old quota",
    caughtBy: ["token-quota/model", "explore/tokens"],
  },
  {
    name: "refused-token-request-counted",
    rule: "TOKEN-STATE-03",
    description:
      "a declined token request takes a quota slot for a whole validity, as if a token had been issued",
    caughtBy: [
      // The slot it takes is still held when the quota is raised on top of it, or when the tokens expire.
      "token-quota/raised-quota-applies",
      "token-quota/parallel-requests-never-exceed",
      "token-quota/model",
    ],
  },
  {
    name: "refused-token-request-renews-token",
    rule: "TOKEN-STATE-03",
    description:
      "a declined token request renews the client's earliest active token (its validity restarts), so the slot it holds is not freed when it should expire",
    caughtBy: ["token-quota/model"],
  },
  {
    name: "token-expires-early",
    rule: "TOKEN-VALIDITY-02",
    description:
      "a token expires 1.5 s before its client's accessTokenValidity has elapsed from its issue time (expires_in announces the shortened life)",
    caughtBy: ["token-quota/model", "token-quota/validity-from-client-configuration", "explore/tokens"],
  },
  {
    name: "rdbms-rule-ignored",
    rule: "CONFIG-CUSTOMER-04",
    description: "multitokenConfig is stored for a customer with an rdbms tenant",
    caughtBy: ["token-quota/rdbms-multitoken-refused", "explore/tokens"],
  },
  {
    name: "rdbms-refusal-still-stored",
    rule: "CONFIG-CUSTOMER-04",
    description:
      "multitokenConfig for a customer with an rdbms tenant is answered with the validation error, but stored all the same (its clients get new tokens under the quota)",
    caughtBy: ["explore/tokens"],
  },
  {
    name: "validity-set-for-whole-customer",
    rule: "TOKEN-VALIDITY-01",
    description:
      "accessTokenValidity written for one client through PUT .../clients is stored for every client of that customer",
    caughtBy: ["explore/tokens"],
  },
  {
    name: "reissued-token-renewed",
    rule: "TOKEN-VALIDITY-02",
    description:
      "with multi-token support off, the token returned again lives a whole validity from that request (its validity restarts instead of running from its issue time)",
    caughtBy: ["explore/tokens"],
  },
  {
    name: "multitoken-config-reaches-other-customers",
    rule: "TOKEN-QUOTA-04",
    description:
      "a customer's multitokenConfig also applies to the clients of every customer without one of its own (their token requests get new tokens under that quota)",
    caughtBy: ["explore/tokens"],
  },
  {
    name: "delete-by-type-removes-other-types",
    rule: "TASK-03",
    description: "a delete task with parameters.type removes the lookups of every type",
    // The explorer's deleting check runs first: its task of a small type (or of a type the tenant holds
    // no lookup of) empties the tenant, and the delete-task checks after it find nothing to delete.
    caughtBy: ["explore/after-delete"],
    alsoRuns: ["delete-task"],
    leavesUndecided: [
      "delete-task/by-uris",
      "delete-task/by-type",
      "delete-task/all-of-tenant",
      "delete-task/foreign-uris-delete-nothing",
    ],
  },
  {
    name: "delete-by-type-first-page-only",
    rule: "TASK-03",
    description: "a delete task with parameters.type removes only the first 100 lookups of that type",
    caughtBy: ["delete-task/by-type"],
  },
  {
    name: "delete-by-uris-removes-more",
    rule: "TASK-04",
    description: "a delete task with parameters.uris also removes one unlisted lookup of the same type",
    caughtBy: ["delete-task/by-uris", "explore/after-delete"],
  },
  {
    name: "delete-touches-other-tenant",
    rule: "TASK-05",
    description: "a delete task removes the matching lookups of every tenant, not only its own",
    caughtBy: [
      "delete-task/by-uris",
      "delete-task/by-type",
      "delete-task/all-of-tenant",
      "explore/after-delete",
    ],
  },
  {
    name: "delete-task-never-completes",
    rule: "TASK-06",
    description: "a delete task is accepted but never runs",
    caughtBy: [
      "delete-task/task-status-completes",
      "delete-task/by-uris",
      "delete-task/by-type",
      "delete-task/all-of-tenant",
    ],
    // The explorer's deleting check waits its bound for tasks that never run, and cannot decide.
    alsoRuns: ["explore"],
    leavesUndecided: ["explore/after-delete"],
  },
  {
    name: "blocked-values-offset-ignored",
    rule: "BLOCKED-02",
    description: "the blocked-values offset is ignored (always 0)",
    // An ignored offset is not validated either: offset=-1 is answered.
    caughtBy: ["blocked-values/paging-consistent", "blocked-values/out-of-range-400", "explore/reads"],
  },
  {
    name: "blocked-values-limit-ignored",
    rule: "BLOCKED-03",
    description: "the blocked-values limit is ignored (always 100)",
    caughtBy: [
      "blocked-values/paging-consistent",
      "blocked-values/limit-respected",
      "blocked-values/out-of-range-400",
      "explore/reads",
    ],
  },
  {
    name: "blocked-values-offset-past-end-repeats-last-page",
    rule: "BLOCKED-02",
    description: "a blocked-values offset at or past the end answers the last page again instead of nothing",
    caughtBy: ["blocked-values/paging-consistent", "explore/reads"],
  },
  {
    name: "blocked-values-offset-rounded-to-page",
    rule: "BLOCKED-02",
    description:
      "a blocked-values offset that is not a multiple of the limit is rounded down to one (the offset counts pages)",
    caughtBy: ["blocked-values/paging-consistent", "explore/reads"],
  },
  {
    name: "blocked-values-of-every-type",
    rule: "BLOCKED-08",
    description:
      "the blocked values of every lookup type of the tenant are listed, whichever type the path names",
    caughtBy: ["blocked-values/of-the-path"],
  },

  {
    name: "missing-auth-accepted",
    rule: "AUTH-01",
    description: "requests without an Authorization header are answered",
    caughtBy: [
      "service/refuses-without-authorization",
      "auth/no-token-refused",
      "auth/missing-token-401",
      "explore/reads",
    ],
  },
  {
    name: "cross-tenant-read",
    rule: "AUTH-ROLES-04",
    description: "a ROLE_RDM viewer can read tenants that are not on its list",
    caughtBy: ["auth/other-tenant-refused", "auth/other-tenant-403"],
  },
  {
    name: "viewer-allowed-to-delete",
    rule: "AUTH-ROLES-03",
    description: "ROLE_RDM may create delete tasks",
    caughtBy: ["auth/viewer-cannot-delete"],
  },
  {
    name: "concurrent-quota-race",
    rule: "TOKEN-QUOTA-06",
    description: "the quota check and the token insert are split by an await, so parallel requests overshoot",
    caughtBy: ["token-quota/parallel-requests-never-exceed"],
  },
  {
    name: "version-not-dotted",
    rule: "SERVICE-03",
    description: "the version is not a dotted number",
    caughtBy: ["service/version-dotted", "service/version-json-string", "schema/getVersion"],
  },
  {
    name: "healthcheck-not-ok",
    rule: "SERVICE-01",
    description: "the healthcheck status is not OK",
    caughtBy: ["service/healthcheck-ok", "schema/getHealthcheck", "delete-task/all-of-tenant"],
  },
  {
    name: "token-error-not-json",
    rule: "TOKEN-QUOTA-07",
    description: "the quota refusal is text/plain and does not mention the limit",
    // The document requires the refusal to state the limit: a text/plain answer without it fails at MUST.
    caughtBy: [...QUOTA_REFUSAL_CHECKS, "schema/issueToken", "explore/tokens"],
  },
  {
    name: "limit-over-100-accepted-silently",
    rule: "LOOKUP-SCAN-04",
    description: "scan limits above 100 are accepted and honoured (limit=150 returns 150 records)",
    // Lookups scan limits have no documented bound (SHOULD); the autopilot scans' maximum of 100 is explicit.
    caughtBy: [
      "lookup-scan/limit-out-of-range-400",
      "autopilot-scan/limit-above-100",
      "autopilot-scan/limit-out-of-range-400",
    ],
  },
  // ---------------------------------------------------------------- service and authentication
  {
    name: "status-not-ok",
    rule: "SERVICE-02",
    description: 'GET /status answers {"status": "DOWN"} although the service works',
    caughtBy: ["service/status-ok", "schema/getStatus", "delete-task/all-of-tenant"],
  },
  {
    name: "malformed-token-accepted",
    rule: "AUTH-03",
    description:
      "a bearer token that was never issued is accepted as if it were valid (only its form is checked)",
    caughtBy: ["auth/malformed-token-refused", "explore/reads"],
  },
  {
    name: "viewer-read-refused",
    rule: "AUTH-ROLES-03",
    description:
      "ROLE_RDM may not read blocked values: the endpoint demands the edit rights of ROLE_RDM_EDIT",
    caughtBy: ["auth/viewer-can-read"],
  },
  {
    name: "editor-delete-refused",
    rule: "AUTH-ROLES-02",
    description: "ROLE_RDM_EDIT is refused delete tasks (and their status); only the tenant admin may delete",
    caughtBy: ["auth/editor-can-delete", "explore/after-delete"],
  },
  {
    name: "admin-config-refused",
    rule: "AUTH-ROLES-01",
    description: "PUT .../clients demands a platform-wide admin: ROLE_ADMIN_TENANT_{t} is refused with 403",
    // The quota checks set up their clients through PUT .../clients as the admin: refused, they cannot start.
    caughtBy: [
      "auth/admin-full-access",
      "configuration/clients-answer-without-secrets",
      ...QUOTA_REFUSAL_CHECKS,
      "token-quota/multitoken-config-activates",
      "token-quota/default-quota-200",
      "token-quota/single-token-reused",
      "token-quota/validity-from-client-configuration",
      "explore/tokens",
    ],
  },
  {
    name: "configuration-open-to-viewer",
    rule: "AUTH-ROLES-05",
    description:
      "customer and client configuration is allowed to ROLE_RDM and ROLE_RDM_EDIT of a tenant of the customer",
    caughtBy: ["auth/configuration-needs-admin"],
  },
  // ---------------------------------------------------------------- one endpoint or one request form
  // Faulty implementations keep an authentication or role rule on most endpoints and break it on one: a
  // check that tries the rule on one slice passes them.
  {
    name: "expired-token-accepted-outside-lookups",
    rule: "AUTH-04",
    description:
      "the lookup-data service refuses expired tokens; the autopilot and configuration endpoints ({base_url}) accept them",
    caughtBy: ["auth/expired-token-refused", "auth/expired-token-401"],
  },
  {
    name: "expired-admin-token-accepted",
    rule: "AUTH-04",
    description:
      "expired tokens of ROLE_ADMIN_TENANT clients are still accepted; those of ROLE_RDM and ROLE_RDM_EDIT clients are refused",
    // Only where the clock can be driven do the expired-token checks hold the admin's token: in real time
    // they wait out the quota client's alone (reconfiguring the admin's own client is no probe for a live
    // target).
    caughtBy: ["auth/expired-token-refused", "auth/expired-token-401"],
  },
  {
    name: "malformed-token-accepted-on-blocked-values",
    rule: "AUTH-03",
    description:
      "the blocked-values endpoint checks only that Authorization reads Bearer <token>: a token never issued is accepted there",
    caughtBy: ["auth/malformed-token-refused"],
  },
  {
    name: "service-endpoints-answer-without-token",
    rule: "AUTH-02",
    description: "/healthcheck, /status and /version answer a request without an Authorization header",
    caughtBy: ["auth/no-token-refused", "service/refuses-without-authorization"],
  },
  {
    name: "other-tenant-delete-by-type-open",
    rule: "AUTH-ROLES-04",
    description:
      "a delete task's tenant is checked only through its URIs: a task by type (or of the whole tenant) is accepted in a tenant the caller does not hold",
    caughtBy: ["auth/other-tenant-refused"],
  },
  {
    name: "viewer-delete-by-type-allowed",
    rule: "AUTH-ROLES-03",
    description:
      "ROLE_RDM is refused a delete task naming URIs, but allowed one by parameters.type or without parameters",
    caughtBy: ["auth/viewer-cannot-delete"],
  },
  {
    name: "editor-delete-by-type-refused",
    rule: "AUTH-ROLES-02",
    description:
      "ROLE_RDM_EDIT may delete the lookups its URIs name, but a delete task naming parameters.type is refused with 403: only the tenant admin may delete by type",
    caughtBy: ["auth/editor-can-delete"],
  },
  // ---------------------------------------------------------------- token endpoint
  {
    name: "reissued-token-not-stored",
    rule: "TOKEN-ENDPOINT-01",
    description:
      "with multi-token support off, a repeated token request answers a freshly generated token that was never stored, so it is refused on use",
    // The unstored token is refused wherever a token is asked for while the client's token is still valid:
    // by the checks that issue one themselves, and by the runner renewing the admin token shortly before
    // it expires during the deletion checks' polling (the explorer's deleting check's too).
    caughtBy: [
      "auth/token-for-client-credentials",
      "auth/expired-token-refused",
      "auth/expired-token-401",
      "token-quota/single-token-reused",
      "delete-task/by-uris",
      "delete-task/by-type",
      "delete-task/all-of-tenant",
      "delete-task/foreign-uris-delete-nothing",
      "explore/after-delete",
    ],
  },
  {
    name: "token-type-missing",
    rule: "TOKEN-ENDPOINT-04",
    description: "the token answer carries no token_type",
    caughtBy: ["auth/token-endpoint-rfc6749", "auth/token-grant-in-query", "schema/issueToken"],
  },
  {
    name: "grant-in-query-refused",
    rule: "TOKEN-ENDPOINT-03",
    description: "grant_type is read from the form body only; in the query string it counts as missing",
    caughtBy: ["auth/token-grant-in-query"],
  },
  {
    name: "token-errors-not-rfc6749",
    rule: "TOKEN-ENDPOINT-05",
    description:
      "a token request without grant_type is answered unsupported_grant_type instead of invalid_request",
    caughtBy: ["auth/token-errors-rfc6749"],
  },
  {
    name: "quota-0-accepted",
    rule: "TOKEN-QUOTA-09",
    description: "maxActiveTokensAllowed=0 passes validation",
    // The quota's minimum is a kit preference, not a contract keyword: only the SHOULD check sees it.
    caughtBy: ["token-quota/max-below-1-refused"],
  },
  {
    name: "token-validity-ignored",
    rule: "TOKEN-VALIDITY-01",
    description:
      "the token endpoint ignores the client's accessTokenValidity: every token lives 3600 s and expires_in says 3600",
    // Tokens meant to expire after the session's short validity live an hour: every quota check meets them.
    caughtBy: [
      ...QUOTA_REFUSAL_CHECKS,
      "token-quota/multitoken-config-activates",
      "token-quota/default-quota-200",
      "token-quota/validity-from-client-configuration",
      "explore/tokens",
    ],
  },
  {
    name: "multitoken-needs-quota-value",
    rule: "TOKEN-QUOTA-01",
    description:
      "multitokenConfig without maxActiveTokensAllowed keeps multi-token support off: the same token is returned again",
    caughtBy: ["token-quota/multitoken-config-activates", "token-quota/default-quota-200"],
  },
  {
    name: "expired-token-returned-again",
    rule: "TOKEN-STATE-04",
    description:
      "with multi-token support off and every token of the client expired, a token request returns the expired token again (the client never gets a working token); for short-lived tokens only (accessTokenValidity below 3600 s), as a cache of them would",
    caughtBy: ["token-quota/model", "explore/tokens"],
  },
  {
    name: "empty-multitoken-config-breaks-tokens",
    rule: "TOKEN-QUOTA-01",
    description:
      "multitokenConfig {} is accepted and stored, and then every token request of the customer's clients fails (500)",
    caughtBy: ["token-quota/model", "errors/no-5xx", "schema/issueToken"],
  },
  // ---------------------------------------------------------------- scans
  {
    name: "first-page-null-body-refused",
    rule: "SCAN-01",
    description:
      "a first scan request whose body is JSON null is refused with 400 (only no body opens a scroll)",
    caughtBy: ["lookup-scan/first-page-null-body", "autopilot-scan/first-page-null-body", "explore/reads"],
  },
  {
    name: "scan-restarts-after-end",
    rule: "SCAN-05",
    description:
      "the scroll never closes: after the last record an empty page with the scrollId follows, then the scroll starts over",
    // An empty page still ends a scan at MUST level; the records that follow it are what the ends checks see.
    caughtBy: [
      "lookup-scan/scan-ends",
      "lookup-scan/end-without-scroll-id",
      "autopilot-scan/scan-ends",
      "autopilot-scan/end-without-scroll-id",
    ],
  },
  {
    name: "raw-scroll-id-refused",
    rule: "SCAN-08",
    description: "a next-page request carrying the raw scroll id as text/plain is refused with 400",
    caughtBy: ["lookup-scan/scroll-id-bodies-accepted", "autopilot-scan/scroll-id-bodies-accepted"],
  },
  {
    name: "unknown-scroll-id-restarts",
    rule: "SCAN-12",
    description: "an unknown or expired scroll id opens a new scroll and answers its first page with 200",
    caughtBy: ["lookup-scan/unknown-scroll-id-400", "autopilot-scan/unknown-scroll-id-400"],
  },
  {
    name: "lookup-record-field-wrong-type",
    rule: "LOOKUP-01",
    description: "the lookups scan answers updateDate as an ISO-8601 string instead of epoch milliseconds",
    caughtBy: ["lookup-scan/record-fields", "schema/scanLookups"],
  },
  {
    name: "statistic-field-wrong-type",
    rule: "AUTOPILOT-07",
    description: 'the autopilot scans answer centroidMatch as the string "true"/"false" instead of a boolean',
    caughtBy: [
      "autopilot-scan/record-fields",
      "schema/scanAutopilotStats",
      "schema/scanAutopilotStatsByType",
    ],
  },
  // ---------------------------------------------------------------- blocked values
  {
    name: "blocked-value-field-wrong-type",
    rule: "BLOCKED-04",
    description: "blocked values carry createdAt as an ISO-8601 string instead of epoch milliseconds",
    caughtBy: ["blocked-values/record-fields", "schema/listBlockedValues"],
  },
  {
    name: "blocked-values-default-limit-wrong",
    rule: "BLOCKED-03",
    description: "without a limit parameter, blocked values come 50 at a time instead of 100",
    caughtBy: ["blocked-values/defaults", "explore/reads"],
  },
  // ---------------------------------------------------------------- configuration
  {
    name: "customer-post-with-id-refused",
    rule: "CONFIG-CUSTOMER-02",
    description:
      "POST of a customer refuses a body that carries its id (400), so a whole Customer object cannot be posted",
    // The quota checks set the quota by POST with the whole customer too.
    caughtBy: [
      "configuration/customer-put-post-accepted",
      "token-quota/multitoken-config-activates",
      "token-quota/raised-quota-applies",
      "token-quota/model",
      "token-quota/max-above-200-refused",
      "explore/tokens",
    ],
  },
  {
    name: "put-merges",
    rule: "CONFIG-CUSTOMER-03",
    description: "PUT of a customer merges like POST: absent fields are kept",
    // A merging PUT is a correct choice where the document is silent: only the SHOULD check of the kit's
    // choice fails; the quota checks switch multi-token support off with multitokenConfig null instead.
    caughtBy: ["configuration/put-replaces-post-merges"],
    // The quota checks exercise the switch-off path of a merging PUT.
    alsoRuns: ["token-quota"],
  },
  {
    name: "customer-post-answers-201",
    rule: "CONFIG-CUSTOMER-03",
    description: "POST of a customer answers 201 instead of 200",
    caughtBy: ["configuration/put-replaces-post-merges", "schema/postCustomer"],
  },
  {
    name: "clients-answer-with-secrets",
    rule: "CONFIG-CLIENT-04",
    description: "PUT .../clients answers the stored clients with their clientSecret",
    caughtBy: ["configuration/clients-answer-without-secrets"],
  },
  {
    name: "clients-answer-validity-as-string",
    rule: "CONFIG-CLIENT-03",
    description: 'PUT .../clients answers accessTokenValidity as a string ("3600") instead of an integer',
    // The MUST and SHOULD configuration checks do not look at accessTokenValidity in the answer; the contract does.
    caughtBy: ["schema/putClients"],
    alsoRuns: ["configuration"],
  },
  {
    name: "unknown-customer-clients-created",
    rule: "CONFIG-CLIENT-06",
    description: "PUT .../clients of an unknown customer creates the customer on the fly and answers 200",
    caughtBy: ["configuration/unknown-customer-404"],
  },
  // ---------------------------------------------------------------- delete task
  {
    name: "delete-task-without-type-refused",
    rule: "TASK-01",
    description: "a delete task without parameters.type (no parameters, or uris alone) is refused with 400",
    caughtBy: [
      "delete-task/accepted",
      "delete-task/task-object",
      "delete-task/task-status-completes",
      "delete-task/by-uris",
      "delete-task/all-of-tenant",
      "auth/editor-can-delete",
      "auth/admin-full-access",
      "explore/after-delete",
    ],
  },
  {
    name: "task-without-id",
    rule: "TASK-06",
    description: "the 202 answer to a delete task carries no task id",
    caughtBy: ["delete-task/task-object", "delete-task/task-status-completes", "schema/createTask"],
  },
  {
    name: "invalid-task-type-accepted",
    rule: "TASK-08",
    description: "a task of another type than delete is accepted and run as a delete task",
    caughtBy: ["delete-task/invalid-requests-400"],
  },
  {
    name: "delete-uri-tenant-ignored",
    rule: "TASK-04",
    description:
      "a delete task matches each URI by its type and code alone: globex/Country/AT sent to acme deletes acme's Country/AT",
    // Accepting the foreign URI at all is what the SHOULD check of invalid requests sees.
    caughtBy: ["delete-task/foreign-uris-delete-nothing", "delete-task/invalid-requests-400"],
  },
  {
    name: "delete-task-follows-foreign-uris",
    rule: "TASK-05",
    description:
      "a delete task deletes the lookups its URIs name in other tenants: globex/Country/AT sent to acme deletes globex's Country/AT",
    // The acme admin holds nothing of globex in the fixture world, so this is a deletion the caller lacks.
    caughtBy: ["delete-task/foreign-uris-delete-nothing", "delete-task/invalid-requests-400"],
  },
  {
    name: "editor-task-follows-foreign-uris",
    rule: "AUTH-ROLES-04",
    description:
      "a delete task sent by ROLE_RDM_EDIT deletes the lookups its URIs name in other tenants, tenants not on the editor's list",
    caughtBy: ["delete-task/foreign-uris-delete-nothing"],
  },
  {
    name: "deleted-lookups-come-back",
    rule: "TASK-04",
    description:
      "a lookup a delete task removed is listed again 3 s later (a cache that outlives the deletion)",
    caughtBy: ["explore/after-delete"],
  },
  {
    name: "deleted-type-still-matches-by-name",
    rule: "TASK-03",
    description:
      "after a delete task, a lookups scan filtered by equals(type,'<type_name>') still lists the removed lookups of that type",
    caughtBy: ["explore/after-delete", "delete-task/by-type"],
  },
  {
    name: "delete-task-clears-blocked-values",
    rule: "TASK-04",
    description:
      "a delete task that removes lookups also clears the tenant's blocked values of every lookup type",
    caughtBy: ["explore/after-delete"],
  },
  {
    name: "status-degraded-when-tenant-empty",
    rule: "SERVICE-02",
    description: "GET /status answers DOWN once a delete task has left a tenant without lookups",
    // The schema check of GET /status validates that answer in the run's traffic too.
    caughtBy: ["delete-task/all-of-tenant", "schema/getStatus"],
  },
  {
    name: "task-status-created-time-as-string",
    rule: "TASK-07",
    description:
      "GET /tasks/{tenantId}/{taskId} answers createdTime as an ISO-8601 string instead of epoch milliseconds",
    caughtBy: ["schema/getTask"],
    alsoRuns: ["delete-task"],
  },
  // ---------------------------------------------------------------- errors
  {
    name: "malformed-json-500",
    rule: "ERRORS-03",
    description: "a request body that is not valid JSON makes the server fail with 500 instead of a 400",
    // A 500 is outside the contract of the operation that answered it too.
    caughtBy: ["errors/malformed-json-4xx", "errors/no-5xx", "schema/scanLookups"],
  },
  {
    name: "oversized-body-500",
    rule: "ERRORS-03",
    description: "a request body over 1 MiB makes the server fail with 500 instead of a 413",
    caughtBy: ["errors/oversized-body-4xx", "errors/no-5xx", "schema/createTask"],
  },
  // ---------------------------------------------------------------- sequences (the explorer)
  {
    name: "filter-equals-matches-missing-field",
    rule: "SCAN-07",
    description:
      "a record that lacks the field of an equals filter (candidateLookupCode, mappedBy, dcrId, ...) matches every equals(field,'v')",
    caughtBy: ["explore/reads"],
  },
  {
    name: "scan-opening-closes-other-scrolls",
    rule: "SCAN-03",
    description:
      "one open scroll is kept: opening a scan closes every other, whose scroll ids then answer unknown",
    caughtBy: ["explore/reads", "explore/after-delete"],
  },
  {
    name: "scan-opening-closes-indexed-scrolls",
    rule: "SCAN-03",
    description:
      "opening a scan closes the other open scrolls that hold an index of their own (filtered ones), whose scroll ids then answer unknown",
    caughtBy: ["explore/reads", "explore/after-delete"],
  },
  {
    name: "type-scroll-id-continues-on-other-type",
    rule: "AUTOPILOT-02",
    description:
      "a per-type autopilot scan's scroll id is bound to its tenant only: on another lookup type's path it answers the first type's statistics",
    caughtBy: ["explore/reads"],
  },
  {
    name: "scroll-id-continues-on-any-path",
    rule: "AUTOPILOT-02",
    description:
      "a scroll id is continued on any scan's path: another lookup type's path answers the scroll's own type, another tenant's path the first tenant's records",
    caughtBy: ["explore/reads"],
  },
  {
    name: "scan-continuation-without-token-served",
    rule: "AUTH-01",
    description:
      "a scan request with a JSON body (a continuation page, or a first page with a null body) is served without an Authorization header",
    caughtBy: ["explore/reads"],
  },
  {
    name: "autopilot-sorted-default-limit-50",
    rule: "AUTOPILOT-03",
    description:
      "without a limit, a sorted autopilot scan pages 50 records at a time (the default 100 holds unsorted only)",
    caughtBy: ["explore/reads"],
  },
  {
    name: "autopilot-filtered-default-limit-25",
    rule: "AUTOPILOT-03",
    description:
      "without a limit, a filtered autopilot scan pages 25 records at a time (the default 100 holds unfiltered only)",
    caughtBy: ["explore/reads"],
  },
  {
    name: "first-page-null-body-drops-query",
    rule: "SCAN-01",
    description:
      "a first scan request with a null body opens the scan with the default query: filter, sort, order and limit are ignored",
    caughtBy: ["explore/reads", "lookup-scan/first-page-null-body", "autopilot-scan/first-page-null-body"],
  },
  {
    name: "blocked-values-offset-without-limit-unbounded",
    rule: "BLOCKED-03",
    description:
      "blocked values with an offset and no limit list every value from the offset (the default limit of 100 holds without an offset only)",
    caughtBy: ["explore/reads"],
  },
  {
    name: "empty-parameters-delete-nothing",
    rule: "TASK-02",
    description:
      "a delete task whose parameters are an empty object (no type, no uris) removes nothing; only a body without parameters removes every lookup of the tenant",
    caughtBy: ["delete-task/all-of-tenant"],
  },
] as const satisfies readonly FaultEntry[];

export type FaultName = (typeof FAULTS)[number]["name"];

const byName = new Map<string, FaultEntry>(FAULTS.map((f) => [f.name, f]));

export function isFaultName(name: string): name is FaultName {
  return byName.has(name);
}

/** The definition of one fault, its `caughtBy` list included. */
export function faultEntry(name: FaultName): FaultEntry {
  // Every FaultName is a key of the map: it is built from the same array the type is.
  return byName.get(name) as FaultEntry;
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
