// GET {base_url}/configuration/{tenantId}/autopilot/{lookupType}/blockedValues?offset&limit
import type { Hono } from "hono";
import { lookupTypeName } from "../contract/lookup-type.ts";
import { accessOf, authorize } from "./auth.ts";
import type { ReferenceContext } from "./context.ts";
import { badRequest, jsonResponse } from "./errors.ts";
import { recordPresenter } from "./record-variants.ts";
import { requireTenant } from "./tenant-access.ts";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 100;

function integerParam(
  url: URL,
  name: string,
  fallback: number,
  min: number,
  max: number,
  clamp = false,
): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  let value = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (clamp && value > max) value = max;
  if (!(value >= min && value <= max)) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw badRequest(`invalid_${name}`, `${name}: expected ${range}, got "${raw}"`);
  }
  return value;
}

/** Where a page starts: at the offset, unless a seeded fault moves it. */
function startOf(ctx: ReferenceContext, offset: number, limit: number, total: number): number {
  // With the fault, an offset at or past the end answers the last page again.
  if (ctx.faults.has("blocked-values-offset-past-end-repeats-last-page") && total > 0 && offset >= total)
    return Math.max(0, total - limit);
  // With the fault, the offset counts whole pages: it is rounded down to a multiple of the limit.
  if (ctx.faults.has("blocked-values-offset-rounded-to-page")) return offset - (offset % limit);
  return offset;
}

export function blockedValuesRoutes(app: Hono, ctx: ReferenceContext): void {
  app.get("/configuration/:tenantId/autopilot/:lookupType/blockedValues", (c) => {
    const tenant = c.req.param("tenantId");
    const type = lookupTypeName(c.req.param("lookupType"));
    // With the fault, blocked values count as configuration that needs edit rights.
    authorize(
      ctx,
      c.req.raw,
      tenant,
      ctx.faults.has("viewer-read-refused") ? "edit" : accessOf("listBlockedValues"),
    );
    requireTenant(ctx, tenant);
    const url = new URL(c.req.url);
    // The faults: a default of 50; no default once an offset is given (every value from the offset).
    const unboundedAfterOffset =
      ctx.faults.has("blocked-values-offset-without-limit-unbounded") && url.searchParams.has("offset");
    const defaultLimit = ctx.faults.has("blocked-values-default-limit-wrong")
      ? 50
      : unboundedAfterOffset
        ? Number.MAX_SAFE_INTEGER
        : DEFAULT_LIMIT;
    const offset = ctx.faults.has("blocked-values-offset-ignored")
      ? 0
      : integerParam(url, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = ctx.faults.has("blocked-values-limit-ignored")
      ? DEFAULT_LIMIT
      : integerParam(url, "limit", defaultLimit, 1, MAX_LIMIT, ctx.variants.has("limit-above-max-clamped"));
    // With the fault, the path's lookup type is not applied: every blocked value of the tenant is listed.
    const values = ctx.faults.has("blocked-values-of-every-type")
      ? [...(ctx.state.blockedValues.get(tenant)?.values() ?? [])].flat()
      : (ctx.state.blockedValues.get(tenant)?.get(type) ?? []);
    const start = startOf(ctx, offset, limit, values.length);
    const present = recordPresenter(ctx, "blocked-value");
    const page = present
      ? values.slice(start, start + limit).map(present)
      : values.slice(start, start + limit);
    if (ctx.faults.has("blocked-value-field-wrong-type")) {
      return jsonResponse(
        200,
        page.map((v) => ({
          ...v,
          createdAt: new Date((v as { createdAt: number }).createdAt).toISOString(),
        })),
      );
    }
    return jsonResponse(200, page);
  });
}
