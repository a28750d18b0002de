// The tenant of a request on a tenant's path: the caller's token must cover the operation in that tenant,
// and the tenant must exist. Authorization comes first, so that a probe without rights learns nothing of
// which tenants exist.
import { accessOf, authorize } from "./auth.ts";
import type { ReferenceContext } from "./context.ts";
import { notFound } from "./errors.ts";

export function requireTenant(ctx: ReferenceContext, tenant: string): void {
  if (!ctx.state.tenants.has(tenant)) {
    throw notFound(
      `tenant "${tenant}" does not exist; known tenants are listed in the fixtures (tenants.yaml)`,
    );
  }
}

/** `tenant`, once the request may call `operationId` in it and it exists. */
export function accessibleTenant(
  ctx: ReferenceContext,
  request: Request,
  tenant: string,
  operationId: string,
): string {
  authorize(ctx, request, tenant, accessOf(operationId));
  requireTenant(ctx, tenant);
  return tenant;
}
