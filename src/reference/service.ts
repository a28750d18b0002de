// GET {rdm_url}/healthcheck, /status, /version: any valid token (docs/assumptions.md, "Roles").
import type { Hono } from "hono";
import { authenticate } from "./auth.ts";
import type { ReferenceContext } from "./context.ts";
import { tenantEmptiedByTask } from "./delete-task.ts";
import { jsonResponse } from "./errors.ts";
import { uptimeSeconds } from "./web.ts";

export const SERVICE_VERSION = "2026.1.0";

export function serviceRoutes(app: Hono, ctx: ReferenceContext): void {
  // With the variant, each answer carries more than its documented key.
  const extra = (fields: Record<string, unknown>) =>
    ctx.variants.has("service-answers-extra-fields") ? fields : {};
  // With the fault, a request without an Authorization header is answered (one with a bad token is not).
  const authenticated = (request: Request) => {
    if (ctx.faults.has("service-endpoints-answer-without-token") && !request.headers.has("authorization"))
      return;
    authenticate(ctx, request);
  };
  const healthy = () => ({ status: ctx.faults.has("healthcheck-not-ok") ? "DEGRADED" : "OK" });
  app.get("/healthcheck", (c) => {
    authenticated(c.req.raw);
    return jsonResponse(200, { ...healthy(), ...extra({ checks: { store: "OK" } }) });
  });
  app.get("/status", (c) => {
    authenticated(c.req.raw);
    return jsonResponse(200, {
      status:
        ctx.faults.has("status-not-ok") ||
        // A tenant without lookups taken for a broken store.
        (ctx.faults.has("status-degraded-when-tenant-empty") && tenantEmptiedByTask(ctx))
          ? "DOWN"
          : "OK",
      ...extra({ uptimeSeconds: Math.floor(uptimeSeconds()) }),
    });
  });
  app.get("/version", (c) => {
    authenticated(c.req.raw);
    let version: string | number = SERVICE_VERSION;
    if (ctx.variants.has("version-as-number"))
      version = Number(SERVICE_VERSION.split(".").slice(0, 2).join("."));
    if (ctx.faults.has("version-not-dotted")) version = "2026-1";
    return jsonResponse(200, { "rdm-service": version, ...extra({ build: "lckit-reference" }) });
  });
}
