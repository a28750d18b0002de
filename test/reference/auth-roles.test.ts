// The operation-to-role table of docs/assumptions.md (AUTH-*, AUTH-ROLES-*): 401 for the token, 403 for role/tenant.
import { describe, expect, it } from "vitest";
import { accessOf } from "../../src/reference/auth.ts";
import { type Harness, setup } from "./harness.ts";

type Op = [
  name: string,
  method: string,
  path: (tenant: string) => string,
  body?: (tenant: string) => unknown,
];

const OPS: Record<string, Op> = {
  healthcheck: ["healthcheck", "GET", () => "/healthcheck"],
  status: ["status", "GET", () => "/status"],
  version: ["version", "GET", () => "/version"],
  lookupScan: ["lookups scan", "POST", (t) => `/lookups/${t}/_scan?limit=1`],
  statsScan: ["autopilot scan", "POST", (t) => `/configuration/${t}/autopilot/stats/_scan?limit=1`],
  typeScan: [
    "autopilot type scan",
    "POST",
    (t) => `/configuration/${t}/autopilot/stats/Country/_scan?limit=1`,
  ],
  blocked: ["blocked values", "GET", (t) => `/configuration/${t}/autopilot/Country/blockedValues?limit=1`],
  deleteTask: [
    "delete task",
    "POST",
    (t) => `/tasks/${t}`,
    () => ({ type: "delete", parameters: { uris: [] } }),
  ],
  customer: ["POST customer", "POST", (t) => `/oauth/customers/cust-${t}`, () => ({})],
  customerPut: ["PUT customer", "PUT", (t) => `/oauth/customers/cust-${t}`, (t) => ({ tenants: [t] })],
  clients: ["PUT clients", "PUT", (t) => `/oauth/customers/cust-${t}/clients`, () => []],
};

async function send(h: Harness, op: Op, tenant: string, token?: string) {
  const [, method, path, body] = op;
  return h.call(method, path(tenant), { token, body: body?.(tenant) });
}

// [operation, caller, tenant, expected status]
const TABLE: [keyof typeof OPS, string, string, number][] = [
  ["healthcheck", "acme-viewer", "acme", 200],
  ["status", "acme-editor", "acme", 200],
  ["version", "globex-viewer", "acme", 200],
  ["lookupScan", "acme-admin", "acme", 200],
  ["lookupScan", "acme-editor", "acme", 200],
  ["lookupScan", "acme-viewer", "acme", 200],
  ["lookupScan", "acme-viewer", "globex", 403],
  ["lookupScan", "acme-admin", "globex", 403],
  ["lookupScan", "globex-admin", "acme", 403],
  ["lookupScan", "acme-viewer", "nowhere", 403],
  ["statsScan", "acme-viewer", "acme", 200],
  ["statsScan", "acme-editor", "acme", 200],
  ["statsScan", "globex-viewer", "acme", 403],
  ["typeScan", "acme-admin", "acme", 200],
  ["typeScan", "acme-viewer", "globex", 403],
  ["blocked", "acme-viewer", "acme", 200],
  ["blocked", "acme-editor", "acme", 200],
  ["blocked", "globex-admin", "acme", 403],
  ["deleteTask", "acme-admin", "acme", 202],
  ["deleteTask", "acme-editor", "acme", 202],
  ["deleteTask", "acme-viewer", "acme", 403],
  ["deleteTask", "acme-editor", "globex", 403],
  ["deleteTask", "globex-admin", "acme", 403],
  ["customer", "acme-admin", "acme", 200],
  ["customer", "acme-editor", "acme", 403],
  ["customer", "acme-viewer", "acme", 403],
  ["customer", "globex-admin", "acme", 403],
  ["customerPut", "acme-admin", "acme", 200],
  ["customerPut", "acme-editor", "acme", 403],
  ["clients", "acme-admin", "acme", 200],
  ["clients", "acme-editor", "acme", 403],
  ["clients", "globex-admin", "acme", 403],
];

describe("roles and tenants", () => {
  it.each(TABLE)("%s by %s in tenant %s answers %i", async (op, caller, tenant, want) => {
    const h = setup();
    const a = await send(h, OPS[op] as Op, tenant, await h.token(caller));
    expect(a.status).toBe(want);
    if (want === 403)
      expect(a.body).toMatchObject({
        error: "forbidden",
        error_description: expect.stringContaining(tenant),
      });
  });

  it.each(Object.keys(OPS))("%s without a token answers 401 with a Bearer challenge", async (op) => {
    const h = setup();
    const a = await send(h, OPS[op] as Op, "acme");
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ error: "invalid_token" });
    expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it.each([
    ["an unknown token", "Bearer not-a-token"],
    ["a malformed header", "Token abc"],
    ["Basic credentials", "Basic YWNtZS12aWV3ZXI6YWNtZS12aWV3ZXItc2VjcmV0"],
  ])("refuses %s with 401 invalid_token", async (_name, header) => {
    const h = setup();
    const a = await h.call("POST", "/lookups/acme/_scan", { headers: { authorization: header } });
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ error: "invalid_token" });
    expect(a.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("checks the tenant list at request time: a client moved off a tenant loses access", async () => {
    const h = setup();
    const viewer = await h.token("acme-viewer");
    expect((await h.call("POST", "/lookups/acme/_scan?limit=1", { token: viewer })).status).toBe(200);
    const admin = await h.token("acme-admin");
    await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: admin,
      body: [{ clientId: "acme-viewer", authorities: [] }],
    });
    expect((await h.call("POST", "/lookups/acme/_scan?limit=1", { token: viewer })).status).toBe(403);
  });
});

describe("the access of an operation, as the contract grants it", () => {
  it.each([
    ["scanLookups", "read"],
    ["scanAutopilotStats", "read"],
    ["scanAutopilotStatsByType", "read"],
    ["listBlockedValues", "read"],
    ["createTask", "edit"],
    ["getTask", "edit"],
  ])("%s needs %s", (operationId, access) => {
    expect(accessOf(operationId)).toBe(access);
  });

  it("names the roles and the fix for an operation only a tenant admin may call", () => {
    expect(() => accessOf("putClients")).toThrow(/ROLE_ADMIN_TENANT_\{tenantId\}.*authorize it by customer/);
  });
});
