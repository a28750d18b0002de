// The reference under hostile use: bad input never gets a 5xx nor gets stored, configuration never
// escalates past what the caller administers, open scrolls hold bounded memory, and Basic credentials
// are decoded per RFC 6749 section 2.3.1.
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/reference/http-body.ts";
import { MAX_OPEN_SCROLLS, MAX_RETAINED_ENTRIES } from "../../src/reference/scroll.ts";
import { type Answer, type Harness, setup } from "./harness.ts";

const nested = (depth: number, open = "[", close = "]", inner = "1") =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** A deep value inside a field of an otherwise valid body. */
const deepIn = (before: string, deep: string, after = "}") => `${before}${deep}${after}`;

const DEEP_BODIES: [string, string][] = [
  ["an array 65 deep", nested(MAX_JSON_DEPTH + 1)],
  ["an array 100,000 deep", nested(100_000)],
  ["an object 100,000 deep", nestedObject(100_000)],
  ["customer description 100,000 deep", deepIn('{"description":', nested(100_000))],
  ["customer tenants 100,000 deep", deepIn('{"tenants":', nested(100_000, "[", "]", '"acme"'))],
  ["multitokenConfig 100,000 deep", deepIn('{"multitokenConfig":', nestedObject(100_000))],
  ["an unbalanced 100,000 deep array", "[".repeat(100_000)],
];

const WRITES: [string, string, string][] = [
  ["PUT customer", "PUT", "/oauth/customers/cust-acme"],
  ["POST customer", "POST", "/oauth/customers/cust-acme"],
  ["PUT new customer", "PUT", "/oauth/customers/cust-deep"],
  ["PUT clients", "PUT", "/oauth/customers/cust-acme/clients"],
  ["delete task", "POST", "/tasks/acme"],
  ["lookups scan", "POST", "/lookups/acme/_scan"],
  ["autopilot scan", "POST", "/configuration/acme/autopilot/stats/_scan"],
];

function snapshot(h: Harness): string {
  return JSON.stringify({
    customers: [...h.ref.state.customers],
    clients: [...h.ref.state.clients],
    tasks: h.ref.state.tasks.size,
  });
}

describe("deeply nested bodies", () => {
  it.each(
    WRITES.flatMap(([name, method, path]) =>
      DEEP_BODIES.map(([what, body]) => [`${name} with ${what}`, method, path, body] as const),
    ),
  )("%s: 400 naming the nesting limit, nothing stored", async (_name, method, path, body) => {
    const h = setup();
    const token = await h.token("acme-admin");
    const before = snapshot(h);
    const a = await h.call(method, path, { token, body, headers: { "content-type": "application/json" } });
    expect(a.status).toBe(400);
    expect(a.text).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    expect(snapshot(h)).toBe(before);
    // The customer still reads back (POST with an empty body merges nothing).
    const read = await h.call("POST", "/oauth/customers/cust-acme", { token, body: {} });
    expect(read.status).toBe(200);
  });

  it("accepts legal bodies with deep-ish but allowed nesting (e.g. externalProviderConfig 60 deep)", async () => {
    const h = setup();
    const a = await h.call("POST", "/oauth/customers/cust-acme", {
      token: await h.token("acme-admin"),
      body: `{"externalProviderConfig":${nested(60)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(a.status).toBe(200);
  });
});

describe("bad-input corpus", () => {
  const strings = ['"\\u0000"', '"\\ud800"', `"${"x".repeat(100_000)}"`, '"../../etc/passwd"', '"%00"'];
  const values = ["null", "true", "1e309", "-0", "123456789012345678901234567890", "[]", "{}", ...strings];
  const bodies = [
    ...values,
    ...values.map((v) => `{"__proto__":${v}}`),
    ...values.map((v) => `{"constructor":{"prototype":${v}}}`),
    ...values.map((v) => `{"tenants":[${v}],"multitokenConfig":${v}}`),
    ...values.map((v) => `{"type":"delete","parameters":{"uris":[${v}],"type":${v}}}`),
    ...values.map((v) => `[{"clientId":${v},"clientSecret":${v},"authorities":[${v}]}]`),
    ...values.map((v) => `{"scrollId":${v}}`),
    "\uFEFF{}",
    '{"a":1,"a":2}',
    "",
  ];
  const paths: [string, string][] = [
    ...WRITES.map(([, method, path]) => [method, path] as [string, string]),
    ["POST", "/oauth/token"],
    ["POST", "/configuration/acme/autopilot/stats/Country/_scan?limit=1e3&order=DESC&sort=__proto__"],
    ["GET", "/configuration/acme/autopilot/Country/blockedValues?offset=1e99&limit=-1"],
    ["POST", `/lookups/acme/_scan?filter=${encodeURIComponent(`${"not ".repeat(10_000)}exists(code)`)}`],
    ["POST", `/lookups/acme/_scan?filter=${encodeURIComponent(`${"(".repeat(5000)}exists(code)`)}`],
  ];
  const types = ["application/json", "text/plain", "application/x-www-form-urlencoded"];

  it(`answers ${bodies.length * paths.length * types.length} bad requests without a 5xx`, async () => {
    const h = setup();
    const token = await h.token("acme-admin");
    const fivexx: string[] = [];
    for (const [method, path] of paths) {
      for (const body of bodies) {
        for (const type of types) {
          const response = await h.ref.fetch(
            new Request(`http://reference.test${path}`, {
              method,
              headers: { authorization: `Bearer ${token}`, "content-type": type },
              body: method === "GET" ? undefined : body,
            }),
          );
          if (response.status >= 500)
            fivexx.push(`${method} ${path} ${type} ${body.slice(0, 60)} -> ${response.status}`);
          await response.arrayBuffer();
        }
      }
    }
    expect(fivexx).toEqual([]);
  });
});

describe("configuration stays within what the caller administers", () => {
  const asAdmin = async (h: Harness, method: string, path: string, body: unknown): Promise<Answer> =>
    h.call(method, path, { token: await h.token("acme-admin"), body });

  const ATTEMPTS: [string, (h: Harness) => Promise<Answer>][] = [
    [
      "POST own customer adding globex",
      (h) => asAdmin(h, "POST", "/oauth/customers/cust-acme", { tenants: ["acme", "globex"] }),
    ],
    [
      "PUT own customer with globex",
      (h) =>
        asAdmin(h, "PUT", "/oauth/customers/cust-acme", { id: "cust-acme", tenants: ["acme", "globex"] }),
    ],
    [
      "PUT own customer with only globex",
      (h) => asAdmin(h, "PUT", "/oauth/customers/cust-acme", { tenants: ["globex"] }),
    ],
    [
      "PUT a new customer with globex",
      (h) => asAdmin(h, "PUT", "/oauth/customers/cust-evil", { tenants: ["globex"] }),
    ],
    [
      "PUT a new customer with acme and globex",
      (h) => asAdmin(h, "PUT", "/oauth/customers/cust-evil", { tenants: ["acme", "globex"] }),
    ],
    [
      "POST the other customer",
      (h) => asAdmin(h, "POST", "/oauth/customers/cust-globex", { description: "mine" }),
    ],
    [
      "PUT the other customer",
      (h) => asAdmin(h, "PUT", "/oauth/customers/cust-globex", { tenants: ["globex", "acme"] }),
    ],
    [
      "PUT the other customer's clients",
      (h) =>
        asAdmin(h, "PUT", "/oauth/customers/cust-globex/clients", [
          { clientId: "globex-viewer", authorities: ["ROLE_RDM_EDIT"] },
        ]),
    ],
    [
      "a new client with ROLE_ADMIN_TENANT_globex",
      (h) =>
        asAdmin(h, "PUT", "/oauth/customers/cust-acme/clients", [
          { clientId: "evil", clientSecret: "s", authorities: ["ROLE_ADMIN_TENANT_globex"] },
        ]),
    ],
    [
      "upserting the viewer to ROLE_ADMIN_TENANT_globex",
      (h) =>
        asAdmin(h, "PUT", "/oauth/customers/cust-acme/clients", [
          { clientId: "acme-viewer", authorities: ["ROLE_RDM", "ROLE_ADMIN_TENANT_globex"] },
        ]),
    ],
    [
      "upserting itself to ROLE_ADMIN_TENANT_legacy",
      (h) =>
        asAdmin(h, "PUT", "/oauth/customers/cust-acme/clients", [
          { clientId: "acme-admin", authorities: ["ROLE_ADMIN_TENANT_acme", "ROLE_ADMIN_TENANT_legacy"] },
        ]),
    ],
    [
      "a viewer adding globex",
      async (h) =>
        h.call("POST", "/oauth/customers/cust-acme", {
          token: await h.token("acme-viewer"),
          body: { tenants: ["acme", "globex"] },
        }),
    ],
    [
      "an editor creating an admin client",
      async (h) =>
        h.call("PUT", "/oauth/customers/cust-acme/clients", {
          token: await h.token("acme-editor"),
          body: [{ clientId: "evil", clientSecret: "s", authorities: ["ROLE_ADMIN_TENANT_acme"] }],
        }),
    ],
  ];

  it.each(ATTEMPTS)("refuses %s with 403, nothing changed, globex unreadable", async (_name, attempt) => {
    const h = setup();
    const before = snapshot(h);
    const a = await attempt(h);
    expect(a.status).toBe(403);
    expect(a.text).toMatch(/may not/);
    expect(snapshot(h)).toBe(before);
    for (const client of ["acme-admin", "acme-editor", "acme-viewer"]) {
      const scan = await h.call("POST", "/lookups/globex/_scan?limit=1", { token: await h.token(client) });
      expect(scan.status, client).toBe(403);
    }
  });

  it("still lets the admin configure within its tenants (admin roles it holds, its own customer)", async () => {
    const h = setup();
    const clients = await asAdmin(h, "PUT", "/oauth/customers/cust-acme/clients", [
      { clientId: "acme-second-admin", clientSecret: "s", authorities: ["ROLE_ADMIN_TENANT_acme"] },
    ]);
    expect(clients.status).toBe(200);
    const customer = await asAdmin(h, "PUT", "/oauth/customers/cust-acme", {
      tenants: ["acme"],
      description: "d",
    });
    expect(customer.status).toBe(200);
  });

  it("lets a client that administers both tenants move them (the wider-tenant-list variant)", async () => {
    const h = setup({ variants: ["admin-administers-other-tenant"] });
    const a = await asAdmin(h, "POST", "/oauth/customers/cust-acme", { tenants: ["acme", "globex"] });
    expect(a.status).toBe(200);
  });
});

describe("scroll memory", () => {
  const h = setup({ generate: { tenant: "acme", lookups: 100_000, seed: 3 } });

  it("3,000 one-request desc scans at 100k lookups retain no record copies", async () => {
    const token = await h.token("acme-viewer");
    for (let i = 0; i < 3000; i++) {
      const a = await h.ref.fetch(
        new Request("http://reference.test/lookups/acme/_scan?limit=1&order=desc", {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
        }),
      );
      expect(a.status).toBe(200);
      await a.arrayBuffer();
    }
    const scrolls = h.ref.state.scrolls;
    expect(scrolls.size).toBe(3000);
    expect(scrolls.retainedEntries).toBe(0);
    expect(scrolls.retainedBytes).toBeLessThanOrEqual(3000 * 256);
  });

  it("filtered scans keep position indexes within the entry budget, evicting the oldest", async () => {
    const token = await h.token("acme-viewer");
    const filter = encodeURIComponent("exists(code)");
    const ids: string[] = [];
    // Each scroll indexes all 100k lookups: the budget holds 10 of them, so the first ones are evicted.
    const scans = Math.ceil(MAX_RETAINED_ENTRIES / 100_000) + 2;
    for (let i = 0; i < scans; i++) {
      const a = await h.call("POST", `/lookups/acme/_scan?limit=1&order=desc&filter=${filter}`, { token });
      expect(a.status).toBe(200);
      ids.push((a.body as { scrollId: string }).scrollId);
    }
    const scrolls = h.ref.state.scrolls;
    // The 3,000 plain scrolls of the test before hold no entries: they stay open.
    expect(scrolls.size).toBeGreaterThanOrEqual(3000);
    expect(scrolls.retainedEntries).toBeGreaterThan(0);
    expect(scrolls.retainedEntries).toBeLessThanOrEqual(MAX_RETAINED_ENTRIES);
    expect(scrolls.retainedBytes).toBeLessThanOrEqual(MAX_RETAINED_ENTRIES * 4 + MAX_OPEN_SCROLLS * 256);
    // The oldest scroll was evicted and says so; the newest still pages on.
    const oldest = await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: ids[0] } });
    expect(oldest.status).toBe(400);
    expect(oldest.body).toMatchObject({ error: "invalid_scroll_id" });
    const newest = await h.call("POST", "/lookups/acme/_scan", { token, body: { scrollId: ids.at(-1) } });
    expect(newest.status).toBe(200);
  });

  it("a sorted scan serves the same records as a copy would, in order, from its index", async () => {
    const token = await h.token("acme-viewer");
    const { values } = await h.scanAll(
      "/lookups/acme/_scan?limit=100&sort=version&order=desc&filter=" +
        encodeURIComponent("startsWith(code,'A')"),
      token,
    );
    const versions = (values as { version: number }[]).map((l) => l.version);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.every((v, i) => i === 0 || v <= (versions[i - 1] as number))).toBe(true);
  });
});

describe("Basic client authentication per RFC 6749 section 2.3.1", () => {
  const formEncode = (text: string) => new URLSearchParams({ x: text }).toString().slice(2);
  const basicOf = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString("base64")}`;

  it.each([
    ["plus and percent", "acme-special", "p+ss%w0rd"],
    ["colon and space in the secret", "acme-special", "a:b c"],
    ["colon in the client id", "acme:special", "s3cret"],
    ["non-ASCII", "acme-spécial", "sécret ✓"],
  ])("decodes form-encoded id and secret (%s)", async (_name, clientId, clientSecret) => {
    const h = setup();
    const put = await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: await h.token("acme-admin"),
      body: [{ clientId, clientSecret, authorities: ["ROLE_RDM"] }],
    });
    expect(put.status).toBe(200);
    const request = (authorization: string) =>
      h.call("POST", "/oauth/token", {
        headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
    expect((await request(basicOf(clientId, clientSecret))).status).toBe(200);
    // Without the form encoding, "+" reads as a space and "%xx" as an escape: a different secret.
    if (/[+%]/.test(clientSecret)) {
      const raw = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`;
      expect((await request(raw)).status).toBe(401);
    }
  });
});
