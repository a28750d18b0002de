// POST /oauth/token as docs/assumptions.md fixes it (TOKEN-ENDPOINT-*).
import { describe, expect, it } from "vitest";
import { basic, setup } from "./harness.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("token endpoint", () => {
  it("issues a bearer token for client_credentials with HTTP Basic", async () => {
    const h = setup();
    const a = await h.requestToken("acme-viewer");
    expect(a.status).toBe(200);
    expect(a.headers.get("cache-control")).toBe("no-store");
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
    expect(a.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]{20,}$/),
      token_type: "bearer",
      expires_in: 3600,
      scope: "entities_api",
    });
  });

  it.each([
    [
      "form fields",
      {
        headers: FORM,
        body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=acme-viewer-secret",
      },
      "",
    ],
    [
      "grant_type in the query string, no body",
      { headers: { authorization: basic("acme-viewer") } },
      "?grant_type=client_credentials",
    ],
    [
      "HTTP Basic and the same client's secret in the body",
      {
        headers: { ...FORM, authorization: basic("acme-viewer") },
        body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=acme-viewer-secret",
      },
      "",
    ],
  ])("accepts %s", async (_name, options, query) => {
    const h = setup();
    const a = await h.call("POST", `/oauth/token${query}`, options);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ token_type: "bearer", expires_in: 3600 });
  });

  it.each([
    [
      "a wrong secret (Basic)",
      {
        headers: { ...FORM, authorization: basic("acme-viewer", "nope") },
        body: "grant_type=client_credentials",
      },
      { status: 401, error: "invalid_client", challenge: 'Basic realm="oauth"' },
    ],
    [
      "an unknown client (Basic)",
      { headers: { ...FORM, authorization: basic("nobody", "x") }, body: "grant_type=client_credentials" },
      { status: 401, error: "invalid_client", challenge: 'Basic realm="oauth"' },
    ],
    [
      "a wrong secret (form)",
      { headers: FORM, body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=nope" },
      { status: 401, error: "invalid_client", challenge: null },
    ],
    [
      "no client authentication",
      { headers: FORM, body: "grant_type=client_credentials" },
      { status: 401, error: "invalid_client", challenge: 'Basic realm="oauth"' },
    ],
    [
      "a missing grant_type",
      { headers: { ...FORM, authorization: basic("acme-viewer") }, body: "scope=x" },
      { status: 400, error: "invalid_request", challenge: null },
    ],
    [
      "the password grant",
      {
        headers: { ...FORM, authorization: basic("acme-viewer") },
        body: "grant_type=password&username=u&password=p",
      },
      { status: 400, error: "unsupported_grant_type", challenge: null },
    ],
    [
      "the authorization_code grant",
      {
        headers: { ...FORM, authorization: basic("acme-viewer") },
        body: "grant_type=authorization_code&code=c",
      },
      { status: 400, error: "unsupported_grant_type", challenge: null },
    ],
    [
      "a JSON body",
      {
        headers: { "content-type": "application/json", authorization: basic("acme-viewer") },
        body: '{"grant_type":"client_credentials"}',
      },
      { status: 400, error: "invalid_request", challenge: null },
    ],
    [
      // Both methods naming the same client and secret are accepted by default (the document does not show
      // the token request; variant client-auth-one-method refuses them): disagreeing ones never are.
      "two client authentication methods that disagree",
      {
        headers: { ...FORM, authorization: basic("acme-viewer") },
        body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=not-the-basic-secret",
      },
      { status: 400, error: "invalid_request", challenge: null },
    ],
  ])("refuses %s with an RFC 6749 error", async (_name, options, want) => {
    const h = setup();
    const a = await h.call("POST", "/oauth/token", options);
    expect(a.status).toBe(want.status);
    expect(a.body).toMatchObject({ error: want.error, error_description: expect.any(String) });
    expect(a.headers.get("www-authenticate")).toBe(want.challenge);
    expect(a.headers.get("cache-control")).toBe("no-store");
    expect(h.ref.state.tokens.size).toBe(0);
  });

  it("refuses other grant types with multi-token support on too (multi-token is client_credentials only)", async () => {
    const h = setup();
    const admin = await h.token("acme-admin");
    await h.call("POST", "/oauth/customers/cust-acme", {
      token: admin,
      body: { multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 5 } } },
    });
    const a = await h.call("POST", "/oauth/token", {
      headers: { ...FORM, authorization: basic("acme-viewer") },
      body: "grant_type=password&username=u&password=p",
    });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: "unsupported_grant_type" });
  });

  it("answers 405 naming POST for another method", async () => {
    const h = setup();
    const a = await h.call("GET", "/oauth/token");
    expect(a.status).toBe(405);
    expect(a.headers.get("allow")).toBe("POST");
    expect(a.body).toMatchObject({ error: "method_not_allowed" });
  });

  it("under client-auth-one-method, refuses HTTP Basic and a body secret together, as a strict RFC 6749 server does", async () => {
    const h = setup({ variants: ["client-auth-one-method"] });
    const a = await h.call("POST", "/oauth/token", {
      headers: { ...FORM, authorization: basic("acme-viewer") },
      body: "grant_type=client_credentials&client_id=acme-viewer&client_secret=acme-viewer-secret",
    });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: "invalid_request" });
    expect(h.ref.state.tokens.size).toBe(0);
  });
});
