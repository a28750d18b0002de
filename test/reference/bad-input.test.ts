// Client errors (ERRORS-*): always a 4xx JSON {error, error_description}, never a 5xx, never a crash.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answer, assertContract, setup } from "./harness.ts";

const BIG = "x".repeat(1024 * 1024 + 1);

describe("bad input", () => {
  it.each([
    ["PUT customer", "PUT", "/oauth/customers/cust-acme", "acme-admin"],
    ["POST customer", "POST", "/oauth/customers/cust-acme", "acme-admin"],
    ["PUT clients", "PUT", "/oauth/customers/cust-acme/clients", "acme-admin"],
    ["delete task", "POST", "/tasks/acme", "acme-admin"],
  ])("%s with malformed JSON is a 400 invalid_json", async (_name, method, path, caller) => {
    const h = setup();
    const a = await h.call(method, path, {
      token: await h.token(caller),
      body: '{"type": "delete",',
      headers: { "content-type": "application/json" },
    });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({
      error: "invalid_json",
      error_description: expect.stringContaining("JSON"),
    });
  });

  it.each([
    ["delete task", "POST", "/tasks/acme"],
    ["PUT customer", "PUT", "/oauth/customers/cust-acme"],
    ["lookups scan", "POST", "/lookups/acme/_scan"],
    ["token", "POST", "/oauth/token"],
  ])("%s with a body over 1 MiB is a 413 payload_too_large", async (_name, method, path) => {
    const h = setup();
    const token = await h.token("acme-admin");
    const a = await h.call(method, path, {
      token,
      body: BIG,
      headers: { "content-type": "application/json" },
    });
    expect(a.status).toBe(413);
    expect(a.body).toMatchObject({
      error: "payload_too_large",
      error_description: expect.stringContaining("1 MiB"),
    });
  });

  it("refuses a streamed body over 1 MiB without Content-Length", async () => {
    const h = setup();
    const token = await h.token("acme-admin");
    const chunk = new Uint8Array(256 * 1024).fill(32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 5) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const request = new Request("http://reference.test/tasks/acme", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const a = await answer(await h.ref.fetch(request));
    expect(a.status).toBe(413);
  });

  it.each([
    ["an unknown path", "GET", "/nothing/here", 404, "not_found"],
    ["a known path with a wrong method", "DELETE", "/lookups/acme/_scan", 405, "method_not_allowed"],
  ])("%s is a JSON %i", async (_name, method, path, status, error) => {
    const h = setup();
    const a = await h.call(method, path, { token: await h.token("acme-viewer") });
    expect(a.status).toBe(status);
    expect(a.body).toMatchObject({ error });
  });

  it("answers every random request with a non-5xx status, and 4xx with a JSON error body", async () => {
    const h = setup();
    const tokens = [await h.token("acme-admin"), await h.token("acme-viewer"), "bogus", ""];
    const segment = fc.oneof(
      fc.constantFrom(
        "acme",
        "globex",
        "legacy",
        "cust-acme",
        "Country",
        "_scan",
        "stats",
        "x",
        "%20",
        "..",
        "%2F",
      ),
      fc.string({ minLength: 1, maxLength: 8 }).map(encodeURIComponent),
    );
    const path = fc.oneof(
      fc.tuple(segment, segment).map(([t, x]) => `/lookups/${t}/${x}`),
      segment.map((t) => `/lookups/${t}/_scan`),
      segment.map((t) => `/tasks/${t}`),
      fc.tuple(segment, segment).map(([t, id]) => `/tasks/${t}/${id}`),
      segment.map((t) => `/configuration/${t}/autopilot/stats/_scan`),
      fc.tuple(segment, segment).map(([t, l]) => `/configuration/${t}/autopilot/stats/${l}/_scan`),
      fc.tuple(segment, segment).map(([t, l]) => `/configuration/${t}/autopilot/${l}/blockedValues`),
      segment.map((c) => `/oauth/customers/${c}`),
      segment.map((c) => `/oauth/customers/${c}/clients`),
      fc.constantFrom("/oauth/token", "/healthcheck", "/status", "/version"),
    );
    const query = fc
      .array(
        fc.tuple(
          fc.constantFrom("limit", "offset", "sort", "order", "filter", "grant_type"),
          fc.string({ maxLength: 12 }),
        ),
        { maxLength: 3 },
      )
      .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ""));
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 40 }),
      fc.constantFrom(
        '{"type":"delete"}',
        '{"scrollId":"x"}',
        "null",
        "[",
        '{"multitokenConfig":{}}',
        "grant_type=client_credentials",
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
        path,
        query,
        body,
        fc.constantFrom(...tokens),
        fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded"),
        async (method, p, q, b, token, type) => {
          const headers: Record<string, string> = { "content-type": type };
          if (token) headers.authorization = `Bearer ${token}`;
          const response = await h.ref.fetch(
            new Request(`http://reference.test${p}${q}`, {
              method,
              headers,
              body: method === "GET" ? undefined : b,
            }),
          );
          const a = await answer(response);
          expect(a.status).toBeLessThan(500);
          assertContract(method, `${p}${q}`, a);
          if (a.status >= 400) {
            expect(a.body).toMatchObject({
              error: expect.stringMatching(/^[a-z_]+$/),
              error_description: expect.any(String),
            });
          }
        },
      ),
      { seed: 20260101, numRuns: 400 },
    );
  });
});
