// Test harness: a reference on a manual clock, spoken to over in-memory HTTP only (reference.fetch).
import { type Contract, loadContract } from "../../src/contract/index.ts";
import {
  createReference,
  type FaultName,
  manualClock,
  type Reference,
  type ReferenceClock,
  type ReferenceOptions,
} from "../../src/reference/index.ts";

export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: unknown;
  text: string;
}

export interface CallOptions {
  token?: string;
  /** Objects are sent as JSON; strings as they are. */
  body?: unknown;
  headers?: Record<string, string>;
}

export const SECRETS: Record<string, string> = {
  "acme-admin": "acme-admin-secret",
  "acme-editor": "acme-editor-secret",
  "acme-viewer": "acme-viewer-secret",
  "acme-quota": "acme-quota-secret",
  "globex-admin": "globex-admin-secret",
  "globex-viewer": "globex-viewer-secret",
  "legacy-admin": "legacy-admin-secret",
};

export function basic(clientId: string, secret = SECRETS[clientId] ?? ""): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`;
}

export interface Harness {
  ref: Reference;
  clock: ReferenceClock;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** POST /oauth/token with HTTP Basic for a fixture client; the raw answer. */
  requestToken(clientId: string, secret?: string): Promise<Answer>;
  /** A token for a fixture client (fails the test when none is issued). */
  token(clientId: string): Promise<string>;
  /** Pages through a scan to its end (bounded); returns the pages. */
  scanAll(
    path: string,
    token: string,
    options?: { maxPages?: number },
  ): Promise<{ pages: unknown[][]; values: unknown[] }>;
  /** Waits (bounded, real time) until the predicate holds. */
  until(predicate: () => Promise<boolean>): Promise<void>;
}

export async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json") && text !== "") body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body, text };
}

let contract: Contract | undefined;

/**
 * Every answer of the correct reference must match the OpenAPI contract: throws naming the violations.
 * Requests that map to no operation (unknown routes, wrong methods) have nothing to match.
 */
export function assertContract(method: string, path: string, a: Answer): void {
  contract ??= loadContract();
  const match =
    contract.findOperation("platform", method, path) ?? contract.findOperation("lookup-data", method, path);
  if (!match) return;
  const id = match.operation.operationId;
  const violations = contract.validateResponse(id, a.status, a.headers.get("content-type"), a.text);
  if (violations.length > 0) {
    throw new Error(
      `${method} ${path} answered ${a.status} ${a.text.slice(0, 200)}, which violates the contract of ${id}: ${violations
        .map((v) => `${v.instancePath || "/"} ${v.message}`)
        .join("; ")}`,
    );
  }
}

export function setup(options: ReferenceOptions & { faults?: FaultName[] } = {}): Harness {
  const clock = options.clock ?? manualClock();
  const ref = createReference({ ...options, clock });
  const cache = new Map<string, string>();

  async function call(method: string, path: string, o: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (typeof o.body === "string") body = o.body;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const a = await answer(
      await ref.fetch(new Request(`http://reference.test${path}`, { method, headers, body })),
    );
    // Seeded faults break rules on purpose, sometimes the contract too; the correct reference never may.
    // Variants take choices the kit's contract does not pin (other statuses, bodies): no contract there.
    if (!options.faults?.length && !options.variants?.length) assertContract(method, path, a);
    return a;
  }

  async function requestToken(clientId: string, secret?: string): Promise<Answer> {
    return call("POST", "/oauth/token", {
      headers: {
        authorization: basic(clientId, secret),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
  }

  async function token(clientId: string): Promise<string> {
    const cached = cache.get(clientId);
    if (cached) return cached;
    const a = await requestToken(clientId);
    if (a.status !== 200) throw new Error(`no token for ${clientId}: ${a.status} ${a.text}`);
    const value = (a.body as { access_token: string }).access_token;
    cache.set(clientId, value);
    return value;
  }

  async function scanAll(path: string, token: string, { maxPages = 10_000 } = {}) {
    const pages: unknown[][] = [];
    let scrollId: string | undefined;
    for (let i = 0; i < maxPages; i++) {
      const a = await call("POST", path, { token, body: scrollId === undefined ? undefined : { scrollId } });
      if (a.status !== 200) throw new Error(`scan page ${i} answered ${a.status}: ${a.text}`);
      const page = a.body as { scrollId?: string; values: unknown[] };
      pages.push(page.values);
      if (page.scrollId === undefined || page.values.length === 0) return { pages, values: pages.flat() };
      scrollId = page.scrollId;
    }
    throw new Error(`scan of ${path} did not end within ${maxPages} pages`);
  }

  async function until(predicate: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await predicate()) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("condition not reached within 1 s");
  }

  return { ref, clock, call, requestToken, token, scanAll, until };
}

export const HOUR = 3_600_000;
