// The access-token state table and the multi-token quota (TOKEN-STATE-*, TOKEN-QUOTA-*, TOKEN-VALIDITY-*).
import { describe, expect, it } from "vitest";
import { type Harness, HOUR, setup } from "./harness.ts";

async function setQuota(h: Harness, max: number | undefined, customer = "cust-acme", admin = "acme-admin") {
  const token = await h.token(admin);
  const config = max === undefined ? {} : { maxActiveTokensAllowed: max };
  const a = await h.call("POST", `/oauth/customers/${customer}`, {
    token,
    body: { multitokenConfig: { clientCredentialsMultiTokenConfig: config } },
  });
  expect(a.status).toBe(200);
}

async function issuedToken(h: Harness, clientId: string): Promise<string> {
  const a = await h.requestToken(clientId);
  expect(a.status).toBe(200);
  return (a.body as { access_token: string }).access_token;
}

const useToken = (h: Harness, token: string) => h.call("GET", "/healthcheck", { token });

describe("multi-token support off", () => {
  it("returns the same token while it is valid, and a new one once it expired", async () => {
    const h = setup();
    const first = await issuedToken(h, "acme-viewer");
    h.clock.advance(HOUR - 1);
    expect(await issuedToken(h, "acme-viewer")).toBe(first);
    const again = await h.requestToken("acme-viewer");
    expect((again.body as { expires_in: number }).expires_in).toBe(1);
    h.clock.advance(1);
    const next = await issuedToken(h, "acme-viewer");
    expect(next).not.toBe(first);
  });
});

describe("multi-token support on", () => {
  it("issues a new token per request below the quota, then refuses with 429 and changes nothing", async () => {
    const h = setup();
    await setQuota(h, 3);
    const tokens = [
      await issuedToken(h, "acme-quota"),
      await issuedToken(h, "acme-quota"),
      await issuedToken(h, "acme-quota"),
    ];
    expect(new Set(tokens).size).toBe(3);
    const before = h.ref.state.tokens.size;
    const refused = await h.requestToken("acme-quota");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(refused.body).toEqual({
      error: "limit_exceeded",
      error_description: expect.stringContaining("maxActiveTokensAllowed=3"),
    });
    expect(Number(refused.headers.get("retry-after"))).toBe(3600);
    expect(h.ref.state.tokens.size).toBe(before);
    for (const token of tokens) expect((await useToken(h, token)).status).toBe(200);
  });

  it("stops counting expired tokens; their use is 401 naming the expiry", async () => {
    const h = setup();
    await setQuota(h, 2);
    const old = [await issuedToken(h, "acme-quota"), await issuedToken(h, "acme-quota")];
    expect((await h.requestToken("acme-quota")).status).toBe(429);
    h.clock.advance(HOUR);
    const fresh = [await issuedToken(h, "acme-quota"), await issuedToken(h, "acme-quota")];
    expect(fresh.some((t) => old.includes(t))).toBe(false);
    expect((await h.requestToken("acme-quota")).status).toBe(429);
    for (const token of old) {
      const a = await useToken(h, token);
      expect(a.status).toBe(401);
      expect(a.body).toMatchObject({
        error: "invalid_token",
        error_description: expect.stringContaining("expired"),
      });
      expect(a.headers.get("www-authenticate")).toBe(
        'Bearer error="invalid_token", error_description="The access token expired"',
      );
    }
  });

  it.each([
    ["one millisecond before the end of validity", HOUR - 1, 200],
    ["at the end of validity", HOUR, 401],
    ["long after", 10 * HOUR, 401],
  ])("a token %s answers %i", async (_name, elapsed, status) => {
    const h = setup();
    const token = await issuedToken(h, "acme-viewer");
    h.clock.advance(elapsed);
    expect((await useToken(h, token)).status).toBe(status);
  });

  it("applies the quota to every client of the customer individually", async () => {
    const h = setup();
    await setQuota(h, 1);
    expect((await h.requestToken("acme-quota")).status).toBe(200);
    expect((await h.requestToken("acme-viewer")).status).toBe(200);
    expect((await h.requestToken("acme-quota")).status).toBe(429);
    expect((await h.requestToken("acme-viewer")).status).toBe(429);
    // Another customer is untouched: multi-token is off there, the same token comes back.
    const g1 = await issuedToken(h, "globex-viewer");
    expect(await issuedToken(h, "globex-viewer")).toBe(g1);
  });

  it("applies a quota change to later requests; issued tokens stay active", async () => {
    const h = setup();
    await setQuota(h, 2);
    const [a, b] = [await issuedToken(h, "acme-quota"), await issuedToken(h, "acme-quota")];
    expect((await h.requestToken("acme-quota")).status).toBe(429);
    await setQuota(h, 3);
    expect((await h.requestToken("acme-quota")).status).toBe(200);
    expect((await h.requestToken("acme-quota")).status).toBe(429);
    await setQuota(h, 1);
    expect((await h.requestToken("acme-quota")).status).toBe(429);
    expect((await useToken(h, a)).status).toBe(200);
    expect((await useToken(h, b)).status).toBe(200);
  });

  it("defaults maxActiveTokensAllowed to 200 when multitokenConfig leaves it unset", async () => {
    const h = setup();
    await setQuota(h, undefined);
    const results = [];
    for (let i = 0; i < 201; i++) results.push((await h.requestToken("acme-quota")).status);
    expect(results.filter((s) => s === 200)).toHaveLength(200);
    expect(results[200]).toBe(429);
  });

  it("holds the quota under concurrency: 1000 simultaneous requests at quota 200 issue exactly 200", async () => {
    const h = setup();
    await setQuota(h, 200);
    const answers = await Promise.all(Array.from({ length: 1000 }, () => h.requestToken("acme-quota")));
    const issued = answers
      .filter((a) => a.status === 200)
      .map((a) => (a.body as { access_token: string }).access_token);
    expect(issued).toHaveLength(200);
    expect(new Set(issued).size).toBe(200);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(800);
  });

  it("returns to one token per validity once multi-token support is removed", async () => {
    const h = setup();
    await setQuota(h, 5);
    await issuedToken(h, "acme-quota");
    const latest = await issuedToken(h, "acme-quota");
    const admin = await h.token("acme-admin");
    expect(
      (await h.call("POST", "/oauth/customers/cust-acme", { token: admin, body: { multitokenConfig: null } }))
        .status,
    ).toBe(200);
    expect(await issuedToken(h, "acme-quota")).toBe(latest);
  });
});

describe("token validity", () => {
  it("takes the client's accessTokenValidity at issue time", async () => {
    const h = setup();
    const before = await issuedToken(h, "acme-quota");
    const admin = await h.token("acme-admin");
    const put = await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: admin,
      body: [{ clientId: "acme-quota", accessTokenValidity: 60 }],
    });
    expect(put.status).toBe(200);
    // The old token keeps its validity; once it is gone the new one lasts 60 s.
    h.clock.advance(HOUR);
    const a = await h.requestToken("acme-quota");
    expect(a.body).toMatchObject({ expires_in: 60 });
    const after = (a.body as { access_token: string }).access_token;
    expect(after).not.toBe(before);
    h.clock.advance(59_999);
    expect((await useToken(h, after)).status).toBe(200);
    h.clock.advance(1);
    expect((await useToken(h, after)).status).toBe(401);
  });

  it("defaults to 3600 seconds for a client without accessTokenValidity", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    const put = await h.call("PUT", "/oauth/customers/cust-acme/clients", {
      token: admin,
      body: [{ clientId: "acme-new", clientSecret: "s3cret", authorities: ["ROLE_RDM"] }],
    });
    expect(put.status).toBe(200);
    const a = await h.requestToken("acme-new", "s3cret");
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ expires_in: 3600 });
  });
});

describe("a quota other sessions hold when the client first asks (quotaHeldElsewhere, the client check's world)", () => {
  it("declines the client's first token request and every one until their tokens expire, then issues", async () => {
    const h = setup({ quotaHeldElsewhere: { clientId: "acme-quota", seconds: 3 } });
    await setQuota(h, 2);
    const first = await h.requestToken("acme-quota");
    expect(first.status).toBe(429);
    expect(first.body).toMatchObject({ error_description: expect.stringContaining("has 2 active tokens") });
    expect(first.headers.get("retry-after")).toBe("3");
    h.clock.advance(2_000);
    const again = await h.requestToken("acme-quota");
    expect([again.status, again.headers.get("retry-after")]).toEqual([429, "1"]);
    h.clock.advance(1_000);
    await issuedToken(h, "acme-quota");
    // Filled once: the slots that freed stay free (the second is the client's own).
    await issuedToken(h, "acme-quota");
    expect((await h.requestToken("acme-quota")).status).toBe(429);
    // Another client of the customer meets its own quota, free.
    await issuedToken(h, "acme-editor");
  });

  it("refuses a stated validity that is not a positive number of seconds", () => {
    expect(() => setup({ quotaHeldElsewhere: { clientId: "acme-quota", seconds: 0 } })).toThrow(
      /quotaHeldElsewhere.seconds: expected a number of seconds > 0, got 0/,
    );
  });
});
