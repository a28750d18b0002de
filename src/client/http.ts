// The transport under every client call: an injected fetch, the two base URLs and the Authorization header.

import { trimTrailingSlashes } from "../http/trailing-slashes.ts";
import { type ApiResponse, readResponse } from "./response.ts";

export interface ClientConfig {
  fetch: typeof fetch;
  /** {base_url}: token, customer configuration and autopilot paths. */
  baseUrl: string;
  /** {rdm_url}: lookup-data service paths. */
  rdmUrl: string;
}

/** How a request authenticates: a bearer token, a raw Authorization value, or no header at all. */
export type Auth = string | { authorization: string } | null;

export type Query = Record<string, string | number | boolean | undefined>;

/** A request body: JSON (any value, including null), raw text, or a form. */
export type Body =
  | { json: unknown }
  | { text: string; contentType?: string }
  | { form: Record<string, string> };

export interface SendOptions {
  auth?: Auth;
  query?: Query;
  body?: Body;
  headers?: Record<string, string>;
}

export function joinUrl(base: string, path: string, query?: Query): string {
  const url = new URL(trimTrailingSlashes(base) + path);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

/** Path segment encoding for tenant ids, lookup types and customer ids. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

export async function send<T>(
  config: ClientConfig,
  method: string,
  url: string,
  options: SendOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  const auth = options.auth;
  if (typeof auth === "string") headers.authorization = `Bearer ${auth}`;
  else if (auth && typeof auth === "object") headers.authorization = auth.authorization;
  let body: string | undefined;
  const given = options.body;
  if (given && "json" in given) {
    body = JSON.stringify(given.json);
    headers["content-type"] = "application/json";
  } else if (given && "text" in given) {
    body = given.text;
    headers["content-type"] = given.contentType ?? "text/plain";
  } else if (given && "form" in given) {
    body = new URLSearchParams(given.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  const response = await config.fetch(url, { method, headers, body });
  return readResponse<T>({ method, url }, response);
}
