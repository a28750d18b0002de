// POST {rdm_url}/lookups/{tenantId}/_scan
import type { Hono } from "hono";
import type { ReferenceContext } from "./context.ts";
import { removedOfTypeName } from "./delete-task.ts";
import { compareLookupIdentity } from "./lookup-table.ts";
import { recordPresenter } from "./record-variants.ts";
import { scan } from "./scan.ts";
import { accessibleTenant } from "./tenant-access.ts";

export function lookupScanRoutes(app: Hono, ctx: ReferenceContext): void {
  app.post("/lookups/:tenantId/_scan", (c) => {
    const tenant = accessibleTenant(ctx, c.req.raw, c.req.param("tenantId"), "scanLookups");
    return scan(ctx, c.req.raw, {
      scope: `lookups:${tenant}`,
      records: () => {
        const byName = /^equals\(type,'([^'/]+)'\)$/.exec(
          new URL(c.req.url).searchParams.get("filter") ?? "",
        );
        const ghosts = byName ? removedOfTypeName(ctx, tenant, byName[1] as string) : [];
        const kept = ctx.state.lookups.get(tenant)?.inIdentityOrder() ?? [];
        const lookups = ghosts.length > 0 ? [...kept, ...ghosts].sort(compareLookupIdentity) : kept;
        if (!ctx.faults.has("lookup-record-field-wrong-type")) return lookups;
        return lookups.map((l) => ({ ...l, updateDate: new Date(l.updateDate).toISOString() }));
      },
      filterOptions: { typePaths: ["type"] },
      present: recordPresenter(ctx, "lookup"),
    });
  });
}
