// Which checks catch which seeded fault of the reference (src/reference/faults.ts): a run against the
// reference with exactly that fault switched on fails exactly these checks (MUST and SHOULD alike).
// Typed over every FaultName, so a new fault without an entry does not compile.
import type { FaultName } from "../../src/reference/faults.ts";

const quotaRefusalChecks = [
  "token-quota/distinct-tokens-up-to-max",
  "token-quota/refusal-429",
  "token-quota/expired-token-frees-slot",
  "token-quota/raised-quota-applies",
  "token-quota/parallel-requests-never-exceed",
  "token-quota/model",
  "token-quota/quota-per-client",
] as const;

export const faultExpectations: Record<FaultName, readonly string[]> = {
  "scan-repeats-record-at-page-boundary": [
    "lookup-scan/every-record-once",
    "autopilot-scan/every-record-once",
    "autopilot-scan/type-scan-pages",
  ],
  // A filtered scroll loses records at its page boundaries too: the filter checks see it.
  "scan-loses-record-at-page-boundary": [
    "lookup-scan/every-record-once",
    "lookup-scan/filter-equals-exact",
    "lookup-scan/filter-type-name",
    "lookup-scan/filter-grammar",
    "autopilot-scan/every-record-once",
    "autopilot-scan/filter-equals-exact",
  ],
  "scan-ignores-order": [
    "lookup-scan/order-respected",
    "lookup-scan/sort-fields-accepted",
    "autopilot-scan/order-respected",
    "autopilot-scan/sort-fields-accepted",
  ],
  "scan-ignores-sort": [
    "lookup-scan/order-respected",
    "lookup-scan/sort-fields-accepted",
    "autopilot-scan/order-respected",
    "autopilot-scan/sort-fields-accepted",
  ],
  "scan-exceeds-limit": [
    "lookup-scan/page-within-limit",
    "autopilot-scan/page-within-limit",
    "autopilot-scan/default-limit",
    "autopilot-scan/type-scan-pages",
  ],
  "scan-ignores-filter": [
    "lookup-scan/filter-equals-exact",
    "lookup-scan/filter-type-name",
    "lookup-scan/filter-grammar",
    "autopilot-scan/filter-equals-exact",
  ],
  // Empty pages that keep a scrollId still end a scan at MUST level (deployments do this); the kit's
  // choice, an answer without scrollId, is what they break.
  "scan-never-ends": ["lookup-scan/end-without-scroll-id", "autopilot-scan/end-without-scroll-id"],
  "autopilot-type-scan-returns-other-types": ["autopilot-scan/type-scan-only-that-type"],
  "quota-off-by-one": [...quotaRefusalChecks, "token-quota/default-quota-200"],
  "quota-not-enforced": [...quotaRefusalChecks, "token-quota/default-quota-200"],
  "expired-token-accepted": [
    "auth/expired-token-refused",
    "auth/expired-token-401",
    "token-quota/expired-token-frees-slot",
    "token-quota/model",
    "token-quota/validity-from-client-configuration",
  ],
  // Expired tokens of one quota check still hold slots in the next: every check that fills a quota sees it.
  "expired-token-still-counted": [
    ...quotaRefusalChecks,
    "token-quota/multitoken-config-activates",
    "token-quota/default-quota-200",
    "token-quota/validity-from-client-configuration",
  ],
  "same-token-with-multitoken-on": [
    ...quotaRefusalChecks,
    "token-quota/multitoken-config-activates",
    "token-quota/default-quota-200",
  ],
  "new-token-with-multitoken-off": ["token-quota/single-token-reused"],
  "quota-201-accepted": [
    "token-quota/max-above-200-refused",
    "token-quota/validation-error-names-field",
    "schema/putCustomer",
  ],
  "rdbms-rule-ignored": ["token-quota/rdbms-multitoken-refused"],
  "delete-by-type-removes-other-types": ["delete-task/by-type"],
  "delete-by-uris-removes-more": ["delete-task/by-uris"],
  "delete-touches-other-tenant": ["delete-task/by-uris", "delete-task/by-type", "delete-task/all-of-tenant"],
  "delete-task-never-completes": [
    "delete-task/task-status-completes",
    "delete-task/by-uris",
    "delete-task/by-type",
    "delete-task/all-of-tenant",
  ],
  // An ignored offset is not validated either: offset=-1 is answered.
  "blocked-values-offset-ignored": ["blocked-values/paging-consistent", "blocked-values/out-of-range-400"],
  "blocked-values-limit-ignored": [
    "blocked-values/paging-consistent",
    "blocked-values/limit-respected",
    "blocked-values/out-of-range-400",
  ],
  "missing-auth-accepted": [
    "service/refuses-without-authorization",
    "auth/no-token-refused",
    "auth/missing-token-401",
  ],
  "cross-tenant-read": ["auth/other-tenant-refused", "auth/other-tenant-403"],
  "viewer-allowed-to-delete": ["auth/viewer-cannot-delete"],
  "concurrent-quota-race": ["token-quota/parallel-requests-never-exceed"],
  "version-not-dotted": ["service/version-dotted", "service/version-json-string", "schema/getVersion"],
  "healthcheck-not-ok": ["service/healthcheck-ok", "schema/getHealthcheck"],
  // The document requires the refusal to state the limit: a text/plain answer without it fails at MUST.
  "token-error-not-json": [...quotaRefusalChecks, "schema/issueToken"],
  // Lookups scan limits have no documented bound (SHOULD); the autopilot scans' maximum of 100 is explicit.
  "limit-over-100-accepted-silently": [
    "lookup-scan/limit-out-of-range-400",
    "autopilot-scan/limit-above-100",
    "autopilot-scan/limit-out-of-range-400",
  ],
  "status-not-ok": ["service/status-ok", "schema/getStatus"],
  "malformed-token-accepted": ["auth/malformed-token-refused"],
  "viewer-read-refused": ["auth/viewer-can-read"],
  "editor-delete-refused": ["auth/editor-can-delete"],
  // The quota checks set up their clients through PUT .../clients as the admin: refused, they cannot start.
  "admin-config-refused": [
    "auth/admin-full-access",
    "configuration/clients-answer-without-secrets",
    ...quotaRefusalChecks,
    "token-quota/multitoken-config-activates",
    "token-quota/default-quota-200",
    "token-quota/single-token-reused",
    "token-quota/validity-from-client-configuration",
  ],
  "configuration-open-to-viewer": ["auth/configuration-needs-admin"],
  // The unstored token is refused wherever a token is asked for while the client's token is still valid:
  // by the checks that issue one themselves, and by the runner renewing the admin token shortly before
  // it expires during the deletion checks' polling.
  "reissued-token-not-stored": [
    "auth/token-for-client-credentials",
    "auth/expired-token-refused",
    "token-quota/single-token-reused",
    "delete-task/by-uris",
    "delete-task/by-type",
    "delete-task/all-of-tenant",
  ],
  "token-type-missing": ["auth/token-endpoint-rfc6749", "auth/token-grant-in-query", "schema/issueToken"],
  "grant-in-query-refused": ["auth/token-grant-in-query"],
  "token-errors-not-rfc6749": ["auth/token-errors-rfc6749"],
  // The quota's minimum is a kit preference, not a contract keyword: only the SHOULD check sees it.
  "quota-0-accepted": ["token-quota/max-below-1-refused"],
  // Tokens meant to expire after the session's short validity live an hour: every quota check meets them.
  "token-validity-ignored": [
    ...quotaRefusalChecks,
    "token-quota/multitoken-config-activates",
    "token-quota/default-quota-200",
    "token-quota/validity-from-client-configuration",
  ],
  "multitoken-needs-quota-value": [
    "token-quota/multitoken-config-activates",
    "token-quota/default-quota-200",
  ],
  "first-page-null-body-refused": ["lookup-scan/first-page-null-body", "autopilot-scan/first-page-null-body"],
  // An empty page still ends a scan at MUST level; the records that follow it are what the ends checks see.
  "scan-restarts-after-end": [
    "lookup-scan/scan-ends",
    "lookup-scan/end-without-scroll-id",
    "autopilot-scan/scan-ends",
    "autopilot-scan/end-without-scroll-id",
  ],
  "raw-scroll-id-refused": [
    "lookup-scan/scroll-id-bodies-accepted",
    "autopilot-scan/scroll-id-bodies-accepted",
  ],
  "unknown-scroll-id-restarts": ["lookup-scan/unknown-scroll-id-400", "autopilot-scan/unknown-scroll-id-400"],
  "lookup-record-field-wrong-type": ["lookup-scan/record-fields", "schema/scanLookups"],
  "statistic-field-wrong-type": [
    "autopilot-scan/record-fields",
    "schema/scanAutopilotStats",
    "schema/scanAutopilotStatsByType",
  ],
  "blocked-value-field-wrong-type": ["blocked-values/record-fields", "schema/listBlockedValues"],
  "blocked-values-default-limit-wrong": ["blocked-values/defaults"],
  "customer-post-with-id-refused": ["configuration/customer-put-post-accepted"],
  // A merging PUT is a correct choice where the document is silent: only the SHOULD check of the kit's
  // choice fails; the quota checks switch multi-token support off with multitokenConfig null instead.
  "put-merges": ["configuration/put-replaces-post-merges"],
  "customer-post-answers-201": ["configuration/put-replaces-post-merges", "schema/postCustomer"],
  "clients-answer-with-secrets": ["configuration/clients-answer-without-secrets"],
  // The MUST and SHOULD configuration checks do not look at accessTokenValidity in the answer; the contract does.
  "clients-answer-validity-as-string": ["schema/putClients"],
  "unknown-customer-clients-created": ["configuration/unknown-customer-404"],
  "delete-task-without-type-refused": [
    "delete-task/accepted",
    "delete-task/task-object",
    "delete-task/task-status-completes",
    "delete-task/by-uris",
    "delete-task/all-of-tenant",
    "auth/editor-can-delete",
    "auth/admin-full-access",
  ],
  "task-without-id": ["delete-task/task-object", "delete-task/task-status-completes", "schema/createTask"],
  "invalid-task-type-accepted": ["delete-task/invalid-requests-400"],
  "task-status-created-time-as-string": ["schema/getTask"],
  // A 500 is outside the contract of the operation that answered it too.
  "malformed-json-500": ["errors/malformed-json-4xx", "errors/no-5xx", "schema/scanLookups"],
  "oversized-body-500": ["errors/oversized-body-4xx", "errors/no-5xx", "schema/createTask"],
};

/**
 * Suites a fault's run needs besides those of its expected checks, so that the selection fails exactly as
 * a whole run does: where a schema check's operation is exercised (the schema suite sends no request that
 * would change data), or where the traffic of a whole run already holds what a schema check validates.
 */
export const extraSuites: Partial<Record<FaultName, readonly string[]>> = {
  "clients-answer-validity-as-string": ["configuration"],
  "task-status-created-time-as-string": ["delete-task"],
  // The quota checks exercise the switch-off path of a merging PUT.
  "put-merges": ["token-quota"],
};

/** Suites that run with every fault besides those of its expected checks: cheap, and they must all pass. */
export const sanitySuites = ["service", "schema"] as const;
