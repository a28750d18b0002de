// `lckit mock --dynamic --seed N` answers data a UI can be built against: every answer passes the consumer
// contract and the plausibility rules below (timestamps of recent years, dotted versions, token_type bearer,
// lookup types and codes that look like the real thing, URIs of the tenant/type/code form, pages no longer
// than the limit asked for), and the same seed gives the same answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import { freePort } from "../../src/http/index.ts";
import { type MockServer, startMock } from "../../src/mock/index.ts";

const contract = loadContract();

const timestampKeys = new Set(["createdAt", "updateDate", "mappedAt", "createdTime", "startDate", "endDate"]);
const YEAR_2000 = 946_684_800_000;
const YEAR_2100 = 4_102_444_800_000;

/** What a consumer team would call implausible in an answer; each finding names the path. */
function implausible(body: unknown, limit?: number): string[] {
  const found: string[] = [];
  const visit = (node: unknown, path: string, key: string) => {
    if (Array.isArray(node)) {
      if (node.length > 100) found.push(`${path}: ${node.length} items`);
      if (path === "$.values" && limit !== undefined && node.length > limit)
        found.push(`${path}: ${node.length} records for limit ${limit}`);
      for (const [index, item] of node.entries()) visit(item, `${path}[${index}]`, key);
      return;
    }
    if (node !== null && typeof node === "object") {
      for (const [name, value] of Object.entries(node)) visit(value, `${path}.${name}`, name);
      return;
    }
    if (
      timestampKeys.has(key) &&
      (typeof node !== "number" || !Number.isInteger(node) || node < YEAR_2000 || node > YEAR_2100)
    )
      found.push(`${path}: ${JSON.stringify(node)} is no epoch-millisecond timestamp between 2000 and 2100`);
    // Bearer in one case throughout (RFC 6749 reads it case-insensitively; nobody sends "bEaRer").
    if (key === "token_type" && !/^(bearer|Bearer|BEARER)$/.test(String(node)))
      found.push(`${path}: token_type ${JSON.stringify(node)}`);
    if (key === "rdm-service" && !/^\d{1,3}(\.\d{1,4}){1,3}$/.test(String(node)))
      found.push(`${path}: version ${JSON.stringify(node)} is not a short dotted version`);
    if (key === "expires_in" && (typeof node !== "number" || node <= 0 || node > 86_400 * 31))
      found.push(`${path}: expires_in ${JSON.stringify(node)}`);
    if (key === "type" && !/^(delete|rdm\/lookupTypes\/\w+)$/.test(String(node)))
      found.push(`${path}: type ${JSON.stringify(node)} is neither a task type nor a lookup type URI`);
    if (key === "lookupType" && !/^(rdm\/lookupTypes\/)?[A-Z]\w*$/.test(String(node)))
      found.push(`${path}: lookup type ${JSON.stringify(node)}`);
    if ((key === "code" || key === "candidateLookupCode") && !/^[A-Z0-9_-]{1,20}$/.test(String(node)))
      found.push(`${path}: lookup code ${JSON.stringify(node)}`);
    if (key === "uris" && !/^[^/\s]+\/[^/\s]+\/[^/\s]+$/.test(String(node)))
      found.push(`${path}: ${JSON.stringify(node)} is no <tenant>/<type>/<code> URI`);
    if (key === "tenantId" && !/^[a-z][a-z0-9-]*$/.test(String(node)))
      found.push(`${path}: tenant ${JSON.stringify(node)}`);
  };
  visit(body, "$", "");
  return found;
}

interface Call {
  operationId: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  limit?: number;
}

const calls: Call[] = [
  {
    operationId: "issueToken",
    method: "POST",
    path: "/oauth/token",
    body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=acme-viewer-secret",
    contentType: "application/x-www-form-urlencoded",
  },
  {
    operationId: "putCustomer",
    method: "PUT",
    path: "/oauth/customers/cust-acme",
    body: '{"id":"cust-acme","tenants":["acme"]}',
  },
  {
    operationId: "postCustomer",
    method: "POST",
    path: "/oauth/customers/cust-acme",
    body: '{"multitokenConfig":{"clientCredentialsMultiTokenConfig":{"maxActiveTokensAllowed":5}}}',
  },
  {
    operationId: "putClients",
    method: "PUT",
    path: "/oauth/customers/cust-acme/clients",
    body: '[{"clientId":"acme-viewer","accessTokenValidity":3600}]',
  },
  {
    operationId: "scanAutopilotStats",
    method: "POST",
    path: "/configuration/acme/autopilot/stats/_scan?limit=3",
    limit: 3,
  },
  {
    operationId: "scanAutopilotStatsByType",
    method: "POST",
    path: "/configuration/acme/autopilot/stats/Country/_scan?limit=2",
    limit: 2,
  },
  {
    operationId: "listBlockedValues",
    method: "GET",
    path: "/configuration/acme/autopilot/Country/blockedValues?limit=1",
    limit: 1,
  },
  { operationId: "getHealthcheck", method: "GET", path: "/healthcheck" },
  { operationId: "getStatus", method: "GET", path: "/status" },
  { operationId: "getVersion", method: "GET", path: "/version" },
  {
    operationId: "createTask",
    method: "POST",
    path: "/tasks/acme",
    body: '{"type":"delete","parameters":{"uris":["acme/Country/AD"]}}',
  },
  { operationId: "getTask", method: "GET", path: "/tasks/acme/task-0001" },
  { operationId: "scanLookups", method: "POST", path: "/lookups/acme/_scan?limit=2", limit: 2 },
];

let mock: MockServer;
beforeAll(async () => {
  mock = await startMock({ platformPort: await freePort(), lookupDataPort: await freePort(), seed: 7 });
}, 60_000);
afterAll(async () => {
  await mock?.stop();
});

async function send(call: Call) {
  const base = contract.operation(call.operationId).host === "platform" ? mock.baseUrl : mock.rdmUrl;
  const headers: Record<string, string> = { authorization: "Bearer any-token" };
  if (call.body !== undefined) headers["content-type"] = call.contentType ?? "application/json";
  if (call.operationId === "issueToken") delete headers.authorization;
  const response = await fetch(`${base}${call.path}`, {
    method: call.method,
    headers,
    ...(call.body !== undefined ? { body: call.body } : {}),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    text: await response.text(),
  };
}

describe("lckit mock --dynamic: realistic data", () => {
  it("the table covers every operation", () => {
    expect(new Set(calls.map((call) => call.operationId))).toEqual(
      new Set(contract.operations.map((operation) => operation.operationId)),
    );
  });

  it.each(calls.map((call) => [call.operationId, call]))(
    "%s: a generated answer the contract accepts and a consumer finds plausible",
    async (_id, call) => {
      const answer = await send(call);
      expect(answer.status, answer.text).toBeLessThan(300);
      expect(
        contract.validateResponse(call.operationId, answer.status, answer.contentType, answer.text),
      ).toEqual([]);
      expect(implausible(JSON.parse(answer.text), call.limit)).toEqual([]);
    },
  );

  it("the same seed answers the same data", async () => {
    const call = calls.find((entry) => entry.operationId === "scanLookups") as Call;
    expect((await send(call)).text).toBe((await send(call)).text);
  });
});

describe("the plausibility rules", () => {
  it("flag what Prism generates without the hints (a deliberately implausible answer)", () => {
    const findings = implausible(
      {
        access_token: "x",
        token_type: "bEaRer",
        expires_in: -5,
        "rdm-service": "3047720415.3344646",
        values: [
          { type: "labore ex", code: "dolor sit", updateDate: -68_417_372_345.5, tenantId: "Ut enim" },
          { type: "rdm/lookupTypes/Country", code: "AD", updateDate: 1_740_993_321_290, tenantId: "acme" },
          { type: "rdm/lookupTypes/Country", code: "AE", updateDate: 1_740_993_321_290, tenantId: "acme" },
        ],
        parameters: { uris: ["consectetur adipiscing"] },
      },
      2,
    );
    expect(findings).toEqual([
      '$.token_type: token_type "bEaRer"',
      "$.expires_in: expires_in -5",
      '$.rdm-service: version "3047720415.3344646" is not a short dotted version',
      "$.values: 3 records for limit 2",
      '$.values[0].type: type "labore ex" is neither a task type nor a lookup type URI',
      '$.values[0].code: lookup code "dolor sit"',
      "$.values[0].updateDate: -68417372345.5 is no epoch-millisecond timestamp between 2000 and 2100",
      '$.values[0].tenantId: tenant "Ut enim"',
      '$.parameters.uris[0]: "consectetur adipiscing" is no <tenant>/<type>/<code> URI',
    ]);
  });
});
