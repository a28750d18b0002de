// The contract loader: operations as data, path matching, and response/request checks that catch departures.
import { describe, expect, it } from "vitest";
import { staleFiles } from "../../scripts/generate.ts";
import { type Host, loadContract } from "../../src/contract/index.ts";
import { loadCatalogue } from "../../src/requirements/catalogue.ts";

const contract = loadContract();
const admin = "ROLE_ADMIN_TENANT_{tenantId}";

describe("loadContract", () => {
  it("loads once per process", () => {
    expect(loadContract()).toBe(contract);
  });

  it.each([
    ["issueToken", { host: "platform", method: "POST", path: "/oauth/token", roles: [], bearer: false }],
    [
      "putCustomer",
      {
        host: "platform",
        method: "PUT",
        path: "/oauth/customers/{customerId}",
        roles: [admin],
        bearer: true,
      },
    ],
    [
      "postCustomer",
      {
        host: "platform",
        method: "POST",
        path: "/oauth/customers/{customerId}",
        roles: [admin],
        bearer: true,
      },
    ],
    [
      "putClients",
      {
        host: "platform",
        method: "PUT",
        path: "/oauth/customers/{customerId}/clients",
        roles: [admin],
        bearer: true,
      },
    ],
    [
      "scanAutopilotStats",
      {
        host: "platform",
        method: "POST",
        path: "/configuration/{tenantId}/autopilot/stats/_scan",
        roles: [admin, "ROLE_RDM_EDIT", "ROLE_RDM"],
        bearer: true,
      },
    ],
    [
      "scanAutopilotStatsByType",
      {
        host: "platform",
        method: "POST",
        path: "/configuration/{tenantId}/autopilot/stats/{lookupType}/_scan",
        roles: [admin, "ROLE_RDM_EDIT", "ROLE_RDM"],
        bearer: true,
      },
    ],
    [
      "listBlockedValues",
      {
        host: "platform",
        method: "GET",
        path: "/configuration/{tenantId}/autopilot/{lookupType}/blockedValues",
        roles: [admin, "ROLE_RDM_EDIT", "ROLE_RDM"],
        bearer: true,
      },
    ],
    [
      "getHealthcheck",
      {
        host: "lookup-data",
        method: "GET",
        path: "/healthcheck",
        roles: [admin, "ROLE_RDM_EDIT", "ROLE_RDM"],
        bearer: true,
      },
    ],
    [
      "getStatus",
      {
        host: "lookup-data",
        method: "GET",
        path: "/status",
        roles: [admin, "ROLE_RDM_EDIT", "ROLE_RDM"],
        bearer: true,
      },
    ],
    [
      "getVersion",
      {
        host: "lookup-data",
        method: "GET",
        path: "/version",
        roles: [admin, "ROLE_RDM_EDIT", "ROLE_RDM"],
        bearer: true,
      },
    ],
    [
      "createTask",
      {
        host: "lookup-data",
        method: "POST",
        path: "/tasks/{tenantId}",
        roles: [admin, "ROLE_RDM_EDIT"],
        bearer: true,
      },
    ],
    [
      "getTask",
      {
        host: "lookup-data",
        method: "GET",
        path: "/tasks/{tenantId}/{taskId}",
        roles: [admin, "ROLE_RDM_EDIT"],
        bearer: true,
      },
    ],
    [
      "scanLookups",
      {
        host: "lookup-data",
        method: "POST",
        path: "/lookups/{tenantId}/_scan",
        roles: [admin, "ROLE_RDM_EDIT", "ROLE_RDM"],
        bearer: true,
      },
    ],
  ])("has %s with its route, roles (docs/assumptions.md) and security", (operationId, want) => {
    const operation = contract.operation(operationId);
    expect({
      host: operation.host,
      method: operation.method,
      path: operation.path,
      roles: operation.roles,
      bearer: operation.requiresBearer,
    }).toEqual(want);
    expect(operation.requirements.length).toBeGreaterThan(0);
  });

  it("has exactly the 13 operations of the contract; only getTask is a kit extension", () => {
    expect(contract.operations).toHaveLength(13);
    expect(contract.operations.filter((operation) => operation.extension).map((o) => o.operationId)).toEqual([
      "getTask",
    ]);
  });

  it("references only requirement ids of the catalogue", () => {
    const ids = new Set(loadCatalogue().requirements.map((requirement) => requirement.id));
    const used = contract.operations.flatMap((operation) => [
      ...operation.requirements,
      ...operation.assumptions,
    ]);
    expect(used.filter((id) => !ids.has(id))).toEqual([]);
  });

  it("names the known operationIds when asked for an unknown one", () => {
    expect(() => contract.operation("deleteEverything")).toThrow(
      /unknown operationId "deleteEverything".*scanLookups/,
    );
  });
});

describe("findOperation", () => {
  it.each([
    ["platform", "post", "/oauth/token?grant_type=client_credentials", "issueToken", {}],
    ["platform", "PUT", "/oauth/customers/cust-acme", "putCustomer", { customerId: "cust-acme" }],
    ["platform", "PUT", "/oauth/customers/cust-acme/clients", "putClients", { customerId: "cust-acme" }],
    [
      "platform",
      "POST",
      "/configuration/acme/autopilot/stats/_scan?limit=5",
      "scanAutopilotStats",
      { tenantId: "acme" },
    ],
    [
      "platform",
      "POST",
      "/configuration/acme/autopilot/stats/Country/_scan",
      "scanAutopilotStatsByType",
      { tenantId: "acme", lookupType: "Country" },
    ],
    [
      "platform",
      "GET",
      "/configuration/acme/autopilot/Country/blockedValues",
      "listBlockedValues",
      { tenantId: "acme", lookupType: "Country" },
    ],
    ["lookup-data", "GET", "/healthcheck", "getHealthcheck", {}],
    ["lookup-data", "GET", "http://127.0.0.1:4011/version", "getVersion", {}],
    ["lookup-data", "GET", "/tasks/acme/task%201", "getTask", { tenantId: "acme", taskId: "task 1" }],
    ["lookup-data", "POST", "/reltio/api/lookups/acme/_scan", "scanLookups", { tenantId: "acme" }],
  ] as [Host, string, string, string, Record<string, string>][])(
    "%s %s %s is %s",
    (host, method, path, operationId, pathParams) => {
      const found = contract.findOperation(host, method, path);
      expect(found?.operation.operationId).toBe(operationId);
      expect(found?.pathParams).toEqual(pathParams);
    },
  );

  it.each([
    ["lookup-data", "GET", "/lookups/acme/_scan"],
    ["platform", "GET", "/healthcheck"],
    ["lookup-data", "POST", "/tasks"],
  ] as [Host, string, string][])("%s %s %s is no operation", (host, method, path) => {
    expect(contract.findOperation(host, method, path)).toBeUndefined();
  });
});

const page = {
  scrollId: "s1",
  values: [
    { tenantId: "acme", type: "rdm/lookupTypes/Country", code: "AT", enabled: true, extra: "tolerated" },
  ],
};
const statistic = {
  tenantId: "acme",
  lookupType: "Country",
  source: "SAP",
  unmappedValue: "Austira",
  semanticScore: 0.9,
  centroidMatch: true,
  currentFrequency: 1,
  requiredFrequency: 5,
  frequencyAtMapping: 0,
  frequencyWindowHours: 24,
  status: "SOMETHING_NEW",
  createdAt: 1,
  sourceFrequency: { totalCount: 1, hourlyFrequency: { "1767222000000": 1 } },
  updateDate: 1,
  aiConfidence: 0.5,
  aiReasoning: "r",
  configVersion: 1,
};

function without(record: Record<string, unknown>, field: string): Record<string, unknown> {
  const { [field]: _dropped, ...rest } = record;
  return rest;
}

describe("validateResponse", () => {
  it.each([
    [
      "a lookup page with an extra field",
      { op: "scanLookups", status: 200, type: "application/json", body: page },
    ],
    [
      "the last page (no scrollId) as raw text",
      { op: "scanLookups", status: 200, type: "application/json; charset=utf-8", body: '{"values":[]}' },
    ],
    [
      "a statistic with an unlisted status and no candidate",
      {
        op: "scanAutopilotStatsByType",
        status: 200,
        type: "application/json",
        body: { values: [statistic] },
      },
    ],
    [
      "the version as a dotted string",
      { op: "getVersion", status: 200, type: "application/json", body: '{"rdm-service":"2016.3.0.0.1"}' },
    ],
    [
      "an error body with extra fields",
      {
        op: "scanLookups",
        status: 401,
        type: "application/json",
        body: { error: "invalid_token", error_description: "expired", hint: 1 },
      },
    ],
    [
      "a 202 task",
      {
        op: "createTask",
        status: 202,
        type: "application/json",
        body: { id: "t", type: "delete", tenantId: "acme", status: "NOT_STARTED" },
      },
    ],
  ])("accepts %s", (_name, { op, status, type, body }) => {
    expect(contract.validateResponse(op, status, type, body)).toEqual([]);
  });

  it.each([
    [
      "an undeclared status",
      { op: "getVersion", status: 500, type: "application/json", body: "{}", keyword: "status", path: "" },
    ],
    [
      "the document's unquoted version",
      {
        op: "getVersion",
        status: 200,
        type: "application/json",
        body: '{"rdm-service": 2016.3}',
        keyword: "type",
        path: "/rdm-service",
      },
    ],
    [
      "a body that is not JSON",
      { op: "getStatus", status: 200, type: "application/json", body: "OK", keyword: "json", path: "" },
    ],
    [
      "a missing body",
      { op: "getStatus", status: 200, type: "application/json", body: "", keyword: "body", path: "" },
    ],
    [
      "an undeclared content type",
      {
        op: "getStatus",
        status: 200,
        type: "text/html",
        body: "<p>OK</p>",
        keyword: "contentType",
        path: "",
      },
    ],
    [
      "no content type",
      {
        op: "getStatus",
        status: 200,
        type: undefined,
        body: '{"status":"OK"}',
        keyword: "contentType",
        path: "",
      },
    ],
    [
      "a status other than OK",
      {
        op: "getHealthcheck",
        status: 200,
        type: "application/json",
        body: { status: "DOWN" },
        keyword: "const",
        path: "/status",
      },
    ],
    [
      "a page without values",
      {
        op: "scanLookups",
        status: 200,
        type: "application/json",
        body: { scrollId: "s" },
        keyword: "required",
        path: "",
      },
    ],
    [
      "a lookup type not in URI form",
      {
        op: "scanLookups",
        status: 200,
        type: "application/json",
        body: { values: [{ type: "Country", code: "AT" }] },
        keyword: "pattern",
        path: "/values/0/type",
      },
    ],
    [
      "a statistic missing a required field",
      {
        op: "scanAutopilotStats",
        status: 200,
        type: "application/json",
        body: { values: [without(statistic, "aiConfidence")] },
        keyword: "required",
        path: "/values/0",
      },
    ],
    [
      "hourlyFrequency keyed by a non-number",
      {
        op: "scanAutopilotStats",
        status: 200,
        type: "application/json",
        body: {
          values: [{ ...statistic, sourceFrequency: { totalCount: 1, hourlyFrequency: { noon: 1 } } }],
        },
        keyword: "additionalProperties",
        path: "/values/0/sourceFrequency/hourlyFrequency",
      },
    ],
    [
      "blocked values as an object",
      {
        op: "listBlockedValues",
        status: 200,
        type: "application/json",
        body: { values: [] },
        keyword: "type",
        path: "",
      },
    ],
    [
      "an error body without error",
      {
        op: "putClients",
        status: 404,
        type: "application/json",
        body: { message: "no" },
        keyword: "required",
        path: "",
      },
    ],
    [
      "a token without access_token",
      {
        op: "issueToken",
        status: 200,
        type: "application/json",
        body: { token_type: "bearer" },
        keyword: "required",
        path: "",
      },
    ],
  ])("rejects %s", (_name, { op, status, type, body, keyword, path }) => {
    const violations = contract.validateResponse(op, status, type, body);
    expect(violations.map((v) => [v.keyword, v.instancePath])).toContainEqual([keyword, path]);
    for (const v of violations) expect(v.message.length).toBeGreaterThan(0);
  });
});

describe("validateRequest", () => {
  it.each([
    ["a first scan page without body", { op: "scanLookups", body: undefined, type: undefined }],
    ["a first scan page with null", { op: "scanLookups", body: "null", type: "application/json" }],
    ["a next page as an object", { op: "scanAutopilotStats", body: { scrollId: "s1" }, type: undefined }],
    [
      "a next page as a JSON string",
      { op: "scanAutopilotStatsByType", body: '"s1"', type: "application/json" },
    ],
    ["a next page as raw text", { op: "scanLookups", body: "s1", type: "text/plain" }],
    [
      "a form token request",
      { op: "issueToken", body: "grant_type=client_credentials", type: "application/x-www-form-urlencoded" },
    ],
    [
      "a token request with grant_type in the query (no body)",
      { op: "issueToken", body: undefined, type: undefined },
    ],
    [
      "a delete task by URIs",
      {
        op: "createTask",
        body: { type: "delete", parameters: { uris: ["acme/Country/AT"] } },
        type: undefined,
      },
    ],
    [
      "a customer with a quota of 200",
      {
        op: "putCustomer",
        body: {
          id: "c",
          multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 200 } },
        },
        type: undefined,
      },
    ],
    // Kit preferences where the document is silent (x-kit-preference, SHOULD level) are not part of the
    // consumer contract: a correct implementation may accept these.
    [
      "1001 URIs (the kit's cap of 1000 is a preference)",
      {
        op: "createTask",
        body: {
          type: "delete",
          parameters: { uris: Array.from({ length: 1001 }, (_, i) => `acme/Country/${i}`) },
        },
        type: undefined,
      },
    ],
    [
      "a quota of 0 (the kit's minimum of 1 is a preference)",
      {
        op: "postCustomer",
        body: { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 0 } } },
        type: undefined,
      },
    ],
  ])("accepts %s", (_name, { op, body, type }) => {
    expect(contract.validateRequest(op, body, type)).toEqual([]);
  });

  it.each([
    [
      "a raw scroll id sent as JSON",
      { op: "scanLookups", body: "s1", type: "application/json", keyword: "json" },
    ],
    ["a numeric scrollId", { op: "scanLookups", body: { scrollId: 1 }, type: undefined, keyword: "oneOf" }],
    [
      "a task type other than delete",
      { op: "createTask", body: { type: "purge" }, type: undefined, keyword: "enum" },
    ],
    ["a task without body", { op: "createTask", body: undefined, type: undefined, keyword: "body" }],
    [
      "a quota of 201",
      {
        op: "postCustomer",
        body: { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 201 } } },
        type: undefined,
        keyword: "maximum",
      },
    ],
    ["clients as an object", { op: "putClients", body: { clientId: "x" }, type: undefined, keyword: "type" }],
    ["a body on a GET", { op: "getVersion", body: "{}", type: undefined, keyword: "body" }],
  ])("rejects %s", (_name, { op, body, type, keyword }) => {
    expect(contract.validateRequest(op, body, type).map((v) => v.keyword)).toContain(keyword);
  });
});

describe("generated types", () => {
  it("src/generated/openapi is up to date with the documents (npm run generate)", async () => {
    const stale = await staleFiles();
    expect(stale.filter((path) => path.startsWith("src/generated/openapi/"))).toEqual([]);
  });
});
