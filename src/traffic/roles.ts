// Roles and tenant lists judged on traffic (Authentication / Roles): a request on a tenant its client holds
// no role in was not refused (a foreign token), a delete task was granted to a client that may only view
// the tenant, or a request was granted to a token refused the same operation on the same tenant before
// with no configuration change in between. The traffic never shows a client's roles: they are known from
// a --roles declaration or the target file, and otherwise only from the refusals seen. Where nothing is
// known the request is counted undecided, never passed.
import type { Target } from "../check/index.ts";
import type { IssuedTokenSeen } from "../rules/caller/traffic.ts";
import type { ObservedExchange, ServiceRule, ServiceRuleJudge, TokenTable } from "./service-rule.ts";
import type { Tally } from "./tally.ts";

/** What is known of one client's roles: the roles it holds and the tenants on its list. */
export interface ClientAccess {
  /** ROLE_RDM, ROLE_RDM_EDIT and ROLE_ADMIN_TENANT_{tenant} as declared. */
  roles: readonly string[];
  /** Tenants on its list (where ROLE_RDM and ROLE_RDM_EDIT hold). */
  tenants: readonly string[];
  /** Tenants known to be off its list and not administered by it. */
  lacks: readonly string[];
  /** Every tenant not named is off its list (a --roles declaration); else such a tenant is unknown. */
  complete: boolean;
  /** Where it was said, for the report: "--roles" or "the target file". */
  source: string;
}

/** What a client may do in a tenant, as the document's roles table gives it; unknown where not said. */
export type TenantAccess = "admin" | "edit" | "view" | "none" | "unknown";

export function accessIn(access: ClientAccess | undefined, tenant: string): TenantAccess {
  if (access === undefined) return "unknown";
  if (access.roles.includes(tenantAdminRole(tenant))) return "admin";
  if (access.tenants.includes(tenant)) {
    if (access.roles.includes("ROLE_RDM_EDIT")) return "edit";
    if (access.roles.includes("ROLE_RDM")) return "view";
    return "none";
  }
  return access.lacks.includes(tenant) || access.complete ? "none" : "unknown";
}

/** The authority that administers a tenant (ROLE_ADMIN_TENANT_{tenant}). */
const tenantAdminRole = (tenant: string) => `ROLE_ADMIN_TENANT_${tenant}`;

const ROLE = /^ROLE_(?:RDM|RDM_EDIT|ADMIN_TENANT_\S+)$/;

/** One --roles value, CLIENT=ROLE[,ROLE...][@TENANT[,TENANT...]]; a usage error names what is wrong. */
export function parseRolesFlag(
  raw: string,
): { clientId: string; roles: string[]; tenants: string[] } | string {
  const eq = raw.indexOf("=");
  if (eq <= 0) return "CLIENT=ROLE[,ROLE...][@TENANT[,TENANT...]] (the client id, then its roles)";
  const clientId = raw.slice(0, eq).trim();
  const [rolesPart = "", tenantsPart] = raw.slice(eq + 1).split("@");
  const roles = rolesPart
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
  const tenants = (tenantsPart ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const bad = roles.find((r) => !ROLE.test(r));
  if (roles.length === 0 || bad !== undefined)
    return `roles the document names (ROLE_RDM, ROLE_RDM_EDIT, ROLE_ADMIN_TENANT_<tenant>)${bad === undefined ? "" : `, not ${bad}`}`;
  if (roles.some((r) => r === "ROLE_RDM" || r === "ROLE_RDM_EDIT") && tenants.length === 0)
    return "the tenants on the client's list after @ (ROLE_RDM and ROLE_RDM_EDIT hold only there)";
  return { clientId, roles, tenants };
}

/** The declarations of --roles, one client each (a client named twice holds both). */
export function accessOfDeclarations(
  declared: readonly { clientId: string; roles: string[]; tenants: string[] }[],
): Map<string, ClientAccess> {
  const out = new Map<string, ClientAccess>();
  for (const d of declared) {
    const before = out.get(d.clientId);
    out.set(d.clientId, {
      roles: [...new Set([...(before?.roles ?? []), ...d.roles])],
      tenants: [...new Set([...(before?.tenants ?? []), ...d.tenants])],
      lacks: [],
      complete: true,
      source: "--roles",
    });
  }
  return out;
}

/** What a target file says of its clients whose credentials are set: the role each stands for in its
 *  tenant, and otherTenant off the lists of otherTenantLackedBy. Tenants it does not name stay unknown. */
export function accessOfTarget(target: Target): Map<string, ClientAccess> {
  const out = new Map<string, ClientAccess>();
  const lacking = (role: string) =>
    target.otherTenant !== undefined && (target.otherTenantLackedBy ?? []).includes(role as never)
      ? [target.otherTenant]
      : [];
  const add = (role: string, roles: string[], tenants: string[]) => {
    const credential = target.credentials[role as keyof typeof target.credentials];
    if (credential === undefined) return;
    out.set(credential.clientId, {
      roles,
      tenants,
      lacks: lacking(role),
      complete: false,
      source: "the target file",
    });
  };
  add("admin", [tenantAdminRole(target.tenant)], []);
  add("editor", ["ROLE_RDM_EDIT"], [target.tenant]);
  add("viewer", ["ROLE_RDM"], [target.tenant]);
  if (target.otherTenant !== undefined) add("otherAdmin", [tenantAdminRole(target.otherTenant)], []);
  if (target.rdbmsTenant !== undefined) add("rdbmsAdmin", [tenantAdminRole(target.rdbmsTenant)], []);
  return out;
}

/** The tenant an operation's path names, where it names one. */
export function tenantOfPath(pathname: string): string | undefined {
  const match =
    /\/lookups\/([^/]+)\/_scan$/.exec(pathname) ??
    /\/tasks\/([^/]+)(?:\/[^/]+)?$/.exec(pathname) ??
    /\/configuration\/([^/]+)\/autopilot\//.exec(pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return match[1];
  }
}

const CONFIGURATION_WRITES = new Set(["putCustomer", "postCustomer", "putClients"]);
const ok = (x: ObservedExchange) => x.status >= 200 && x.status < 300;
/** Refusals remembered per token, operation and tenant; the oldest forgotten past it. */
const REFUSALS_KEPT = 100_000;

export const ROLE_RULES = {
  foreignTenant: {
    id: "service/refuses-foreign-tenant",
    level: "MUST",
    title: "MUST refuse a token of a client that holds no role in the tenant the request names",
    requirements: ["AUTH-ROLES-04"],
    opportunity: "a request on a tenant its client holds no role in (known from --roles or the target file)",
    notExercised:
      "no request in the traffic named a tenant its client is known to hold no role in (declare clients' roles with --roles CLIENT=ROLE@TENANT, or the target file's credentials for lckit proxy)",
  },
  rolesKept: {
    id: "service/roles-kept",
    level: "MUST",
    title:
      "MUST refuse a delete task to a client that may only view the tenant, and keep a token's refusal while nothing is reconfigured",
    // A refusal then a grant of the same breaks whichever of the roles table's rows refused it: a tenant
    // the client holds no role in (AUTH-ROLES-04) as well as a role that does not allow the operation.
    requirements: ["AUTH-ROLES-01", "AUTH-ROLES-02", "AUTH-ROLES-03", "AUTH-ROLES-04"],
    opportunity:
      "a delete task of a client known to hold only ROLE_RDM in the tenant, or a request of a token refused (403) the same operation on the same tenant before",
    notExercised:
      "no delete task of a client known to hold only ROLE_RDM in its tenant (declare roles with --roles), and no token asked again what it was refused (403)",
  },
} satisfies Record<string, ServiceRule>;

const UNKNOWN_CLIENT = "requests granted on a tenant whose client's roles there are not known";

export class RolesJudge implements ServiceRuleJudge {
  readonly rules = Object.values(ROLE_RULES);
  /** `${token} ${operation} ${tenant}` → seq of the 403 it got; cleared by a configuration change. */
  private readonly refused = new Map<string, number>();

  constructor(
    private readonly tally: (id: string) => Tally,
    private readonly access: ReadonlyMap<string, ClientAccess>,
  ) {}

  see(x: ObservedExchange, tokens: TokenTable): void {
    const operation = x.operation as string;
    if (CONFIGURATION_WRITES.has(operation)) {
      // Roles and tenant lists may have changed: what refusals showed no longer holds.
      if (ok(x)) this.refused.clear();
      return;
    }
    const tenant = tenantOfPath(x.pathname);
    if (tenant === undefined || x.bearer === undefined || /\[redacted\]/i.test(x.bearer)) return;
    const issued = tokens(x.bearer);
    const key = `${x.bearer} ${operation} ${tenant}`;
    const clientId = issued?.clientId ?? x.clientId;
    const declared = clientId === undefined ? undefined : this.access.get(clientId);
    const granted = accessIn(declared, tenant);
    const foreign = this.tally(ROLE_RULES.foreignTenant.id);
    const roles = this.tally(ROLE_RULES.rolesKept.id);
    const viewerDeletes = operation === "createTask" && granted === "view";
    if (!ok(x)) {
      // Refused: what the rules ask where they apply, and, a 403 of a live token, a refusal to remember.
      if (granted === "none") foreign.opportunities += 1;
      if (viewerDeletes) roles.opportunities += 1;
      if (x.status === 403 && !this.expired(x, issued) && !/expired/i.test(x.responseBody)) {
        this.refused.delete(key);
        this.refused.set(key, x.seq);
        if (this.refused.size > REFUSALS_KEPT)
          this.refused.delete(this.refused.keys().next().value as string);
      }
      return;
    }
    const refusedAt = this.refused.get(key);
    if (refusedAt !== undefined) {
      roles.opportunities += 1;
      roles.violate(
        x.seq,
        `${x.method} ${x.pathname} was answered ${x.status} to the token refused it (403) at #${refusedAt}, with no customer or client configuration changed in between`,
      );
      return;
    }
    if (granted === "unknown") {
      // Nothing declared of any client: nothing to judge against (not exercised, said how to declare);
      // some declared, not this one here: undecided.
      if (this.access.size === 0) return;
      foreign.undecide(UNKNOWN_CLIENT);
      if (operation === "createTask") roles.undecide(UNKNOWN_CLIENT);
      return;
    }
    if (granted === "none") {
      foreign.opportunities += 1;
      foreign.violate(
        x.seq,
        `${x.method} ${x.pathname} on tenant ${tenant} was answered ${x.status} to client ${clientId}, which holds no role there (${declared?.source} gives it ${describe(declared)})`,
      );
      return;
    }
    if (viewerDeletes) {
      roles.opportunities += 1;
      roles.violate(
        x.seq,
        `a delete task on tenant ${tenant} was answered ${x.status} to client ${clientId}, which holds only ROLE_RDM (view access) there (${declared?.source})`,
      );
    }
  }

  /** Exchanges not judged may hold a configuration change: what refusals showed no longer holds. */
  gap(): void {
    this.refused.clear();
  }

  private expired(x: ObservedExchange, issued: IssuedTokenSeen | undefined): boolean {
    return issued !== undefined && x.at > issued.expiresAt;
  }
}

function describe(access: ClientAccess | undefined): string {
  if (access === undefined) return "nothing";
  const tenants = access.tenants.length > 0 ? ` on tenants ${access.tenants.join(", ")}` : "";
  return `${access.roles.join(", ")}${tenants}`;
}
