// Bearer authentication and the roles of docs/assumptions.md ("Roles"), as the contract grants them to each
// operation (x-kit-roles in openapi/, generated into operation-routes.ts).
import { operationRoutes } from "../generated/openapi/operation-routes.ts";
import type { ReferenceContext } from "./context.ts";
import { HttpError } from "./errors.ts";

/** What an operation needs in a tenant: read (scans, blocked values) or edit (delete tasks, task status). */
export type Access = "read" | "edit";

/**
 * The access an operation needs in a tenant, read from the roles the contract grants it: read where
 * ROLE_RDM may call it, edit where ROLE_RDM_EDIT is the least role. Configuration operations, which only a
 * tenant admin may call, are authorized by customer (customer-config.ts) and have no access of this kind.
 */
export function accessOf(operationId: string): Access {
  const route = operationRoutes.find((r) => r.operationId === operationId);
  if (!route)
    throw new Error(
      `unknown operationId "${operationId}"; the contract has: ${operationRoutes.map((r) => r.operationId).join(", ")}`,
    );
  const roles = route.roles;
  if (roles.includes("ROLE_RDM")) return "read";
  if (roles.includes("ROLE_RDM_EDIT")) return "edit";
  throw new Error(
    `${operationId} is granted to ${roles.join(", ") || "no role"} by the contract, neither ROLE_RDM nor ROLE_RDM_EDIT; authorize it by customer as the configuration operations are`,
  );
}

export interface Principal {
  clientId: string;
  /** Tenants of the client's customer: where ROLE_RDM / ROLE_RDM_EDIT hold. */
  tenants: readonly string[];
  authorities: readonly string[];
  /** Only with a fault accepting missing or malformed tokens: a request without a valid token. */
  anonymous: boolean;
}

function unauthorized(description: string, challenge: string): HttpError {
  return new HttpError(401, "invalid_token", description, { "www-authenticate": challenge });
}

function pathOf(request: Request): string {
  return new URL(request.url).pathname;
}

const ANONYMOUS: Principal = { clientId: "anonymous", tenants: [], authorities: [], anonymous: true };

/** The caller behind the Authorization header; 401 when it is missing, malformed, unknown or expired. */
export function authenticate(ctx: ReferenceContext, request: Request): Principal {
  const header = request.headers.get("authorization");
  if (header === null || header.trim() === "") {
    if (ctx.faults.has("missing-auth-accepted")) return ANONYMOUS;
    // The fault: a scan's continuation page (a request with a JSON body on a _scan path) is served without
    // a token.
    if (
      ctx.faults.has("scan-continuation-without-token-served") &&
      /\/_scan$/.test(pathOf(request)) &&
      (request.headers.get("content-type") ?? "").includes("json")
    )
      return ANONYMOUS;
    throw unauthorized(
      "no Authorization header; send Authorization: Bearer <access token> (get one from POST /oauth/token)",
      'Bearer realm="lckit"',
    ).as("missing-token");
  }
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw unauthorized(
      "the Authorization header is not of the form Bearer <access token>",
      'Bearer realm="lckit", error="invalid_request", error_description="Expected Bearer <access token>"',
    );
  }
  const token = ctx.state.tokens.get(match[1] as string);
  if (!token) {
    if (ctx.faults.has("malformed-token-accepted")) return ANONYMOUS;
    // The fault: the blocked-values endpoint checks only the header's form.
    if (
      ctx.faults.has("malformed-token-accepted-on-blocked-values") &&
      /\/blockedValues$/.test(pathOf(request))
    )
      return ANONYMOUS;
    throw unauthorized(
      "the access token is not known (never issued by this service); request one from POST /oauth/token",
      'Bearer realm="lckit", error="invalid_token", error_description="The access token is not valid"',
    );
  }
  const stored = ctx.state.clients.get(token.clientId);
  // The faults: the expiry is never looked at; not on the platform paths ({base_url}: autopilot,
  // configuration); not for the tokens of tenant admins.
  const expiryIgnored =
    ctx.faults.has("expired-token-accepted") ||
    (ctx.faults.has("expired-token-accepted-outside-lookups") &&
      /^\/(configuration|oauth)\//.test(pathOf(request))) ||
    (ctx.faults.has("expired-admin-token-accepted") &&
      (stored?.client.authorities ?? []).some((a) => a.startsWith(TENANT_ADMIN_PREFIX)));
  if (token.expiresAt <= ctx.clock.now() && !expiryIgnored) {
    throw unauthorized(
      `the access token expired at ${new Date(token.expiresAt).toISOString()}; request a new one from POST /oauth/token`,
      'Bearer error="invalid_token", error_description="The access token expired"',
    ).as("expired-token");
  }
  const customer = stored ? ctx.state.customers.get(stored.customerId) : undefined;
  return {
    clientId: token.clientId,
    tenants: customer?.tenants ?? [],
    authorities: stored?.client.authorities ?? [],
    anonymous: false,
  };
}

/** The authority that administers a tenant is this prefix and the tenant id. */
export const TENANT_ADMIN_PREFIX = "ROLE_ADMIN_TENANT_";

export function isTenantAdmin(principal: Principal, tenant: string): boolean {
  return principal.authorities.includes(`${TENANT_ADMIN_PREFIX}${tenant}`);
}

/** Whether the caller may do `access` in `tenant`. */
function allowed(ctx: ReferenceContext, principal: Principal, tenant: string, access: Access): boolean {
  if (principal.anonymous || isTenantAdmin(principal, tenant)) return true;
  const has = (role: string) => principal.authorities.includes(role);
  const onList = principal.tenants.includes(tenant);
  if (access === "read") {
    const rdm = has("ROLE_RDM") || has("ROLE_RDM_EDIT");
    return rdm && (onList || ctx.faults.has("cross-tenant-read"));
  }
  const editor =
    (has("ROLE_RDM_EDIT") && !ctx.faults.has("editor-delete-refused")) ||
    (has("ROLE_RDM") && ctx.faults.has("viewer-allowed-to-delete"));
  return editor && onList;
}

/** Authenticates and checks the role for an operation in a tenant: 401, 403 or the caller. */
export function authorize(
  ctx: ReferenceContext,
  request: Request,
  tenant: string,
  access: Access,
): Principal {
  const principal = authenticate(ctx, request);
  if (!allowed(ctx, principal, tenant, access)) {
    const need =
      access === "read"
        ? `ROLE_RDM or ROLE_RDM_EDIT with tenant "${tenant}" on the client's tenant list, or ROLE_ADMIN_TENANT_${tenant}`
        : `ROLE_RDM_EDIT with tenant "${tenant}" on the client's tenant list, or ROLE_ADMIN_TENANT_${tenant}`;
    const error = new HttpError(
      403,
      "forbidden",
      `client "${principal.clientId}" may not ${access === "read" ? "read" : "change"} tenant "${tenant}"; this needs ${need}`,
    );
    // A tenant off the caller's list is one a deployment may hide (variant tenant-refused-404); a role
    // too weak in the caller's own tenant is always a 403.
    throw principal.tenants.includes(tenant) ? error : error.as("tenant-refused");
  }
  return principal;
}
