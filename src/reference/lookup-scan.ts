// POST {rdm_url}/lookups/{tenantId}/_scan
import type { Hono } from "hono";
import { accessOf, authorize } from "./auth.ts";
import type { ReferenceContext } from "./context.ts";
import { notFound } from "./errors.ts";
import { recordPresenter } from "./record-variants.ts";
import { scan } from "./scan.ts";

export function requireTenant(ctx: ReferenceContext, tenant: string): void {
  if (!ctx.state.tenants.has(tenant)) {
    throw notFound(
      `tenant "${tenant}" does not exist; known tenants are listed in the fixtures (tenants.yaml)`,
    );
  }
}

export function lookupScanRoutes(app: Hono, ctx: ReferenceContext): void {
  app.post("/lookups/:tenantId/_scan", (c) => {
    const tenant = c.req.param("tenantId");
    authorize(ctx, c.req.raw, tenant, accessOf("scanLookups"));
    requireTenant(ctx, tenant);
    return scan(ctx, c.req.raw, {
      scope: `lookups:${tenant}`,
      records: () => {
        const lookups = ctx.state.lookups.get(tenant)?.inIdentityOrder() ?? [];
        if (!ctx.faults.has("lookup-record-field-wrong-type")) return lookups;
        return lookups.map((l) => ({ ...l, updateDate: new Date(l.updateDate).toISOString() }));
      },
      filterOptions: { typePaths: ["type"] },
      present: recordPresenter(ctx, "lookup"),
    });
  });
}
