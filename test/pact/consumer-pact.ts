// Shared by the consumer tests: one PactV4 per test file, written to a private directory and published to
// pacts/ only when every interaction of the file passed (atomically, so a verification running in parallel
// never reads a half-written pact).
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { PactV4, type V3MockServer } from "@pact-foundation/pact";
import { type ConsumerPact as CorePact, makeConsumerPact } from "@pact-foundation/pact-core";
import { createClient } from "../../src/client/index.ts";
import { DEFAULT_PACT_DIR, PROVIDER_NAME, pactFileName } from "../../src/pact/provider.ts";

process.env.PACT_DO_NOT_TRACK = "true";

export const repositoryRoot = new URL("../..", import.meta.url).pathname;
export const pactDir = join(repositoryRoot, DEFAULT_PACT_DIR);

export interface ConsumerPact {
  pact: PactV4;
  /** Writes the pact to pacts/ when it holds exactly `descriptions`; throws (naming what is missing) otherwise. */
  publish(descriptions: readonly string[]): string;
}

export function consumerPact(consumer: string): ConsumerPact {
  const dir = mkdtempSync(join(tmpdir(), "lckit-pact-"));
  // host: the mock server binds loopback only.
  const pact = new PactV4({ consumer, provider: PROVIDER_NAME, dir, host: "127.0.0.1", logLevel: "warn" });
  return {
    pact,
    publish(descriptions) {
      const name = pactFileName(consumer);
      try {
        const written = JSON.parse(readFileSync(join(dir, name), "utf8")) as {
          interactions?: { description?: string }[];
        };
        const got = new Set((written.interactions ?? []).map((i) => i.description));
        const missing = descriptions.filter((d) => !got.has(d));
        if (missing.length > 0 || got.size !== descriptions.length)
          throw new Error(`not publishing ${name}: interactions missing or failed: ${missing.join("; ")}`);
        mkdirSync(pactDir, { recursive: true });
        const target = join(pactDir, name);
        writeFileSync(`${target}.tmp`, readFileSync(join(dir, name)));
        renameSync(`${target}.tmp`, target);
        return target;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A form body (application/x-www-form-urlencoded) in a V4 request. pact-js 16 offers form bodies only as
 * binary content, whose content-type detection calls the text "text/plain" and fails the match; the
 * builder's interaction takes the body as text with its content type (see pact-js issue #1233).
 */
export function formBody(builder: unknown, body: string): void {
  const interaction = (builder as unknown as { interaction?: { withRequestBody?: unknown } }).interaction;
  if (typeof interaction?.withRequestBody !== "function")
    throw new Error(
      "pact-js changed: the request builder has no interaction.withRequestBody; update formBody()",
    );
  (interaction.withRequestBody as (body: string, contentType: string) => void).call(
    interaction,
    body,
    "application/x-www-form-urlencoded",
  );
}

/** Authorization header value of HTTP Basic client authentication. */
export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`;
}

/**
 * The kit's client against one test's mock server. Every request closes its connection: each test starts a
 * new mock server, and the operating system may hand the next one the port of the last, so a kept-alive
 * connection in fetch's pool would carry the request to the old server and the new one would report it
 * "expected but not received" (seen in CI, about one run in twenty).
 */
export function mockServerClient(url: string) {
  const closing: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set("connection", "close");
    return fetch(input, { ...init, headers });
  };
  return createClient({ fetch: closing, baseUrl: url, rdmUrl: url });
}

let books: CorePact | undefined;

/**
 * A test body for `executeTest` that, once the body is done, waits (up to 5 s) until the mock server has booked
 * every request it answered. pact-core 19 books a match in a task of its own after the response has left, so
 * under CPU load executeTest can read the books first and fail a request it answered as "expected but not
 * received" (pact-core-mock-server#13, seen in CI one run in ~15; fixed in pact-core 20, which needs Node 22).
 * The books are read by port, through a pact handle of our own; a real mismatch still fails, 5 s later.
 */
export function booked<T>(body: (server: V3MockServer) => Promise<T>): (server: V3MockServer) => Promise<T> {
  return async (server) => {
    const value = await body(server);
    books ??= makeConsumerPact("lckit-books", "lckit-books", 4, "warn");
    const deadline = Date.now() + 5_000;
    while (!books.mockServerMatchedSuccessfully(server.port) && Date.now() < deadline) await sleep(10);
    return value;
  };
}
