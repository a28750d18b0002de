// lookup-conformance-kit/msw: MSW handlers backed by the stateful reference answer a client's fetch
// without a port, and the same control API drives them; startSandbox() serves the same on loopback.
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxHandlers, startSandbox } from "../../src/mock/msw.ts";
import { packagePath } from "../../src/package-root.ts";
import { manualClock } from "../../src/reference/index.ts";

const DATA = packagePath("examples", "sandbox-data.yaml");
const basic = (id: string) => `Basic ${Buffer.from(`${id}:${id}-secret`).toString("base64")}`;

async function tokenFrom(base: string): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { authorization: basic("order-service"), "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
}

describe("MSW handlers backed by the reference", async () => {
  const clock = manualClock();
  const { handlers, sandbox, baseUrl } = await sandboxHandlers({ data: DATA, clock, record: true });
  const prefixed = await sandboxHandlers({ baseUrl: "https://api.example.test/lookup/v1", data: DATA });
  const server = setupServer(...handlers, ...prefixed.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(() => server.close());

  it("answer a client's token request and scan, with the team's data and no port", async () => {
    const answer = await tokenFrom(baseUrl);
    expect(answer.status).toBe(200);
    const { access_token } = (await answer.json()) as { access_token: string };
    const scan = await fetch(`${baseUrl}/lookups/shop/_scan?limit=10&sort=code`, {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(((await scan.json()) as { values: { code: string }[] }).values.map((v) => v.code)).toEqual([
      "CARD",
      "DE",
      "FR",
      "NL",
    ]);
    expect(sandbox.control.recording().map((x) => x.status)).toEqual([200, 200]);
  });

  it("are driven by the same control API: the clock expires the token at once", async () => {
    const { access_token } = (await (await tokenFrom(baseUrl)).json()) as { access_token: string };
    sandbox.control.advanceClock(900_000);
    const expired = await fetch(`${baseUrl}/lookups/shop/_scan`, {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(expired.status).toBe(401);
    sandbox.control.setVariants(["quota-refusal-409"]);
    for (let i = 0; i < 5; i++) expect((await tokenFrom(baseUrl)).status).toBe(200);
    expect((await tokenFrom(baseUrl)).status).toBe(409);
  });

  it("serve a base URL with a path prefix, and pass a request body through", async () => {
    const base = prefixed.baseUrl;
    const { access_token } = (await (await tokenFrom(base)).json()) as { access_token: string };
    const first = (await (
      await fetch(`${base}/lookups/shop/_scan?limit=2`, {
        method: "POST",
        headers: { authorization: `Bearer ${access_token}` },
      })
    ).json()) as { scrollId: string };
    const next = await fetch(`${base}/lookups/shop/_scan?limit=2`, {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ scrollId: first.scrollId }),
    });
    expect(next.status).toBe(200);
    expect(((await next.json()) as { values: unknown[] }).values).toHaveLength(2);
  });

  it("refuse a base URL that is not absolute, naming an example", async () => {
    await expect(sandboxHandlers({ baseUrl: "sandbox" })).rejects.toThrow(/not an absolute URL; e.g. http/);
  });
});

describe("startSandbox()", () => {
  it("serves the data on loopback with its control interface, and closes", async () => {
    const sandbox = await startSandbox({ data: DATA });
    try {
      expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.clients.map((c) => c.clientId)).toEqual(["order-service", "nightly-sync"]);
      expect((await tokenFrom(sandbox.baseUrl)).status).toBe(200);
      const state = (await (await fetch(`${sandbox.controlUrl}/state`)).json()) as {
        tokens: { active: number }[];
      };
      expect(state.tokens[0]?.active).toBe(1);
      expect(sandbox.control.recording()).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
    await expect(fetch(`${sandbox.baseUrl}/healthcheck`)).rejects.toThrow();
  });
});
