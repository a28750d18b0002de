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
    "token-quota/default-quota-200",
    "token-quota/validity-from-client-configuration",
  ],
  "same-token-with-multitoken-on": [...quotaRefusalChecks, "token-quota/default-quota-200"],
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
};

/** Suites that run with every fault besides those of its expected checks: cheap, and they must all pass. */
export const sanitySuites = ["service", "schema"] as const;
