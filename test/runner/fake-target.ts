// A tiny in-memory target for runner tests: a token endpoint, a health endpoint and misbehaving paths.
import type { Check, CheckContext, Target } from "../../src/check/index.ts";
import { lenientProfile } from "../../src/target/profile.ts";

export const SECRET = "s3cr3t-viewer-value";
export const ISSUED_TOKEN = "tok-9f8e7d6c5b4a";

export function fakeTarget(overrides: Partial<Target> = {}): Target {
  return {
    name: "fake",
    baseUrl: "http://127.0.0.1:9",
    rdmUrl: "http://127.0.0.1:9",
    tenant: "acme",
    credentials: { viewer: { clientId: "viewer-id", clientSecret: SECRET } },
    profile: lenientProfile,
    loopback: true,
    ...overrides,
  };
}

/** Answers /oauth/token (Basic auth with the fake credentials), /healthcheck, /garbage; hangs on /hang. */
export async function fakeFetch(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === "/oauth/token") {
    const expected = `Basic ${Buffer.from(`viewer-id:${SECRET}`).toString("base64")}`;
    if (request.headers.get("authorization") !== expected)
      return Response.json({ error: "invalid_client" }, { status: 401 });
    return Response.json({ access_token: ISSUED_TOKEN, token_type: "bearer", expires_in: 3600 });
  }
  if (url.pathname === "/healthcheck") {
    if (request.headers.get("authorization") !== `Bearer ${ISSUED_TOKEN}`)
      return Response.json({ error: "invalid_token" }, { status: 401 });
    return Response.json({ status: "OK", echo: `you sent ${ISSUED_TOKEN}` });
  }
  if (url.pathname === "/garbage") return new Response("\u0000\u0001<<garbage>>", { status: 200 });
  if (url.pathname === "/hang") return new Promise<Response>(() => {});
  if (url.pathname === "/reset") throw new TypeError("fetch failed", { cause: new Error("socket hang up") });
  return Response.json({ error: "not_found" }, { status: 404 });
}

export function check(
  id: string,
  run: (ctx: CheckContext) => Promise<void>,
  over: Partial<Omit<Check, "run" | "id">> = {},
): Check {
  const [suite = "sample"] = id.split("/");
  return {
    id,
    suite,
    title: `MUST behave (${id})`,
    level: "MUST",
    requirements: ["SERVICE-01"],
    safety: "read",
    needs: { roles: [] },
    run,
    ...over,
  };
}
