// GET {rdm_url}/healthcheck, /status, /version: any valid token (docs/assumptions.md, "Roles").
import type { Hono } from "hono";
import { authenticate } from "./auth.ts";
import type { ReferenceContext } from "./context.ts";
import { jsonResponse } from "./errors.ts";

export const SERVICE_VERSION = "2026.1.0";

export function serviceRoutes(app: Hono, ctx: ReferenceContext): void {
  const healthy = () => ({ status: ctx.faults.has("healthcheck-not-ok") ? "DEGRADED" : "OK" });
  app.get("/healthcheck", (c) => {
    authenticate(ctx, c.req.raw);
    return jsonResponse(200, healthy());
  });
  app.get("/status", (c) => {
    authenticate(ctx, c.req.raw);
    return jsonResponse(200, { status: ctx.faults.has("status-not-ok") ? "DOWN" : "OK" });
  });
  app.get("/version", (c) => {
    authenticate(ctx, c.req.raw);
    return jsonResponse(200, {
      "rdm-service": ctx.faults.has("version-not-dotted") ? "2026-1" : SERVICE_VERSION,
    });
  });
}
