// Every check against the Prism mock (static examples): the run completes, nothing is "broken", and which
// checks pass, fail and skip is this table (docs/prism-run.md explains it). Prism is stateless: it checks
// requests against the contract and answers each operation's example, so checks of behaviour across
// requests (paging, isolation, roles, quotas, deletion) fail, and a change to that is visible here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, pageOf, type ScanPage } from "../../src/client/index.ts";
import { freePort } from "../../src/http/index.ts";
import { type MockServer, startMock } from "../../src/mock/index.ts";
import type { RunResult } from "../../src/result/model.ts";
import { allChecks } from "../../suites/index.ts";
import { runAgainstPrism } from "./prism-target.ts";

type Status = "passed" | "failed" | "inconclusive" | "skipped";

/** Which checks pass, fail and skip against Prism's static examples, and why (docs/prism-run.md). */
const expected: Record<Status, string[]> = {
  passed: [
    // Single answers the examples and Prism's request validation get right.
    "auth/admin-full-access",
    "auth/editor-can-delete",
    "auth/missing-token-401",
    "auth/no-token-refused",
    "auth/token-endpoint-rfc6749",
    "auth/token-for-client-credentials",
    "auth/token-grant-in-query",
    "auth/viewer-can-read",
    "autopilot-scan/first-page-null-body",
    "autopilot-scan/limit-above-100",
    "autopilot-scan/scroll-id-bodies-accepted",
    "autopilot-scan/sort-fields-accepted",
    "blocked-values/defaults",
    "blocked-values/record-fields",
    // The example's blocked values are of the example's tenant and type.
    "blocked-values/of-the-path",
    "configuration/customer-put-post-accepted",
    "delete-task/accepted",
    "delete-task/task-object",
    "delete-task/task-status-completes",
    "errors/malformed-json-4xx",
    "errors/no-5xx",
    "lookup-scan/first-page-null-body",
    "lookup-scan/scroll-id-bodies-accepted",
    "lookup-scan/sort-fields-accepted",
    "schema/getHealthcheck",
    "schema/getStatus",
    "schema/getTask",
    "schema/getVersion",
    "schema/issueToken",
    "schema/listBlockedValues",
    "schema/postCustomer",
    "schema/putClients",
    "schema/putCustomer",
    "schema/scanAutopilotStatsByType",
    "service/healthcheck-ok",
    "service/refuses-without-authorization",
    "service/status-ok",
    "service/version-dotted",
    "service/version-json-string",
    "token-quota/max-above-200-refused",
    "token-quota/single-token-reused",
    // lckit mock's refusal layer answers what breaks the schema with 400 naming field, rule and value.
    "autopilot-scan/limit-out-of-range-400",
    "blocked-values/out-of-range-400",
    "token-quota/validation-error-names-field",
    // ... and Prism's own 400 for a body that is not JSON with the contract's error body.
    "schema/createTask",
    "schema/scanAutopilotStats",
    "schema/scanLookups",
  ],
  failed: [
    // Every token is the example's: no roles, no tenant lists, any secret accepted.
    "auth/configuration-needs-admin",
    "auth/other-tenant-403",
    "auth/other-tenant-refused",
    "auth/token-errors-rfc6749",
    "auth/viewer-cannot-delete",
    // Prism takes any non-empty bearer token, even one no issuer could have made ("0", "+").
    "auth/malformed-token-refused",
    // The example page of blocked values holds 2 whatever offset and limit ask for.
    "blocked-values/limit-respected",
    "blocked-values/paging-consistent",
    // Every scan page carries the same scrollId and page: paging never ends.
    "autopilot-scan/default-limit",
    "autopilot-scan/end-without-scroll-id",
    "autopilot-scan/every-record-once",
    "autopilot-scan/filter-equals-exact",
    "autopilot-scan/order-respected",
    "autopilot-scan/page-within-limit",
    "autopilot-scan/record-fields",
    "autopilot-scan/scan-ends",
    "autopilot-scan/type-scan-only-that-type",
    "autopilot-scan/type-scan-pages",
    "autopilot-scan/unknown-scroll-id-400",
    "lookup-scan/end-without-scroll-id",
    "lookup-scan/every-record-once",
    "lookup-scan/filter-equals-exact",
    "lookup-scan/filter-type-name",
    "lookup-scan/filter-grammar",
    "lookup-scan/order-respected",
    "lookup-scan/page-within-limit",
    "lookup-scan/record-fields",
    "lookup-scan/scan-ends",
    "lookup-scan/unknown-scroll-id-400",
    "delete-task/all-of-tenant",
    "delete-task/by-type",
    "delete-task/by-uris",
    // Reads the tenant whole before its task (its share of the lookups): the same page forever.
    "delete-task/foreign-uris-delete-nothing",
    // Prism takes everything the schema allows, including what the document forbids in prose and the
    // lookup scan's bounds, a kit preference outside the consumer contract.
    "lookup-scan/limit-out-of-range-400",
    "delete-task/invalid-requests-400",
    "token-quota/rdbms-multitoken-refused",
    // The kit's preferences where the document is silent (a quota of at least 1, at most 1000 URIs in a
    // task) are no schema keywords, so Prism takes a quota of 0 and an oversized task.
    "token-quota/max-below-1-refused",
    "errors/oversized-body-4xx",
    // Nothing is stored: the customer and clients answers are the examples, not what was sent.
    "configuration/clients-answer-without-secrets",
    "configuration/put-replaces-post-merges",
    "configuration/unknown-customer-404",
    // One token, the example's, for every request: no multi-token quota, no expiry.
    "token-quota/default-quota-200",
    "token-quota/distinct-tokens-up-to-max",
    "token-quota/expired-token-frees-slot",
    "token-quota/model",
    "token-quota/multitoken-config-activates",
    "token-quota/parallel-requests-never-exceed",
    "token-quota/quota-per-client",
    "token-quota/raised-quota-applies",
    "token-quota/refusal-429",
    "token-quota/validity-from-client-configuration",
    "explore/tokens",
  ],
  inconclusive: [
    // The example token is valid for 3600 s whatever accessTokenValidity the kit sets, and the kit cannot
    // drive Prism's clock: a token from before the check, or a validity not applied, it cannot tell which.
    "auth/expired-token-401",
    "auth/expired-token-refused",
    // The example page holds fewer than three lookups: no victim and two markers to delete by.
    // The example scan answers the same page under the same scrollId forever: the explorer's model of the
    // tenant (every record, read whole) cannot be built.
    "explore/after-delete",
    "explore/reads",
  ],
  skipped: [],
};

function byStatus(result: RunResult): Record<string, string[]> {
  const statuses = [...new Set(result.checks.map((check) => check.status))];
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      result.checks
        .filter((check) => check.status === status)
        .map((check) => check.id)
        .sort(),
    ]),
  );
}

describe("every check against the Prism mock (static examples)", () => {
  let mock: MockServer | undefined;
  let result: RunResult;

  beforeAll(async () => {
    mock = await startMock({ platformPort: await freePort(), lookupDataPort: await freePort() });
    result = await runAgainstPrism(mock);
  });

  afterAll(async () => {
    // Stops both Prism processes by their PIDs.
    await mock?.stop();
  });

  it("completes without a broken check", () => {
    const broken = result.checks.filter((check) => check.status === "broken");
    expect(broken.map((check) => `${check.id}: ${check.message}`)).toEqual([]);
    expect(result.verdict).not.toBe("BROKEN");
    expect(result.verdict).toBe("NOT CONFORMANT");
  });

  it("runs every check once", () => {
    expect(result.checks.map((check) => check.id).sort()).toEqual(allChecks.map((check) => check.id).sort());
  });

  it("passes, fails and skips the checks of the documented table", () => {
    const want = Object.fromEntries(
      Object.entries(expected)
        .filter(([, ids]) => ids.length > 0)
        .map(([status, ids]) => [status, [...ids].sort()]),
    );
    expect(byStatus(result)).toEqual(want);
  });

  it("says why for every failure and skip", () => {
    const silent = result.checks.filter(
      (check) =>
        (check.status === "failed" && !check.message?.trim()) ||
        ((check.status === "skipped" || check.status === "inconclusive") && !check.reason?.trim()),
    );
    expect(silent.map((check) => check.id)).toEqual([]);
  });

  it.each([
    ["a scan that never ends", "lookup-scan/scan-ends", /same scrollId/],
    ["an isolation check", "auth/other-tenant-refused", /expected a refusal/],
    // Prism's example token announces expires_in 3600 whatever accessTokenValidity the kit set.
    ["a token-quota check", "token-quota/distinct-tokens-up-to-max", /announced expires_in 3600/],
  ])("fails %s for Prism's statelessness (%s)", (_what, id, why) => {
    expect(result.checks.find((check) => check.id === id)?.message).toMatch(why);
  });
});

// Hardening found beside the Prism run: a scan page with a null record made checks that read record fields
// throw ("broken"); such a page is malformed, so the checks report the answer instead.
describe("pageOf: what counts as a scan page", () => {
  const answer = (body: unknown, status = 200) =>
    ({ ok: status < 300, status, body }) as ApiResponse<ScanPage<unknown>>;
  it.each([
    ["records and a scrollId", { values: [{ code: "AT" }], scrollId: "s" }, true],
    ["an empty page", { values: [] }, true],
    ["a null record", { values: [{ code: "AT" }, null], scrollId: "s" }, false],
    ["values that are not an array", { values: "AT" }, false],
    ["a bare array", [{ code: "AT" }], false],
  ])("%s: %s", (_name, body, isPage) => {
    expect(pageOf(answer(body)) !== undefined).toBe(isPage);
  });
});
