// PUT/POST customer and PUT clients (CONFIG-*): validation names the field, nothing is stored on error.
import { describe, expect, it } from "vitest";
import { setup } from "./harness.ts";

const QUOTA_FIELD = "multitokenConfig.clientCredentialsMultiTokenConfig.maxActiveTokensAllowed";
const quota = (max: unknown) => ({
  multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: max } },
});

describe("customer configuration", () => {
  it("POST merges top-level fields and answers the stored customer", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const a = await h.call("POST", "/oauth/customers/cust-acme", {
      token: admin,
      body: { description: "changed", ...quota(7) },
    });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      id: "cust-acme",
      tenants: ["acme"],
      description: "changed",
      applicationClients: expect.arrayContaining(["acme-admin"]),
      ...quota(7),
    });
    expect(h.ref.state.customers.get("cust-acme")).toEqual(a.body);
  });

  it("PUT replaces the stored customer (absent fields are removed)", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const a = await h.call("PUT", "/oauth/customers/cust-acme", {
      token: admin,
      body: { id: "cust-acme", tenants: ["acme"] },
    });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ id: "cust-acme", tenants: ["acme"] });
  });

  it("PUT creates an absent customer for an admin of one of its tenants", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const a = await h.call("PUT", "/oauth/customers/cust-new", {
      token: admin,
      body: { tenants: ["acme"], description: "new" },
    });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ id: "cust-new", tenants: ["acme"], description: "new" });
  });

  it.each([
    ["maxActiveTokensAllowed 201", "POST", "cust-acme", "acme-admin", quota(201), QUOTA_FIELD],
    ["maxActiveTokensAllowed 0", "POST", "cust-acme", "acme-admin", quota(0), QUOTA_FIELD],
    [
      "maxActiveTokensAllowed -5",
      "PUT",
      "cust-acme",
      "acme-admin",
      { tenants: ["acme"], ...quota(-5) },
      QUOTA_FIELD,
    ],
    ["maxActiveTokensAllowed 2.5", "POST", "cust-acme", "acme-admin", quota(2.5), QUOTA_FIELD],
    ["maxActiveTokensAllowed as a string", "POST", "cust-acme", "acme-admin", quota("10"), QUOTA_FIELD],
    [
      "multitokenConfig on an rdbms tenant",
      "POST",
      "cust-legacy",
      "legacy-admin",
      quota(10),
      "multitokenConfig",
    ],
    [
      "multitokenConfig on an rdbms tenant (PUT)",
      "PUT",
      "cust-legacy",
      "legacy-admin",
      { tenants: ["legacy"], ...quota(10) },
      "multitokenConfig",
    ],
    [
      "an rdbms tenant added to a multi-token customer",
      "POST",
      "cust-acme",
      "acme-admin",
      { tenants: ["acme", "legacy"], ...quota(10) },
      "multitokenConfig",
    ],
    [
      "multitokenConfig not an object",
      "POST",
      "cust-acme",
      "acme-admin",
      { multitokenConfig: 5 },
      "multitokenConfig",
    ],
    ["an id other than the path", "PUT", "cust-acme", "acme-admin", { id: "other", tenants: ["acme"] }, "id"],
    ["tenants not an array", "POST", "cust-acme", "acme-admin", { tenants: "acme" }, "tenants"],
    ["an unknown tenant", "POST", "cust-acme", "acme-admin", { tenants: ["acme", "nowhere"] }, "tenants[1]"],
    ["description not a string", "POST", "cust-acme", "acme-admin", { description: 3 }, "description"],
    [
      "caseSensitiveLoginEnabled not a boolean",
      "POST",
      "cust-acme",
      "acme-admin",
      { caseSensitiveLoginEnabled: "yes" },
      "caseSensitiveLoginEnabled",
    ],
    [
      "applicationClients with a number",
      "POST",
      "cust-acme",
      "acme-admin",
      { applicationClients: ["a", 1] },
      "applicationClients[1]",
    ],
    ["a body that is an array", "PUT", "cust-acme", "acme-admin", [], "body"],
  ])(
    "refuses %s with 400 naming the field and stores nothing",
    async (_name, method, customer, admin, body, field) => {
      const h = setup();
      const token = await h.token(admin);
      const before = structuredClone(h.ref.state.customers.get(customer));
      const a = await h.call(method, `/oauth/customers/${customer}`, { token, body });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ error: "validation_error" });
      expect((a.body as { error_description: string }).error_description.startsWith(`${field}:`)).toBe(true);
      expect(h.ref.state.customers.get(customer)).toEqual(before);
    },
  );

  it("accepts maxActiveTokensAllowed at the bounds 1 and 200", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    for (const max of [1, 200]) {
      expect(
        (await h.call("POST", "/oauth/customers/cust-acme", { token: admin, body: quota(max) })).status,
      ).toBe(200);
    }
  });
});

describe("client configuration", () => {
  it("upserts clients and answers them without secrets; the new client can authenticate", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const a = await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: admin,
      body: [
        { clientId: "acme-viewer", accessTokenValidity: 120 },
        {
          clientId: "acme-batch",
          clientSecret: "batch-secret",
          authorities: ["ROLE_RDM_EDIT"],
          scope: ["entities_api"],
        },
      ],
    });
    expect(a.status).toBe(200);
    const clients = a.body as Record<string, unknown>[];
    expect(clients).toHaveLength(2);
    for (const client of clients) expect(client).not.toHaveProperty("clientSecret");
    expect(clients[0]).toMatchObject({
      clientId: "acme-viewer",
      accessTokenValidity: 120,
      authorities: ["ROLE_RDM"],
    });
    expect(clients[1]).toMatchObject({
      clientId: "acme-batch",
      authorizedGrantTypes: ["client_credentials"],
      accessTokenValidity: 3600,
    });
    expect((await h.requestToken("acme-batch", "batch-secret")).status).toBe(200);
    expect((await h.requestToken("acme-viewer")).body).toMatchObject({ expires_in: 120 });
    expect(h.ref.state.customers.get("cust-acme")?.applicationClients).toContain("acme-batch");
  });

  it("answers 404 for an unknown customer", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const a = await h.call("PUT", "/oauth/customers/cust-nobody/clients", { token: admin, body: [] });
    expect(a.status).toBe(404);
    expect(a.body).toMatchObject({ error: "not_found" });
  });

  it.each([
    ["a body that is not an array", { clientId: "x" }, "body"],
    ["an element that is not an object", [1], "[0]"],
    ["a missing clientId", [{ clientSecret: "s" }], "[0].clientId"],
    ["a new client without a secret", [{ clientId: "acme-x" }], "[0].clientSecret"],
    [
      "accessTokenValidity 0",
      [{ clientId: "acme-viewer", accessTokenValidity: 0 }],
      "[0].accessTokenValidity",
    ],
    [
      "accessTokenValidity as a string",
      [{ clientId: "acme-viewer", accessTokenValidity: "60" }],
      "[0].accessTokenValidity",
    ],
    ["authorities not an array", [{ clientId: "acme-viewer", authorities: "ROLE_RDM" }], "[0].authorities"],
    ["a client of another customer", [{ clientId: "globex-viewer", clientSecret: "x" }], "[0].clientId"],
    ["the same clientId twice", [{ clientId: "acme-viewer" }, { clientId: "acme-viewer" }], "[1].clientId"],
    [
      "a valid client followed by an invalid one",
      [{ clientId: "acme-viewer", accessTokenValidity: 5 }, { clientId: 7 }],
      "[1].clientId",
    ],
  ])("refuses %s with 400 naming the field and stores nothing", async (_name, body, field) => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const before = structuredClone([...h.ref.state.clients.entries()]);
    const a = await h.call("PUT", "/oauth/customers/cust-acme/clients", { token: admin, body });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: "validation_error" });
    expect((a.body as { error_description: string }).error_description.startsWith(`${field}:`)).toBe(true);
    expect([...h.ref.state.clients.entries()]).toEqual(before);
  });

  it("refuses adding a tenant the caller does not administer, naming it and the tenants the caller does", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const a = await h.call("PUT", "/oauth/customers/cust-acme", {
      token: admin,
      body: { id: "cust-acme", tenants: ["acme", "globex"] },
    });
    expect(a.status).toBe(403);
    const description = (a.body as { error_description: string }).error_description;
    expect(description).toContain('the tenant "globex"');
    expect(description).toMatch(/administers only acme$/);
  });
});
