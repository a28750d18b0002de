// Variants: correct implementations that choose differently wherever the interface document is silent.
// Each switch makes the reference take one such choice, so the kit can be shown to accept it (tolerance),
// just as each seeded fault (faults.ts) shows that the kit catches one deviation (power).

export interface VariantEntry {
  /** kebab-case, named after the choice it takes */
  name: string;
  /** Variants of one group are alternatives to each other and to the reference's default: at most one is on. */
  group: string;
  /** The point the interface document leaves open, in our words. */
  silentPoint: string;
  /** What the reference does with the variant on. */
  description: string;
}

function variant<const N extends string>(name: N, group: string, silentPoint: string, description: string) {
  return { name, group, silentPoint, description } as const;
}

const SCROLL_ENCODING = "encoding of the scroll identifier in the next-page request body: not shown";
const END_SIGNAL = "the end-of-results signal of a scan: not shown";
const ERROR_SHAPE = "status codes, error codes and the error body shape: not shown";
const TASK_ANSWER = "response body of POST /tasks/{tenantId}: not shown";

export const VARIANTS = [
  // ---------------------------------------------------------------- scans
  variant(
    "scroll-id-raw-text-only",
    "scroll-id-encoding",
    SCROLL_ENCODING,
    "a next-page body is read as the raw scroll id whatever its type; JSON wrappers count as unknown ids (400)",
  ),
  variant(
    "scroll-id-object-only",
    "scroll-id-encoding",
    SCROLL_ENCODING,
    'only {"scrollId": "<id>"} opens the next page; a raw id or a JSON string is refused with 400',
  ),
  variant(
    "scroll-id-json-string-only",
    "scroll-id-encoding",
    SCROLL_ENCODING,
    'only a JSON string ("<id>") opens the next page; a raw id or an object is refused with 400',
  ),
  variant(
    "end-empty-page",
    "end-of-results",
    END_SIGNAL,
    "the page with the last records keeps its scrollId; the request after it answers no values and no scrollId",
  ),
  variant(
    "end-empty-page-with-scroll-id",
    "end-of-results",
    END_SIGNAL,
    "the page with the last records keeps its scrollId; then an empty page still carrying it; then no values and no scrollId",
  ),
  variant("end-scroll-id-null", "end-of-results", END_SIGNAL, 'the last page carries "scrollId": null'),
  variant(
    "scroll-id-per-page",
    "scroll-id-lifetime",
    "whether a scroll keeps one id or gets a new one with every page: not shown",
    "every answer that continues a scroll carries a new scrollId; the id of an earlier page is then unknown (400)",
  ),
  variant(
    "unknown-scroll-id-404",
    "unknown-scroll-id",
    ERROR_SHAPE,
    "an unknown, finished or expired scroll id is answered 404",
  ),
  variant(
    "unknown-scroll-id-410",
    "unknown-scroll-id",
    ERROR_SHAPE,
    "an unknown, finished or expired scroll id is answered 410 Gone",
  ),
  variant(
    "limit-above-max-clamped",
    "limit-above-max",
    "what a page size above the maximum of 100 gets (refusal or clamping): not shown",
    "scan and blocked-values limits above 100 are served as 100 instead of refused",
  ),
  variant(
    "lookup-scan-limit-unbounded",
    "lookup-scan-limit",
    "the bounds of limit on the lookups scan: not shown",
    "the lookups scan honours any positive limit (limit=150 answers 150 records); the autopilot bound stays",
  ),
  variant(
    "short-pages",
    "lookup-scan-limit",
    "the bounds of limit on the lookups scan: not shown",
    "the lookups scan serves at most 25 records a page whatever limit asks (limit is validated as by default); a page shorter than limit that carries a scrollId is not the end",
  ),
  variant(
    "equals-case-sensitive",
    "equals-case",
    "whether equals compares strings with regard to case: not shown",
    "equals, startsWith and contains compare strings case-sensitively (the reference's default ignores case)",
  ),
  variant(
    "equals-exact-stored-value",
    "equals-type-form",
    "what equals(type, ...) means when the stored type is a URI: not shown",
    "equals compares the stored value exactly: equals(type,'rdm/lookupTypes/Country') matches, the bare name does not",
  ),
  variant(
    "filter-equals-only",
    "filter-grammar",
    "grammar of filter expressions beyond equals(field,value): not shown",
    "equals is the only filter operator (and/or/not and the other operators are refused with 400)",
  ),
  variant(
    "sort-fields-limited",
    "sort-fields",
    "the permitted sort field names: not shown",
    "only a few fields sort (lookups: code, updateDate; statistics: createdAt, updateDate, semanticScore); others are refused with 400",
  ),
  variant(
    "sort-ties-reversed",
    "sort-ties",
    "the order among records sharing the sort value: not shown",
    "records sharing the sort value come in reverse identity order under asc (and in identity order under desc)",
  ),
  variant(
    "sort-case-insensitive",
    "sort-case",
    "whether sort compares strings with regard to case: not shown",
    "strings sort regardless of case (a and B before c); records equal but for case keep identity order",
  ),
  // ---------------------------------------------------------------- errors
  variant(
    "quota-refusal-400",
    "quota-refusal-status",
    ERROR_SHAPE,
    "a token request over the quota is answered 400 (the body still states the limit is exceeded)",
  ),
  variant(
    "quota-refusal-403",
    "quota-refusal-status",
    ERROR_SHAPE,
    "a token request over the quota is answered 403",
  ),
  variant(
    "quota-refusal-409",
    "quota-refusal-status",
    ERROR_SHAPE,
    "a token request over the quota is answered 409",
  ),
  variant(
    "missing-token-403",
    "missing-token-status",
    ERROR_SHAPE,
    "a request without an Authorization header is answered 403 instead of 401",
  ),
  variant(
    "tenant-refused-404",
    "tenant-refused-status",
    ERROR_SHAPE,
    "a tenant that is not on the caller's list is answered 404, as if it did not exist, instead of 403",
  ),
  variant(
    "expired-token-403",
    "expired-token-status",
    ERROR_SHAPE,
    "use of an expired token is answered 403",
  ),
  variant(
    "validation-error-422",
    "validation-error-status",
    ERROR_SHAPE,
    "validation errors (fields of bodies, query parameters) are answered 422 instead of 400",
  ),
  variant(
    "error-body-problem-json",
    "error-body-style",
    ERROR_SHAPE,
    "errors are application/problem+json {type, title, status, detail} instead of {error, error_description}",
  ),
  variant(
    "error-body-plain-text",
    "error-body-style",
    ERROR_SHAPE,
    "errors are text/plain sentences instead of JSON",
  ),
  // ---------------------------------------------------------------- delete task
  variant(
    "delete-task-200",
    "delete-task-answer",
    TASK_ANSWER,
    "a delete task is answered 200 with the task",
  ),
  variant(
    "delete-task-201",
    "delete-task-answer",
    TASK_ANSWER,
    "a delete task is answered 201 with the task",
  ),
  variant(
    "delete-task-204",
    "delete-task-answer",
    TASK_ANSWER,
    "a delete task is answered 204 without a body",
  ),
  variant(
    "delete-task-delayed",
    "delete-task-delay",
    "when the asynchronous deletion happens: not shown",
    "a delete task runs 2 s (the reference's clock) after it was accepted",
  ),
  variant(
    "delete-task-foreign-uris-skipped",
    "delete-task-foreign-uris",
    "what a delete task does with a URI of another tenant: not shown",
    "a delete task skips the URIs of another tenant (deleting nothing for them) and runs the rest, instead of refusing the task with 400",
  ),
  variant(
    "delete-task-one-parameter",
    "delete-task-parameter-pair",
    "what a delete task with both parameters.type and parameters.uris does: not shown (the document defines each alone)",
    "a delete task naming both parameters.type and parameters.uris is refused with 400 (give one or the other)",
  ),
  variant(
    "no-task-status-endpoint",
    "task-status",
    "how the state of a task can be read: not shown (GET /tasks/{tenantId}/{taskId} is a kit extension)",
    "GET /tasks/{tenantId}/{taskId} does not exist (404)",
  ),
  // ---------------------------------------------------------------- token endpoint
  variant(
    "grant-type-in-query-refused",
    "grant-type-in-query",
    "the token-issuing endpoint and its request shape: not shown",
    "grant_type is read from the form body only",
  ),
  variant(
    "client-auth-basic-only",
    "client-auth",
    "the token-issuing endpoint and its request shape: not shown",
    "clients authenticate with HTTP Basic only; client_id/client_secret form fields are refused (401)",
  ),
  variant(
    "client-auth-one-method",
    "client-auth-twice",
    "the token-issuing endpoint and its request shape: not shown",
    "a token request authenticated both by HTTP Basic and by client_id/client_secret in the body is refused with 400 invalid_request (RFC 6749 2.3: one method per request), instead of accepted when both agree",
  ),
  variant(
    "token-answer-minimal",
    "token-answer",
    "the token-issuing endpoint and its answer: not shown",
    'the token answer is {access_token, token_type: "Bearer", expires_in}: capitalised type, no scope',
  ),
  variant(
    "token-rate-limit",
    "token-rate-limit",
    "rate limits: not shown",
    "a client's 11th token request within one second (reference clock) is answered 429 with Retry-After: 1 and a body naming the rate limit",
  ),
  variant(
    "default-quota-50",
    "default-quota",
    "default of maxActiveTokensAllowed when unset: not shown",
    "multitokenConfig without maxActiveTokensAllowed caps active tokens at 50",
  ),
  // ---------------------------------------------------------------- configuration
  variant(
    "put-customer-merges",
    "customer-put",
    "the difference between PUT and POST of a customer: not shown",
    "PUT of a customer merges like POST: fields absent from the body keep their stored value",
  ),
  variant(
    "customer-answer-no-body",
    "customer-answer",
    "response body of PUT/POST /oauth/customers/{customerId}: not shown",
    "PUT and POST of a customer answer 204 without a body",
  ),
  variant(
    "clients-answer-no-body",
    "clients-answer",
    "response body of PUT /oauth/customers/{customerId}/clients: not shown",
    "PUT .../clients answers 204 without a body",
  ),
  variant(
    "clients-empty-list-refused",
    "clients-empty-list",
    "whether PUT /oauth/customers/{customerId}/clients accepts an empty array of Client objects: not shown",
    "PUT .../clients with an empty array answers 400 validation_error (at least one Client object)",
  ),
  variant(
    "admin-administers-other-tenant",
    "tenant-lists",
    "which tenants a deployment's clients administer: the target's own configuration",
    "the first tenant's admin client also holds ROLE_ADMIN_TENANT of the second tenant (acme-admin administers globex)",
  ),
  // ---------------------------------------------------------------- service
  variant(
    "version-as-number",
    "version-form",
    "the JSON type of the rdm-service version: unquoted in the sample, which is not valid JSON for several dots",
    '/version answers the version as a JSON number with one dot ({"rdm-service": 2026.1})',
  ),
  variant(
    "service-answers-extra-fields",
    "service-fields",
    "fields of the health, status and version answers beyond the documented key: not shown",
    "/healthcheck, /status and /version answer extra fields beside the documented one",
  ),
  // ---------------------------------------------------------------- records
  variant(
    "lean-records",
    "record-optional-fields",
    "which fields of a record a deployment fills: the document's field tables mark none as required",
    "scans and listings answer only the fields the contract requires: a lookup is {type, code}; a statistic lacks candidateLookupCode, candidateValue, mappedAt, mappedBy and dcrId; blocked values (every field required) are whole",
  ),
  variant(
    "type-scan-without-dcrid",
    "type-scan-dcrid",
    "dcrId in the lookup-type scan: the document shows it only in the all-lookup-types scan",
    "the lookup-type scan of statistics serves and filters its records without dcrId (the all-types scan keeps it)",
  ),
  variant(
    "rich-records",
    "record-extra-fields",
    "fields of a record beyond the document's field tables: not shown (the document restricts event objects to listed fields, never the records of the scans and listings)",
    "lookups also carry uri, createdBy, createdDate and labels; statistics id, lookupTypeUri and reviewed; blocked values id and reason",
  ),
  variant(
    "statistics-sharing-a-value",
    "statistic-key",
    'whether one unmapped value of a lookup type and source has one statistic or several: not shown (a statistic "relates unmapped source values to candidate lookup codes"; the document names no key)',
    "every fifth statistic has a second record for the same lookupType, source and unmappedValue, created a second later, with another candidate and score",
  ),
] as const satisfies readonly VariantEntry[];

export type VariantName = (typeof VARIANTS)[number]["name"];

const byName = new Map<string, VariantEntry>(VARIANTS.map((v) => [v.name, v]));

export function isVariantName(name: string): name is VariantName {
  return byName.has(name);
}

/** The switched-on variants; throws on an unknown name or two alternatives of one group. */
export function variantSet(names: readonly string[] = []): ReadonlySet<VariantName> {
  const groups = new Map<string, string>();
  for (const name of names) {
    const entry = byName.get(name);
    if (!entry) {
      throw new Error(
        `unknown variant "${name}"; expected one of: ${VARIANTS.map((v) => v.name).join(", ")}`,
      );
    }
    const other = groups.get(entry.group);
    if (other !== undefined && other !== name) {
      throw new Error(
        `variants "${other}" and "${name}" are alternatives of one choice (${entry.group}); switch on at most one`,
      );
    }
    groups.set(entry.group, name);
  }
  return new Set(names as VariantName[]);
}

/** The groups of alternatives, for drawing random combinations: one variant (or none) per group. */
export function variantGroups(): Map<string, VariantName[]> {
  const groups = new Map<string, VariantName[]>();
  for (const v of VARIANTS) groups.set(v.group, [...(groups.get(v.group) ?? []), v.name]);
  return groups;
}
