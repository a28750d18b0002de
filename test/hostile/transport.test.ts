// The transport under every check, against targets that misbehave: size limits, retries, 429s, redirects,
// connection isolation, bounded logs. In memory where the behaviour allows, on loopback sockets where the
// connection itself is the subject.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CheckFailure, type Exchange } from "../../src/check/index.ts";
import { basicAuthorization } from "../../src/client/token.ts";
import { retryAfterMs } from "../../src/http/index.ts";
import { Redactor } from "../../src/redaction/redact.ts";
import { createReference, DEFAULT_FIXTURES_DIR } from "../../src/reference/index.ts";
import { ExchangeLog } from "../../src/transport/exchange-log.ts";
import {
  CheckScope,
  MAX_RATE_LIMIT_RETRIES,
  NO_RETRY_HEADER,
  SCOPE_EXCHANGES,
  TargetTransport,
  type TransportOptions,
} from "../../src/transport/transport.ts";
import { HOSTILE_CLIENTS } from "./hostile-server.ts";

const URL_ = "http://target.test";

function transport(fetch: TransportOptions["fetch"], options: Partial<TransportOptions> = {}) {
  const sleeps: number[] = [];
  const t = new TargetTransport({
    fetch,
    redactor: new Redactor(),
    timeoutMs: 2000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { t, sleeps };
}

/** A fetch answering from a list, one answer (or thrown error) per call. */
function scripted(...answers: (Response | Error)[]) {
  const requests: Request[] = [];
  const fetch = async (request: Request) => {
    requests.push(request);
    const next = answers.shift();
    if (!next) return new Response("{}", { status: 200 });
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, requests };
}

const reset = () =>
  Object.assign(new TypeError("fetch failed"), {
    cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
  });

describe("TargetTransport", () => {
  it("fails the check, naming the limit, on an answer over maxResponseBytes (streamed, no length)", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(chunk);
      },
    });
    const { t } = transport(async () => new Response(endless, { status: 200 }), {
      maxResponseBytes: 1024 * 1024,
    });
    const scope = new CheckScope("c/huge");
    const error = await t
      .bind(scope)(`${URL_}/version`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckFailure);
    expect((error as CheckFailure).message).toContain("1048576 bytes (maxResponseBytes");
    expect(pulled).toBeLessThan(40); // it stopped reading
    expect(scope.exchanges[0]?.response?.bodyTruncated).toBe(true);
  });

  it("refuses an announced Content-Length over the limit without reading", async () => {
    const { t } = transport(
      async () => new Response("x".repeat(100), { headers: { "content-length": "999999999" } }),
      { maxResponseBytes: 1000 },
    );
    await expect(t.bind(new CheckScope("c/len"))(`${URL_}/x`)).rejects.toThrow(/announced Content-Length/);
  });

  it("retries an idempotent GET once after a reset, and says so in the evidence", async () => {
    const { fetch, requests } = scripted(reset(), new Response('{"ok":1}'));
    const { t, sleeps } = transport(fetch);
    const scope = new CheckScope("c/reset");
    const response = await t.bind(scope)(`${URL_}/status`);
    expect(response.status).toBe(200);
    expect(requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(scope.exchanges[0]?.note).toMatch(/retried once/);
    expect(scope.exchanges[1]?.note).toMatch(/retry of an idempotent request after: .*ECONNRESET/);
  });

  it.each([
    ["a POST after a reset", "POST", [reset()]],
    ["a GET reset twice", "GET", [reset(), reset()]],
  ])("does not retry %s beyond the rule", async (_name, method, errors) => {
    const { fetch, requests } = scripted(...(errors as Error[]));
    const { t } = transport(fetch);
    await expect(t.bind(new CheckScope("c/x"))(`${URL_}/x`, { method })).rejects.toBeInstanceOf(CheckFailure);
    expect(requests).toHaveLength(method === "POST" ? 1 : 2);
  });

  it("retries a GET answered 502/503/504 once, then returns what came", async () => {
    const { fetch, requests } = scripted(
      new Response("", { status: 503 }),
      new Response("", { status: 504 }),
    );
    const { t } = transport(fetch);
    const response = await t.bind(new CheckScope("c/5xx"))(`${URL_}/status`);
    expect(response.status).toBe(504);
    expect(requests).toHaveLength(2);
  });

  it("waits out a 429's Retry-After and retries, a bounded number of times", async () => {
    const many = Array.from(
      { length: 10 },
      () => new Response("", { status: 429, headers: { "retry-after": "2" } }),
    );
    const { fetch, requests } = scripted(...many);
    const { t, sleeps } = transport(fetch);
    const scope = new CheckScope("lookup-scan/x");
    const response = await t.bind(scope)(`${URL_}/lookups/acme/_scan`, { method: "POST" });
    expect(response.status).toBe(429);
    expect(requests).toHaveLength(1 + MAX_RATE_LIMIT_RETRIES);
    expect(sleeps).toEqual(Array(MAX_RATE_LIMIT_RETRIES).fill(2000));
    expect(scope.exchanges.at(-1)?.note).toMatch(/retry 3 after 429/);
  });

  it("does not wait longer than its budget: a long Retry-After comes back as the answer, noted", async () => {
    const { fetch, requests } = scripted(
      new Response("", { status: 429, headers: { "retry-after": "3600" } }),
    );
    const { t, sleeps } = transport(fetch);
    const scope = new CheckScope("service/x");
    expect((await t.bind(scope)(`${URL_}/status`)).status).toBe(429);
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(scope.exchanges[0]?.note).toMatch(/not retried/);
  });

  it.each([
    ["a check that declares it judges 429s", "token-quota/refusal-429", {}],
    ["a request marked x-lckit-no-retry", "service/x", { [NO_RETRY_HEADER]: "1" }],
  ])("lets %s see its 429s", async (_name, checkId, headers) => {
    const { fetch, requests } = scripted(new Response("", { status: 429, headers: { "retry-after": "1" } }));
    const { t } = transport(fetch, { judgesRateLimits: (id) => id === "token-quota/refusal-429" });
    const response = await t.bind(new CheckScope(checkId))(`${URL_}/oauth/token`, {
      method: "POST",
      headers,
    });
    expect(response.status).toBe(429);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers.has(NO_RETRY_HEADER)).toBe(false);
  });

  it("waits out a 429 of any other request for a check that judges the token endpoint's", async () => {
    // A gateway's rate limit on a data request is no quota refusal: only the token endpoint answers those.
    const { fetch, requests } = scripted(new Response("", { status: 429, headers: { "retry-after": "0" } }));
    const { t } = transport(fetch, { judgesRateLimits: (id) => id === "token-quota/refusal-429" });
    const response = await t.bind(new CheckScope("token-quota/refusal-429"))(`${URL_}/lookups/acme/_scan`, {
      method: "POST",
    });
    expect(response.status).toBe(200);
    expect(requests).toHaveLength(2);
  });

  it("does not learn a short secret-field value, which would blank the word all over the report", async () => {
    const { t } = transport(async (request) =>
      request.url.endsWith("/clients")
        ? new Response('{"clientSecret":"none"}')
        : new Response('{"mode":"none"}'),
    );
    const scope = new CheckScope("c/short");
    await t.bind(scope)(`${URL_}/oauth/customers/c/clients`);
    await t.bind(scope)(`${URL_}/status`);
    expect(scope.exchanges[0]?.response?.body).toBe('{"clientSecret":"[redacted]"}');
    expect(scope.exchanges[1]?.response?.body).toBe('{"mode":"none"}');
  });

  it("keeps a check's newest exchanges only", async () => {
    const { t } = transport(async () => new Response("{}"));
    const scope = new CheckScope("c/many");
    const fetch = t.bind(scope);
    for (let i = 0; i < 30; i++) await fetch(`${URL_}/status?i=${i}`);
    expect(scope.exchanges).toHaveLength(SCOPE_EXCHANGES);
    expect(scope.exchanges.at(-1)?.request.url).toContain("i=29");
    expect(scope.requests).toBe(30);
  });

  it("redacts tokens it sees in answers, even JSON-escaped inside a string, from later evidence", async () => {
    const token = "tok-0123456789-abcdef";
    const { t } = transport(
      async (request) =>
        new Response(
          request.url.endsWith("/oauth/token")
            ? JSON.stringify({ debug: JSON.stringify({ access_token: token }) })
            : `you sent ${token}`,
        ),
    );
    const scope = new CheckScope("c/echo");
    await t.bind(scope)(`${URL_}/oauth/token`, { method: "POST" });
    await t.bind(scope)(`${URL_}/status`);
    expect(JSON.stringify(scope.exchanges)).not.toContain(token);
  });

  it("redacts an answer when it is first read, however it is read, with every secret known by then", async () => {
    const early = "tok-early-0123456789";
    const late = "tok-late-9876543210";
    const redactor = new Redactor();
    redactor.addSecret(early);
    const body = `echo ${early} and ${late} ${"x".repeat(300_000)}`;
    const { t } = transport(async () => new Response(body, { headers: { "x-echo": early } }), { redactor });
    const scope = new CheckScope("c/lazy");
    await t.bind(scope)(`${URL_}/status`);
    await t.bind(scope)(`${URL_}/status`);
    // Learnt after the answers were recorded, before they are read: redacted all the same.
    redactor.addSecret(late);
    const [spread, whole] = scope.exchanges as [Exchange, Exchange];
    const copies = [
      JSON.stringify(whole),
      JSON.stringify({ ...spread }),
      JSON.stringify(structuredClone(whole)),
    ];
    for (const copy of copies) {
      expect(copy).not.toContain(early);
      expect(copy).not.toContain(late);
      expect(copy).toContain("echo [redacted] and [redacted]");
    }
    // Read once, the answer is a plain value: cut to the log's limit, the cut said, headers redacted.
    expect(Object.getOwnPropertyDescriptor(whole, "response")?.get).toBeUndefined();
    expect(whole.response?.bodyTruncated).toBe(true);
    expect(whole.response?.body.length).toBeLessThan(body.length);
    expect(whole.response?.headers["x-echo"]).toBe("[redacted]");
    expect(Object.keys(whole)).toEqual(["check", "id", "request", "durationMs", "response"]);
  });
});

describe("ExchangeLog", () => {
  const exchange = (path: string, status: number, bytes: number): Exchange => ({
    request: { method: "POST", url: `${URL_}${path}`, headers: {} },
    response: { status, headers: {}, body: "x".repeat(bytes) },
    durationMs: 1,
  });

  it("stays within its byte budget under fat pages, keeping the rare kinds", () => {
    const log = new ExchangeLog(4 * 1024 * 1024);
    log.add(exchange("/status", 500, 100));
    log.add(exchange("/version", 200, 100));
    for (let i = 0; i < 500; i++) log.add(exchange("/lookups/acme/_scan", 200, 200 * 1024));
    expect(log.size.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    const kept = log.all();
    expect(kept.some((x) => x.response?.status === 500)).toBe(true);
    expect(kept.some((x) => x.request.url.endsWith("/version"))).toBe(true);
    expect(kept.filter((x) => x.request.url.endsWith("_scan")).length).toBeGreaterThan(0);
  });

  it("keeps the first few and the newest few of each kind, in order", () => {
    const log = new ExchangeLog();
    for (let i = 0; i < 100; i++) log.add(exchange(`/status`, 200, i));
    const kept = log.all().map((x) => x.response?.body.length);
    expect(kept).toEqual([0, 1, 2, 3, ...Array.from({ length: 16 }, (_, i) => 84 + i)]);
  });

  it("keeps a kind's first answer, malformed, behind many later good ones", () => {
    const log = new ExchangeLog();
    log.add({ ...exchange("/healthcheck", 200, 0), response: { status: 200, headers: {}, body: "{" } });
    for (let i = 0; i < 200; i++) log.add(exchange("/healthcheck", 200, 10));
    expect(log.all()[0]?.response?.body).toBe("{");
  });

  it("under the byte budget evicts newest pools before first answers", () => {
    const log = new ExchangeLog(2 * 1024 * 1024);
    log.add(exchange("/lookups/acme/_scan", 200, 50));
    for (let i = 0; i < 200; i++) log.add(exchange("/lookups/acme/_scan", 200, 100 * 1024));
    expect(log.size.bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(log.all()[0]?.response?.body.length).toBe(50);
  });
});

describe("on loopback sockets", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
  const serve = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const live = (options: Partial<TransportOptions> = {}) => transport((request) => fetch(request), options).t;

  it("never follows a redirect, even a 307 with a body to another origin; the evidence says so", async () => {
    const hits: string[] = [];
    const elsewhere = await serve((req, res) => {
      hits.push(req.url ?? "");
      res.end("{}");
    });
    const origin = await serve((req, res) => {
      req.resume();
      res.writeHead(307, { location: `${elsewhere}/steal` }).end();
    });
    const scope = new CheckScope("c/redirect");
    const response = await live().bind(scope)(`${origin}/lookups/acme/_scan`, {
      method: "POST",
      headers: { authorization: "Bearer secret-token-value", "content-type": "application/json" },
      body: '{"scrollId":"x"}',
    });
    expect(response.status).toBe(307);
    expect(hits).toEqual([]);
    expect(scope.exchanges[0]?.note).toMatch(/redirect to another origin .* not followed/);
    expect(scope.exchanges[0]?.response?.headers.location).toBe(`${elsewhere}/steal`);
  });

  it("sends oversized and malformed bodies on a connection of their own, then reuses the pool", async () => {
    const seen: { connection: string | undefined; port: number | undefined }[] = [];
    const url = await serve((req, res) => {
      seen.push({ connection: req.headers.connection, port: req.socket.remotePort });
      req.resume();
      req.on("end", () => res.end("{}"));
    });
    const fetch = live().bind(new CheckScope("c/isolate"));
    await fetch(`${url}/a`);
    await fetch(`${url}/b`, { method: "POST", body: "x".repeat(200 * 1024) });
    await fetch(`${url}/c`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    await fetch(`${url}/d`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(seen.map((s) => s.connection)).toEqual(["keep-alive", "close", "close", "keep-alive"]);
    // A connection that carried an isolated request carries nothing after it.
    for (const isolated of [1, 2])
      for (const later of seen.slice(isolated + 1)) expect(later.port).not.toBe(seen[isolated]?.port);
  });
});

describe("Basic client authentication (RFC 6749 §2.3.1)", () => {
  it("form-encodes id and secret before Base64", () => {
    const header = basicAuthorization({ clientId: "a b", clientSecret: "p+q%r:s t" });
    expect(Buffer.from(header.slice(6), "base64").toString()).toBe("a+b:p%2Bq%25r%3As+t");
  });

  it("gets a token from the reference for a secret holding + % : and a space, where raw Basic fails", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-basic-"));
    try {
      cpSync(DEFAULT_FIXTURES_DIR, dir, { recursive: true });
      const file = join(dir, "clients.yaml");
      const clientId = HOSTILE_CLIENTS[2] ?? "acme-viewer";
      // Decodes cleanly either way, so only the right encoding gives back the secret.
      const clientSecret = "pa+ss %41:word";
      writeFileSync(
        file,
        readFileSync(file, "utf8").replace(
          `clientSecret: ${clientId}-secret`,
          `clientSecret: ${JSON.stringify(clientSecret)}`,
        ),
      );
      const reference = createReference({ fixturesDir: dir });
      const ask = (authorization: string) =>
        reference.fetch(
          new Request("http://ref/oauth/token", {
            method: "POST",
            headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
            body: "grant_type=client_credentials",
          }),
        );
      expect((await ask(basicAuthorization({ clientId, clientSecret }))).status).toBe(200);
      const raw = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`;
      expect((await ask(raw)).status).toBe(401);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("retryAfterMs", () => {
  it.each([
    ["seconds", "3", 3000],
    ["absent", null, 1000],
    ["garbage", "soon", 1000],
    ["a date", new Date(10_000 + 5000).toUTCString(), 5000],
  ])("%s", (_name, value, want) => {
    expect(retryAfterMs(value, 10_000 - (10_000 % 1000))).toBe(want);
  });
});
