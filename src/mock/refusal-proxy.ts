// A thin HTTP layer in front of one Prism process that makes its refusals tell the truth. Prism answers an
// invalid request with the contract's first example of the refusal status (an unrelated body) and keeps the
// real reason in its `sl-violations` header; it picks 422 where the contract declares 422, so `lckit mock`
// and `lckit serve` disagreed on the same bad request. This layer:
// - turns a request-validation refusal into 400 (the kit's documented choice, the one `lckit serve` makes)
//   with an application/problem+json body naming, per violation, where (query, path, header, body), the
//   field, the rule that failed and the value sent; the body also carries `error`/`error_description`,
//   the contract's error shape, so a client that validates refusals against the contract accepts it;
// - turns Prism's security refusal (401) into the contract's invalid_token body with a Bearer challenge;
// - cuts a page's `values` to the `limit` the request asked for (Prism cannot know it: its example or
//   generated page has a fixed size), so a page never holds more records than asked;
// - passes every other answer through untouched (status, headers, body).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { forwardedRequestHeaders, HOP_BY_HOP_HEADERS } from "../http/index.ts";

/** One departure of a request from the contract, as the refusal body states it. */
export interface RequestViolation {
  /** query, path, header or body (or request when Prism names no part). */
  location: string;
  /** Dotted field name (e.g. limit, multitokenConfig.clientCredentialsMultiTokenConfig.maxActiveTokensAllowed); "" for the whole part. */
  field: string;
  /** The JSON Schema keyword that failed (maximum, type, enum, required ...). */
  rule: string;
  /** Prism's message. */
  message: string;
  /** The value the request sent there, when it sent one. */
  value?: unknown;
}

/** The status every request-validation refusal of the mock carries (docs/consumers.md). */
export const REFUSAL_STATUS = 400;

/** Error codes of `lckit serve` for query parameters, so both mocks also name the same code. */
const queryErrorCodes: Record<string, string> = {
  limit: "invalid_limit",
  offset: "invalid_offset",
  order: "invalid_order",
  filter: "invalid_filter",
};

interface PrismViolation {
  location?: unknown;
  code?: unknown;
  message?: unknown;
}

/** Parses Prism's sl-violations header; undefined when absent or not the JSON array Prism writes. */
export function parseViolationsHeader(header: string | null | undefined): PrismViolation[] | undefined {
  if (!header) return undefined;
  try {
    const parsed = JSON.parse(header) as unknown;
    return Array.isArray(parsed) ? (parsed as PrismViolation[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The violations of a request, with the values it sent, from Prism's header entries. */
export function describeViolations(
  entries: readonly PrismViolation[],
  url: URL,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: string,
): RequestViolation[] {
  let parsedBody: unknown;
  try {
    parsedBody = body === "" ? undefined : JSON.parse(body);
  } catch {
    parsedBody = Object.fromEntries(new URLSearchParams(body));
  }
  return entries.map((entry) => {
    const location = Array.isArray(entry.location) ? entry.location.map(String) : [];
    const [, part = "request", ...rest] = location;
    const violation: RequestViolation = {
      location: part,
      field: rest.join("."),
      rule: String(entry.code ?? "unknown"),
      message: String(entry.message ?? ""),
    };
    let value: unknown;
    if (part === "query" && rest[0] !== undefined) {
      const values = url.searchParams.getAll(rest[0]);
      value = values.length > 1 ? values : values[0];
    } else if (part === "header" && rest[0] !== undefined) value = headers[rest[0].toLowerCase()];
    else if (part === "body") value = rest.reduce<unknown>(step, parsedBody);
    if (value !== undefined) violation.value = value;
    return violation;
  });
}

function step(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return node[Number(key)];
  if (node !== null && typeof node === "object") return (node as Record<string, unknown>)[key];
  return undefined;
}

/** One violation in a line: `query limit: maximum (got 500): Request query parameter limit must be <= 100`. */
export function violationLine(violation: RequestViolation): string {
  const where = [violation.location, violation.field].filter((part) => part !== "").join(" ");
  const got = "value" in violation ? ` (got ${JSON.stringify(violation.value)})` : "";
  return `${where}: ${violation.rule}${got}: ${violation.message}`;
}

/** The refusal body of the mock: problem+json (RFC 9457) plus the contract's error fields. */
export function refusalBody(violations: readonly RequestViolation[]): Record<string, unknown> {
  const first = violations[0];
  const code =
    violations.length === 1 && first?.location === "query"
      ? (queryErrorCodes[first.field] ?? "validation_error")
      : "validation_error";
  const detail = violations.map(violationLine).join("; ");
  return {
    type: "urn:lckit:mock:request-validation",
    title: "The request does not match the contract",
    status: REFUSAL_STATUS,
    detail,
    error: code,
    error_description: `${detail}. Fix the request to match the contract (openapi/dist) and send it again.`,
    violations,
  };
}

/** What the proxy reports for each refusal it rewrites (for the CLI's stderr). */
export type RefusalListener = (line: string) => void;

/** A listening refusal proxy, stopped with close(). */
export interface RefusalProxy {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port and forwards every request to `upstream` (Prism), rewriting its refusals. */
export function startRefusalProxy(options: {
  host: string;
  port: number;
  upstream: string;
  onRefusal?: RefusalListener;
}): Promise<RefusalProxy> {
  const server = createServer((request, response) => {
    forward(request, response, options.upstream, options.onRefusal).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      sendJson(response, 502, "application/json", {
        error: "mock_unavailable",
        error_description: `the Prism process behind the mock did not answer (${message}); see its log on stderr`,
      });
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : options.port;
      resolve({
        server,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

async function forward(
  request: IncomingMessage,
  response: ServerResponse,
  upstream: string,
  onRefusal: RefusalListener | undefined,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const url = new URL(request.url ?? "/", upstream);
  // The next hop is Prism: it gets its own Host.
  const headers = forwardedRequestHeaders(request.headers, new Set(["host"]));
  const method = request.method ?? "GET";
  const answer = await fetch(url, {
    method,
    headers,
    ...(body.length > 0 && method !== "GET" && method !== "HEAD" ? { body } : {}),
    redirect: "manual",
    // A Prism that stops answering gets a 502 naming it, not a request that hangs.
    signal: AbortSignal.timeout(60_000),
  });
  const entries = parseViolationsHeader(answer.headers.get("sl-violations"));
  const requestEntries = entries?.filter(
    (entry) => Array.isArray(entry.location) && entry.location[0] === "request",
  );
  if (requestEntries && requestEntries.length > 0 && answer.status === 401) {
    await answer.arrayBuffer();
    const reason = requestEntries.map((entry) => String(entry.message ?? "")).join("; ");
    onRefusal?.(`401 ${method} ${url.pathname}: ${reason}`);
    response.setHeader("www-authenticate", 'Bearer error="invalid_token"');
    sendJson(response, 401, "application/json", {
      error: "invalid_token",
      error_description: `${reason}: send Authorization: Bearer <access token> (any token is accepted by the mock)`,
    });
    return;
  }
  if (requestEntries && requestEntries.length > 0 && (answer.status === 400 || answer.status === 422)) {
    await answer.arrayBuffer();
    const violations = describeViolations(requestEntries, url, request.headers, body.toString("utf8"));
    onRefusal?.(
      `${REFUSAL_STATUS} ${method} ${url.pathname}${url.search}: ${violations.map(violationLine).join("; ")}`,
    );
    sendJson(response, REFUSAL_STATUS, "application/problem+json", refusalBody(violations));
    return;
  }
  const raw = Buffer.from(await answer.arrayBuffer());
  const malformed = answer.status === 400 ? prismJsonError(raw) : undefined;
  if (malformed) {
    // Prism's own refusal of a body that is not JSON ({"error": {"code": "invalid_json"}}) is not the
    // contract's error shape: answer it as lckit serve does, naming what came.
    const sent = body.toString("utf8");
    const violations: RequestViolation[] = [
      { location: "body", field: "", rule: "json", message: malformed, value: sent.slice(0, 200) },
    ];
    onRefusal?.(
      `${REFUSAL_STATUS} ${method} ${url.pathname}${url.search}: ${violations.map(violationLine).join("; ")}`,
    );
    sendJson(response, REFUSAL_STATUS, "application/problem+json", {
      ...refusalBody(violations),
      error: "invalid_json",
      error_description: `the request body is not valid JSON (${malformed}); send a JSON document with Content-Type: application/json`,
    });
    return;
  }
  response.statusCode = answer.status;
  answer.headers.forEach((value, name) => {
    if (!HOP_BY_HOP_HEADERS.has(name) && name !== "content-length" && name !== "content-encoding")
      response.setHeader(name, value);
  });
  response.end(withinLimit(raw, answer, url));
}

/** Prism's message when `raw` is its own invalid-JSON refusal, else undefined. */
function prismJsonError(raw: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(raw.toString("utf8")) as { error?: { code?: unknown; message?: unknown } };
    if (parsed?.error?.code === "invalid_json") return String(parsed.error.message ?? "Invalid JSON");
  } catch {
    // Not Prism's JSON refusal: the answer passes through.
  }
  return undefined;
}

/** The body with its `values` array cut to the request's limit, when it is a JSON page longer than that. */
export function withinLimit(raw: Buffer, answer: Response, url: URL): Buffer {
  const limit = Number(url.searchParams.get("limit"));
  if (!answer.ok || !Number.isInteger(limit) || limit < 1) return raw;
  if (!/json/.test(answer.headers.get("content-type") ?? "")) return raw;
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    return raw;
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return raw;
  const page = body as { values?: unknown };
  if (!Array.isArray(page.values) || page.values.length <= limit) return raw;
  return Buffer.from(JSON.stringify({ ...page, values: page.values.slice(0, limit) }));
}

function sendJson(response: ServerResponse, status: number, type: string, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = status;
  response.setHeader("content-type", type);
  response.setHeader("content-length", Buffer.byteLength(text));
  response.end(text);
}
