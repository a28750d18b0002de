// The Prism mock (src/mock) serves the contract: every operation answers a valid request with a response
// the contract accepts, and a data request without Authorization gets 401.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../../src/contract/index.ts";
import { freePort } from "../../src/http/index.ts";
import { type MockServer, startMock } from "../../src/mock/index.ts";

const contract = loadContract();

interface Call {
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const bearer = { authorization: "Bearer anything" };
const json = { ...bearer, "content-type": "application/json" };
const basic = `Basic ${Buffer.from("acme-viewer:acme-viewer-secret").toString("base64")}`;

// One valid request per operation (and per scroll-id encoding of the scans).
const calls: [string, string, Call][] = [
  [
    "issueToken",
    "Basic auth, form body",
    {
      path: "/oauth/token",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    },
  ],
  [
    "issueToken",
    "form auth",
    {
      path: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=acme-viewer-secret",
    },
  ],
  [
    "issueToken",
    "grant_type in the query",
    { path: "/oauth/token?grant_type=client_credentials", headers: { authorization: basic } },
  ],
  [
    "putCustomer",
    "",
    {
      path: "/oauth/customers/cust-acme",
      headers: json,
      body: JSON.stringify({ id: "cust-acme", tenants: ["acme"] }),
    },
  ],
  [
    "postCustomer",
    "",
    {
      path: "/oauth/customers/cust-acme",
      headers: json,
      body: JSON.stringify({
        multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 5 } },
      }),
    },
  ],
  [
    "putClients",
    "",
    {
      path: "/oauth/customers/cust-acme/clients",
      headers: json,
      body: JSON.stringify([{ clientId: "acme-quota", accessTokenValidity: 60 }]),
    },
  ],
  [
    "scanAutopilotStats",
    "first page, no body",
    {
      path: "/configuration/acme/autopilot/stats/_scan?limit=100&order=desc&sort=createdAt",
      headers: bearer,
    },
  ],
  [
    "scanAutopilotStats",
    "next page, object",
    {
      path: "/configuration/acme/autopilot/stats/_scan",
      headers: json,
      body: '{"scrollId":"c2Nyb2xsLTAwMDI"}',
    },
  ],
  [
    "scanAutopilotStatsByType",
    "first page, null",
    {
      path: "/configuration/acme/autopilot/stats/Country/_scan?filter=equals(status,'TRACKING')",
      headers: json,
      body: "null",
    },
  ],
  [
    "scanAutopilotStatsByType",
    "next page, JSON string",
    { path: "/configuration/acme/autopilot/stats/Country/_scan", headers: json, body: '"c2Nyb2xsLTAwMDI"' },
  ],
  [
    "listBlockedValues",
    "",
    { path: "/configuration/acme/autopilot/Country/blockedValues?offset=0&limit=50", headers: bearer },
  ],
  ["getHealthcheck", "", { path: "/healthcheck", headers: bearer }],
  ["getStatus", "", { path: "/status", headers: bearer }],
  ["getVersion", "", { path: "/version", headers: bearer }],
  [
    "createTask",
    "",
    {
      path: "/tasks/acme",
      headers: json,
      body: JSON.stringify({ type: "delete", parameters: { type: "rdm/lookupTypes/Country" } }),
    },
  ],
  ["getTask", "", { path: "/tasks/acme/task-0001", headers: bearer }],
  [
    "scanLookups",
    "first page, no body",
    {
      path: "/lookups/acme/_scan?limit=100&filter=equals(type,'rdm/lookupTypes/Country')&sort=code&order=asc",
      headers: bearer,
    },
  ],
  [
    "scanLookups",
    "next page, raw text",
    {
      path: "/lookups/acme/_scan",
      headers: { ...bearer, "content-type": "text/plain" },
      body: "c2Nyb2xsLTAwMDE",
    },
  ],
];

async function call(mock: MockServer, operationId: string, request: Call) {
  const operation = contract.operation(operationId);
  const base = operation.host === "platform" ? mock.baseUrl : mock.rdmUrl;
  const response = await fetch(`${base}${request.path}`, {
    method: operation.method,
    headers: request.headers ?? {},
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: await response.text(),
  };
}

describe("Prism mock, static examples", () => {
  let mock: MockServer;

  beforeAll(async () => {
    mock = await startMock({ platformPort: await freePort(), lookupDataPort: await freePort() });
  });

  afterAll(async () => {
    await mock?.stop();
  });

  it("runs two Prism processes on loopback", () => {
    expect(mock.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock.rdmUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock.pids.platform).not.toBe(mock.pids["lookup-data"]);
  });

  it("covers every operation of the contract", () => {
    expect(new Set(calls.map(([operationId]) => operationId))).toEqual(
      new Set(contract.operations.map((operation) => operation.operationId)),
    );
  });

  it.each(calls)(
    "%s (%s) answers its success status with a body the contract accepts",
    async (operationId, _how, request) => {
      const response = await call(mock, operationId, request);
      expect(response.status, response.body).toBe(Number(contract.operation(operationId).statuses[0]));
      expect(
        contract.validateResponse(operationId, response.status, response.contentType, response.body),
      ).toEqual([]);
    },
  );

  it.each(
    contract.operations
      .filter((operation) => operation.requiresBearer)
      .map((operation) => [operation.operationId]),
  )("%s without Authorization gets 401 with a contract error body", async (operationId) => {
    const request = calls.find(([id]) => id === operationId)?.[2];
    if (!request) throw new Error(`no request for ${operationId} in the table`);
    const { authorization: _dropped, ...headers } = request.headers ?? {};
    const response = await call(mock, operationId, { ...request, headers });
    expect(response.status).toBe(401);
    expect(contract.validateResponse(operationId, 401, response.contentType, response.body)).toEqual([]);
  });
});

describe("Prism mock, dynamic with a seed", () => {
  let mock: MockServer;

  beforeAll(async () => {
    mock = await startMock({ platformPort: await freePort(), lookupDataPort: await freePort(), seed: 42 });
  });

  afterAll(async () => {
    await mock?.stop();
  });

  it.each(calls.filter(([, how]) => how === "" || how.startsWith("first page")))(
    "%s (%s) answers generated data the contract accepts, the same for the same seed",
    async (operationId, _how, request) => {
      const first = await call(mock, operationId, request);
      const second = await call(mock, operationId, request);
      expect(contract.validateResponse(operationId, first.status, first.contentType, first.body)).toEqual([]);
      expect(second.body).toBe(first.body);
    },
  );
});
