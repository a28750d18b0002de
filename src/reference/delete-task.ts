// POST {rdm_url}/tasks/{tenantId} (delete task) and GET {rdm_url}/tasks/{tenantId}/{taskId} (kit extension).
import type { Hono } from "hono";
import { lookupTypeName, lookupTypeUri } from "../contract/lookup-type.ts";
import { accessOf, authenticate, authorize, isTenantAdmin, type Principal } from "./auth.ts";
import type { ReferenceContext } from "./context.ts";
import { forbidden, jsonResponse, notFound, validationError } from "./errors.ts";
import { describeType, readJson } from "./http-body.ts";
import { lookupKey } from "./lookup-table.ts";
import { accessibleTenant, requireTenant } from "./tenant-access.ts";
import type { DeleteParameters, Lookup, Task } from "./types.ts";
import { randomUuid } from "./web.ts";

export const MAX_URIS = 1000;

interface Selection {
  /** Type URI (rdm/lookupTypes/<name>) or undefined for every type. */
  type?: string;
  /** Lookup keys (type URI + code) or undefined for every lookup. */
  keys?: Set<string>;
  /** With the fault delete-task-follows-foreign-uris: lookup keys of other tenants, by tenant. */
  foreign?: Map<string, Set<string>>;
}

/** Validates the request body; throws a 400 naming the field. Nothing is changed before this passes. */
function parseRequest(
  tenant: string,
  body: unknown,
  anyType: boolean,
  anyTenant = false,
  skipForeign = false,
  followForeign = false,
): { parameters: DeleteParameters; selection: Selection } {
  if (body === undefined) {
    throw validationError("body", 'expected a delete task request such as {"type": "delete"}, got no body');
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw validationError("body", `expected an object such as {"type": "delete"}, got ${describeType(body)}`);
  }
  const request = body as Record<string, unknown>;
  if (request.type !== "delete" && !anyType) {
    throw validationError(
      "type",
      `expected "delete" (the only task type), got ${describeType(request.type)}`,
    );
  }
  const raw = request.parameters;
  if (raw === undefined || raw === null) return { parameters: {}, selection: {} };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw validationError("parameters", `expected an object with type and/or uris, got ${describeType(raw)}`);
  }
  const params = raw as Record<string, unknown>;
  const parameters: DeleteParameters = {};
  const selection: Selection = {};
  if (params.type !== undefined && params.type !== null) {
    if (
      typeof params.type !== "string" ||
      lookupTypeName(params.type) === "" ||
      lookupTypeName(params.type).includes("/")
    ) {
      throw validationError(
        "parameters.type",
        `expected a lookup type URI such as rdm/lookupTypes/Country, got ${describeType(params.type)}`,
      );
    }
    parameters.type = params.type;
    selection.type = lookupTypeUri(lookupTypeName(params.type));
  }
  if (params.uris !== undefined && params.uris !== null) {
    if (!Array.isArray(params.uris)) {
      throw validationError(
        "parameters.uris",
        `expected an array of lookup URIs, got ${describeType(params.uris)}`,
      );
    }
    if (params.uris.length > MAX_URIS) {
      throw validationError(
        "parameters.uris",
        `at most ${MAX_URIS} URIs per task, got ${params.uris.length}; split the deletion into several tasks`,
      );
    }
    const keys = new Set<string>();
    params.uris.forEach((uri: unknown, i: number) => {
      const field = `parameters.uris[${i}]`;
      if (typeof uri !== "string")
        throw validationError(field, `expected a string, got ${describeType(uri)}`);
      const first = uri.indexOf("/");
      const second = first < 0 ? -1 : uri.indexOf("/", first + 1);
      if (first <= 0 || second <= first + 1 || second === uri.length - 1) {
        throw validationError(field, `expected a lookup URI <tenant_id>/<type_name>/<code>, got "${uri}"`);
      }
      const uriTenant = uri.slice(0, first);
      // With the variant delete-task-foreign-uris-skipped another tenant's URI names nothing here.
      if (uriTenant !== tenant && skipForeign && !anyTenant) return;
      // With the fault delete-task-follows-foreign-uris it deletes that tenant's lookup.
      if (uriTenant !== tenant && followForeign) {
        selection.foreign ??= new Map();
        const keys = selection.foreign.get(uriTenant) ?? new Set<string>();
        keys.add(lookupKey(lookupTypeUri(uri.slice(first + 1, second)), uri.slice(second + 1)));
        selection.foreign.set(uriTenant, keys);
        return;
      }
      // With the fault delete-uri-tenant-ignored a URI is matched by its type and code alone.
      if (uriTenant !== tenant && !anyTenant) {
        throw validationError(
          field,
          `"${uri}" belongs to tenant "${uriTenant}", but this task is for tenant "${tenant}"; nothing was deleted`,
        );
      }
      keys.add(lookupKey(lookupTypeUri(uri.slice(first + 1, second)), uri.slice(second + 1)));
    });
    parameters.uris = params.uris as string[];
    selection.keys = keys;
  }
  return { parameters, selection };
}

function matches(lookup: Lookup, selection: Selection): boolean {
  if (selection.type !== undefined && lookup.type !== selection.type) return false;
  return selection.keys === undefined || selection.keys.has(lookupKey(lookup.type, lookup.code));
}

function run(ctx: ReferenceContext, task: Task, selection: Selection): void {
  task.status = "RUNNING";
  let effective = selection;
  if (selection.type !== undefined && ctx.faults.has("delete-by-type-removes-other-types")) {
    effective = { ...selection, type: undefined };
  }
  const tenants = ctx.faults.has("delete-touches-other-tenant")
    ? [...ctx.state.lookups.keys()]
    : [task.tenantId];
  for (const tenant of tenants) {
    const table = ctx.state.lookups.get(tenant);
    if (!table) continue;
    let doomed = table.inIdentityOrder().filter((lookup) => matches(lookup, effective));
    // A batch job that stops after its first page of the type.
    if (effective.type !== undefined && ctx.faults.has("delete-by-type-first-page-only"))
      doomed = doomed.slice(0, 100);
    if (effective.keys !== undefined && doomed[0] && ctx.faults.has("delete-by-uris-removes-more")) {
      const listed = doomed[0];
      const extra = table.inIdentityOrder().find((l) => l.type === listed.type && !doomed.includes(l));
      if (extra) doomed.push(extra);
    }
    for (const lookup of doomed) table.delete(lookup);
    // The autopilot configuration of the tenant taken for part of its lookup data.
    if (doomed.length > 0 && ctx.faults.has("delete-task-clears-blocked-values"))
      ctx.state.blockedValues.get(tenant)?.clear();
    removedOf(ctx).push(...doomed.map((lookup) => ({ tenant, lookup, at: ctx.clock.now() })));
  }
  for (const [tenant, keys] of selection.foreign ?? []) {
    const table = ctx.state.lookups.get(tenant);
    for (const lookup of table?.inIdentityOrder() ?? [])
      if (keys.has(lookupKey(lookup.type, lookup.code))) table?.delete(lookup);
  }
  task.status = "COMPLETED";
}

/** Lookups the tasks removed, with when: what the faults deleted-lookups-come-back and
 *  deleted-type-still-matches-by-name bring back. */
interface Removed {
  tenant: string;
  lookup: Lookup;
  at: number;
}
const removed = new WeakMap<ReferenceContext["state"], Removed[]>();

/** The list a reference's state keeps in `lists`, created on first use. */
function listOf<T>(lists: WeakMap<ReferenceContext["state"], T[]>, ctx: ReferenceContext): T[] {
  let list = lists.get(ctx.state);
  if (!list) {
    list = [];
    lists.set(ctx.state, list);
  }
  return list;
}

const removedOf = (ctx: ReferenceContext) => listOf(removed, ctx);

/** With deleted-lookups-come-back: how long a removed lookup stays away (a cache entry's time to live). */
export const COME_BACK_MS = 3_000;

/** With deleted-type-still-matches-by-name: the removed lookups of `type` (a bare name) of the tenant, which
 *  a scan filtered by equals(type,'<name>') still lists (an index by name the task does not update). */
export function removedOfTypeName(ctx: ReferenceContext, tenant: string, type: string): Lookup[] {
  if (!ctx.faults.has("deleted-type-still-matches-by-name")) return [];
  return (removed.get(ctx.state) ?? [])
    .filter((r) => r.tenant === tenant && lookupTypeName(r.lookup.type) === type)
    .map((r) => r.lookup);
}

/** Whether a task left a tenant without lookups (what status-degraded-when-tenant-empty reports). */
export function tenantEmptiedByTask(ctx: ReferenceContext): boolean {
  const tenants = new Set((removed.get(ctx.state) ?? []).map((r) => r.tenant));
  return [...tenants].some((tenant) => ctx.state.lookups.get(tenant)?.size === 0);
}

/** With deleted-lookups-come-back: puts back the removed lookups whose time is up. */
function comeBack(ctx: ReferenceContext): void {
  if (!ctx.faults.has("deleted-lookups-come-back")) return;
  const list = removed.get(ctx.state) ?? [];
  const now = ctx.clock.now();
  for (const r of list.filter((r) => r.at + COME_BACK_MS <= now)) {
    const table = ctx.state.lookups.get(r.tenant);
    if (table && !table.get(r.lookup.type, r.lookup.code)) table.add(r.lookup);
  }
  removed.set(
    ctx.state,
    list.filter((r) => r.at + COME_BACK_MS > now),
  );
}

/** With the delete-task-delayed variant: how long after its acceptance a task runs (reference clock). */
export const DELAYED_TASK_MS = 2_000;

interface PendingTask {
  dueAt: number;
  run: () => void;
}

const pending = new WeakMap<ReferenceContext["state"], PendingTask[]>();

const pendingOf = (ctx: ReferenceContext) => listOf(pending, ctx);

/** Runs the delayed tasks that are due; called before every request, since only requests observe them. */
export function runDueTasks(ctx: ReferenceContext): void {
  comeBack(ctx);
  const list = pending.get(ctx.state);
  if (!list || list.length === 0) return;
  const now = ctx.clock.now();
  const due = list.filter((t) => t.dueAt <= now);
  if (due.length === 0) return;
  pending.set(
    ctx.state,
    list.filter((t) => t.dueAt > now),
  );
  for (const task of due) task.run();
}

/**
 * Authorizes a delete task and reads its body. The seeded faults below authorize one form of task (without
 * URIs, or naming a type) by other rules than the rest; only they read the body first (an unreadable body
 * is authorized as the reference does, then refused as it is).
 */
async function authorizedTask(
  ctx: ReferenceContext,
  request: Request,
  tenant: string,
): Promise<{ principal: Principal; readBody: () => Promise<unknown> }> {
  const viewerByType = ctx.faults.has("viewer-delete-by-type-allowed");
  const tenantByUrisOnly = ctx.faults.has("other-tenant-delete-by-type-open");
  const adminOnlyByType = ctx.faults.has("editor-delete-by-type-refused");
  if (!(viewerByType || tenantByUrisOnly || adminOnlyByType)) {
    const principal = authorize(ctx, request, tenant, accessOf("createTask"));
    return { principal, readBody: () => readJson(request) };
  }
  let body: unknown;
  let unreadable: unknown;
  try {
    body = await readJson(request);
  } catch (error) {
    unreadable = error;
  }
  const parameters = (body as { parameters?: { type?: unknown; uris?: unknown } } | null | undefined)
    ?.parameters;
  // The form each fault treats apart: a task without URIs (the first two), a task naming a type (the third).
  const faultyForm =
    viewerByType || tenantByUrisOnly
      ? !Array.isArray(parameters?.uris)
      : typeof parameters?.type === "string";
  const principal =
    unreadable !== undefined || !faultyForm
      ? authorize(ctx, request, tenant, accessOf("createTask"))
      : faultyTaskAuthorization(ctx, request, tenant, { viewerByType, tenantByUrisOnly });
  if (unreadable !== undefined) throw unreadable;
  return { principal, readBody: async () => body };
}

/** How the faults authorize the form of task they treat apart. */
function faultyTaskAuthorization(
  ctx: ReferenceContext,
  request: Request,
  tenant: string,
  fault: { viewerByType: boolean; tenantByUrisOnly: boolean },
): Principal {
  // Deleting without URIs counted as a read: ROLE_RDM may do it.
  if (fault.viewerByType) return authorize(ctx, request, tenant, "read");
  // The tenant checked only through the URIs' tenants: the caller's own tenant stands in for the path's.
  if (fault.tenantByUrisOnly)
    return authorize(ctx, request, authenticate(ctx, request).tenants[0] ?? tenant, accessOf("createTask"));
  // Deleting by type (or the whole tenant) reserved to the tenant admin.
  const principal = authorize(ctx, request, tenant, accessOf("createTask"));
  if (!isTenantAdmin(principal, tenant))
    throw forbidden(
      `client "${principal.clientId}" may delete listed lookups only; deleting by type needs ROLE_ADMIN_TENANT_${tenant}`,
    );
  return principal;
}

export function deleteTaskRoutes(app: Hono, ctx: ReferenceContext): void {
  app.post("/tasks/:tenantId", async (c) => {
    const tenant = c.req.param("tenantId");
    const { principal, readBody } = await authorizedTask(ctx, c.req.raw, tenant);
    requireTenant(ctx, tenant);
    const request = await readBody();
    const { parameters, selection } = parseRequest(
      tenant,
      request,
      ctx.faults.has("invalid-task-type-accepted"),
      ctx.faults.has("delete-uri-tenant-ignored"),
      ctx.variants.has("delete-task-foreign-uris-skipped"),
      ctx.faults.has("delete-task-follows-foreign-uris") ||
        // The tenant list checked for the path only: an editor's URIs reach any tenant.
        (ctx.faults.has("editor-task-follows-foreign-uris") && !isTenantAdmin(principal, tenant)),
    );
    if (
      parameters.type !== undefined &&
      parameters.uris !== undefined &&
      ctx.variants.has("delete-task-one-parameter")
    )
      throw validationError("parameters", "give either parameters.type or parameters.uris, not both");
    // The fault: parameters given as an empty object select nothing (only a body without parameters is
    // read as "all lookups of the tenant").
    if (
      parameters.type === undefined &&
      parameters.uris === undefined &&
      ctx.faults.has("empty-parameters-delete-nothing") &&
      typeof (request as { parameters?: unknown } | null)?.parameters === "object"
    )
      selection.keys = new Set();
    if (parameters.type === undefined && ctx.faults.has("delete-task-without-type-refused")) {
      throw validationError("parameters.type", "required: name the lookup type to delete from");
    }
    const task: Task = {
      id: randomUuid(),
      type: "delete",
      tenantId: tenant,
      createdBy: principal.clientId,
      createdTime: ctx.clock.now(),
      status: "NOT_STARTED",
      parameters,
    };
    ctx.state.tasks.set(task.id, task);
    if (ctx.faults.has("delete-task-never-completes")) {
      // the fault: nothing is scheduled
    } else if (ctx.variants.has("delete-task-delayed")) {
      // Due on the reference's clock, so a driven clock (the embedded target) decides when it runs.
      pendingOf(ctx).push({
        dueAt: task.createdTime + DELAYED_TASK_MS,
        run: () => run(ctx, task, selection),
      });
    } else {
      // A browser timer has no unref: there it is a number.
      (setTimeout(() => run(ctx, task, selection), ctx.taskDelayMs) as { unref?: () => void }).unref?.();
    }
    const { id: _id, ...withoutId } = task;
    const body = ctx.faults.has("task-without-id") ? withoutId : { ...task };
    if (ctx.variants.has("delete-task-204")) return new Response(null, { status: 204 });
    if (ctx.variants.has("delete-task-200")) return jsonResponse(200, body);
    return jsonResponse(ctx.variants.has("delete-task-201") ? 201 : 202, body);
  });

  app.get("/tasks/:tenantId/:taskId", (c) => {
    if (ctx.variants.has("no-task-status-endpoint")) {
      throw notFound(`no endpoint GET ${new URL(c.req.url).pathname}; see the OpenAPI documents in openapi/`);
    }
    const tenant = accessibleTenant(ctx, c.req.raw, c.req.param("tenantId"), "getTask");
    const task = ctx.state.tasks.get(c.req.param("taskId"));
    if (!task || task.tenantId !== tenant) {
      throw notFound(`task "${c.req.param("taskId")}" does not exist in tenant "${tenant}"`);
    }
    if (ctx.faults.has("task-status-created-time-as-string")) {
      return jsonResponse(200, { ...task, createdTime: new Date(task.createdTime).toISOString() });
    }
    return jsonResponse(200, { ...task });
  });
}
