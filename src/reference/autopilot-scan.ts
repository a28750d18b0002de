// POST {base_url}/configuration/{tenantId}/autopilot/stats/_scan and .../stats/{lookupType}/_scan
import type { Hono } from "hono";
import { lookupTypeName } from "../contract/lookup-type.ts";
import type { ReferenceContext } from "./context.ts";
import { recordPresenter } from "./record-variants.ts";
import { scan } from "./scan.ts";
import { accessibleTenant } from "./tenant-access.ts";
import type { Statistic } from "./types.ts";

/** The statistics as both scans serve them. */
function served(ctx: ReferenceContext, statistics: readonly Statistic[]): readonly object[] {
  if (!ctx.faults.has("statistic-field-wrong-type")) return statistics;
  return statistics.map((s) => ({ ...s, centroidMatch: String(s.centroidMatch) }));
}

/** The variant type-scan-without-dcrid: the lookup-type scan's records lack dcrId, for its filters too. */
function withoutDcrId(ctx: ReferenceContext, statistics: readonly object[]): readonly object[] {
  if (!ctx.variants.has("type-scan-without-dcrid")) return statistics;
  return statistics.map((s) => {
    const { dcrId: _, ...rest } = s as Statistic;
    return rest;
  });
}

export function autopilotScanRoutes(app: Hono, ctx: ReferenceContext): void {
  app.post("/configuration/:tenantId/autopilot/stats/_scan", (c) => {
    const tenant = accessibleTenant(ctx, c.req.raw, c.req.param("tenantId"), "scanAutopilotStats");
    return scan(ctx, c.req.raw, {
      scope: `stats:${tenant}`,
      records: () => served(ctx, ctx.state.statistics.get(tenant) ?? []),
      filterOptions: { typePaths: ["lookupType"] },
      present: recordPresenter(ctx, "statistic"),
    });
  });

  app.post("/configuration/:tenantId/autopilot/stats/:lookupType/_scan", (c) => {
    const tenant = accessibleTenant(ctx, c.req.raw, c.req.param("tenantId"), "scanAutopilotStatsByType");
    // The path takes the type name; the URI form (percent-encoded) names the same type.
    const type = lookupTypeName(c.req.param("lookupType"));
    return scan(ctx, c.req.raw, {
      // The fault binds a per-type scroll to its tenant only: its id continues on another type's path.
      scope: ctx.faults.has("type-scroll-id-continues-on-other-type")
        ? `stats:${tenant}:*`
        : `stats:${tenant}:${type}`,
      records: () => withoutDcrId(ctx, served(ctx, ctx.state.statistics.get(tenant) ?? [])),
      // A predicate, not a filtered copy: the scroll keeps positions of the matching statistics only.
      where: ctx.faults.has("autopilot-type-scan-returns-other-types")
        ? undefined
        : (s) => (s as Statistic).lookupType === type,
      filterOptions: { typePaths: ["lookupType"] },
      present: recordPresenter(ctx, "statistic"),
      sortEachPage: ctx.faults.has("autopilot-type-scan-sorts-each-page"),
    });
  });
}
