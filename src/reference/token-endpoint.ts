// POST {base_url}/oauth/token: OAuth 2.0 client_credentials (RFC 6749 4.4) as docs/assumptions.md fixes it.
import type { Hono } from "hono";
import type { ReferenceContext } from "./context.ts";
import { HttpError, jsonResponse } from "./errors.ts";
import { readText } from "./http-body.ts";
import { issueToken } from "./token-quota.ts";
import { decodeBase64Text } from "./web.ts";

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  return new HttpError(status, error, description, { ...NO_STORE, ...headers });
}

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  basic: boolean;
}

/** application/x-www-form-urlencoded decoding (RFC 6749 2.3.1 encodes Basic id and secret this way):
 *  "+" is a space, valid %XX runs are UTF-8 bytes, anything else stays as it is (as WHATWG URL does). */
function decodeFormComponent(text: string): string {
  return text.replace(/\+/g, " ").replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

function credentialsOf(ctx: ReferenceContext, request: Request, form: URLSearchParams): ClientCredentials {
  const header = request.headers.get("authorization");
  const formId = form.get("client_id");
  const formSecret = form.get("client_secret");
  if (header !== null && /^basic\s/i.test(header)) {
    // Both methods in one request: RFC 6749 2.3 forbids it to clients, the document does not show the token
    // request. The reference accepts it when both name the same client and secret; the variant
    // client-auth-one-method refuses it, as a strict RFC 6749 server does.
    if (formSecret !== null && ctx.variants.has("client-auth-one-method")) {
      throw oauthError(
        400,
        "invalid_request",
        "client authenticated twice (HTTP Basic and client_secret in the body); use one method",
      );
    }
    const decoded = decodeBase64Text(header.replace(/^basic\s+/i, "").trim());
    const colon = decoded.indexOf(":");
    if (colon < 0) {
      throw oauthError(
        401,
        "invalid_client",
        "the Basic credentials are not base64 of client_id:client_secret",
        {
          "www-authenticate": 'Basic realm="oauth"',
        },
      );
    }
    const basic = {
      clientId: decodeFormComponent(decoded.slice(0, colon)),
      clientSecret: decodeFormComponent(decoded.slice(colon + 1)),
      basic: true,
    };
    if (
      formSecret !== null &&
      (formSecret !== basic.clientSecret || (formId !== null && formId !== basic.clientId))
    ) {
      throw oauthError(
        400,
        "invalid_request",
        "client authenticated twice with different credentials (HTTP Basic and the body's client_id/client_secret disagree); use one method",
      );
    }
    return basic;
  }
  if (formSecret !== null && ctx.variants.has("client-auth-basic-only")) {
    throw oauthError(
      401,
      "invalid_client",
      "client authentication in the body is not supported; send HTTP Basic client_id:client_secret",
      { "www-authenticate": 'Basic realm="oauth"' },
    );
  }
  if (formId === null || formSecret === null) {
    throw oauthError(
      401,
      "invalid_client",
      "no client authentication; send HTTP Basic client_id:client_secret or the form fields client_id and client_secret",
      { "www-authenticate": 'Basic realm="oauth"' },
    );
  }
  return { clientId: formId, clientSecret: formSecret, basic: false };
}

/** With the token-rate-limit variant: token requests per client in the last second (reference clock). */
const RATE_LIMIT_PER_SECOND = 10;
const recentRequests = new WeakMap<ReferenceContext["state"], Map<string, number[]>>();

function rateLimit(ctx: ReferenceContext, clientId: string): void {
  const now = ctx.clock.now();
  const byClient = recentRequests.get(ctx.state) ?? new Map<string, number[]>();
  recentRequests.set(ctx.state, byClient);
  const recent = (byClient.get(clientId) ?? []).filter((at) => at > now - 1000);
  if (recent.length >= RATE_LIMIT_PER_SECOND) {
    byClient.set(clientId, recent);
    throw oauthError(
      429,
      "too_many_requests",
      `rate limit: more than ${RATE_LIMIT_PER_SECOND} token requests per second from client "${clientId}"; retry after 1 second`,
      { "retry-after": "1" },
    );
  }
  recent.push(now);
  byClient.set(clientId, recent);
}

export function tokenEndpointRoutes(app: Hono, ctx: ReferenceContext): void {
  app.post("/oauth/token", async (c) => {
    const request = c.req.raw;
    const text = await readText(request);
    const type = request.headers.get("content-type") ?? "";
    if (text.trim() !== "" && !type.toLowerCase().includes("application/x-www-form-urlencoded")) {
      throw oauthError(
        400,
        "invalid_request",
        `expected a body of type application/x-www-form-urlencoded (grant_type=client_credentials), got ${type || "no Content-Type"}`,
      );
    }
    const form = new URLSearchParams(text);
    const credentials = credentialsOf(ctx, request, form);
    const stored = ctx.state.clients.get(credentials.clientId);
    if (!stored || stored.client.clientSecret !== credentials.clientSecret) {
      throw oauthError(401, "invalid_client", "unknown client or wrong client secret", {
        ...(credentials.basic ? { "www-authenticate": 'Basic realm="oauth"' } : {}),
      });
    }
    const inQuery =
      ctx.faults.has("grant-in-query-refused") || ctx.variants.has("grant-type-in-query-refused")
        ? null
        : new URL(request.url).searchParams.get("grant_type");
    const grantType = form.get("grant_type") ?? inQuery;
    if ((grantType === null || grantType === "") && !ctx.faults.has("token-errors-not-rfc6749")) {
      throw oauthError(400, "invalid_request", "grant_type is missing; send grant_type=client_credentials");
    }
    if (grantType !== "client_credentials") {
      throw oauthError(
        400,
        "unsupported_grant_type",
        `grant_type "${grantType}" is not supported here; this endpoint issues tokens for client_credentials only`,
      );
    }
    if (!stored.client.authorizedGrantTypes.includes("client_credentials")) {
      throw oauthError(
        400,
        "unauthorized_client",
        `client "${credentials.clientId}" is not authorized for client_credentials (authorizedGrantTypes)`,
      );
    }
    if (ctx.variants.has("token-rate-limit")) rateLimit(ctx, credentials.clientId);
    const result = await issueToken(ctx, stored);
    if (result.kind === "refused") {
      if (ctx.faults.has("token-error-not-json")) {
        return new Response("Request declined", {
          status: 429,
          headers: { "content-type": "text/plain; charset=UTF-8", ...NO_STORE },
        });
      }
      throw new HttpError(
        429,
        "limit_exceeded",
        `Max active tokens limit exceeded: client "${credentials.clientId}" has ${result.active} active tokens (maxActiveTokensAllowed=${result.max}); wait for a token to expire or raise the quota`,
        { ...NO_STORE, "retry-after": String(result.retryAfterSeconds) },
      ).as("quota");
    }
    const { token } = result;
    const answer: Record<string, unknown> = {
      access_token: token.value,
      token_type: "bearer",
      expires_in: Math.max(1, Math.ceil((token.expiresAt - ctx.clock.now()) / 1000)),
      scope: stored.client.scope.join(" "),
    };
    if (ctx.variants.has("token-answer-minimal")) {
      answer.token_type = "Bearer";
      delete answer.scope;
    }
    if (ctx.faults.has("token-type-missing")) delete answer.token_type;
    return jsonResponse(200, answer, NO_STORE);
  });
}
