// Token issuing for the client_credentials grant. The document does not show the endpoint; the kit's
// choice (docs/assumptions.md) is the RFC 6749 one: POST {base_url}/oauth/token, HTTP Basic client auth.
import { type ClientConfig, joinUrl, send } from "./http.ts";
import type { ApiResponse } from "./response.ts";
import type { TokenResponse } from "./types.ts";

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface TokenRequestOptions {
  /** "basic" (default): Authorization: Basic; "form": client_id and client_secret in the body. */
  clientAuth?: "basic" | "form";
  /** Default client_credentials; null sends no grant_type at all. */
  grantType?: string | null;
  /** "body" (default): grant_type in the form body; "query": in the query string, with no body. */
  grantIn?: "body" | "query";
}

/** HTTP Basic client authentication as RFC 6749 §2.3.1 defines it: client id and secret are each encoded
 *  with application/x-www-form-urlencoded (space as "+", "+" as %2B, ":" as %3A, "%" as %25) before they
 *  are joined with ":" and Base64-encoded. A server decodes them back; a secret holding "+", "%" or ":"
 *  only survives the trip this way. */
export function basicAuthorization(credentials: ClientCredentials): string {
  const raw = `${formEncode(credentials.clientId)}:${formEncode(credentials.clientSecret)}`;
  return `Basic ${Buffer.from(raw, "utf8").toString("base64")}`;
}

/** application/x-www-form-urlencoded encoding of one value. */
export function formEncode(value: string): string {
  return new URLSearchParams([["", value]]).toString().slice(1);
}

export function requestToken(
  config: ClientConfig,
  credentials: ClientCredentials,
  options: TokenRequestOptions = {},
): Promise<ApiResponse<TokenResponse>> {
  const grantType = options.grantType === undefined ? "client_credentials" : options.grantType;
  const inQuery = options.grantIn === "query";
  const form: Record<string, string> = {};
  if (grantType !== null && !inQuery) form.grant_type = grantType;
  const query = grantType !== null && inQuery ? { grant_type: grantType } : {};
  const url = joinUrl(config.baseUrl, "/oauth/token", query);
  if (options.clientAuth === "form") {
    form.client_id = credentials.clientId;
    form.client_secret = credentials.clientSecret;
  }
  const body = Object.keys(form).length > 0 ? { body: { form } } : {};
  if (options.clientAuth === "form") return send<TokenResponse>(config, "POST", url, body);
  return send<TokenResponse>(config, "POST", url, {
    ...body,
    auth: { authorization: basicAuthorization(credentials) },
  });
}

/** The access token of a successful token response, or undefined when the answer carries none. */
export function accessTokenOf(response: ApiResponse<TokenResponse>): string | undefined {
  const token = response.ok ? response.data?.access_token : undefined;
  return typeof token === "string" && token !== "" ? token : undefined;
}
