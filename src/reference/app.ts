// Assembles the two path sets ({base_url}: platform, {rdm_url}: lookup data) as Hono apps.
import { Hono } from "hono";
import type { Host } from "../contract/operations.ts";
import { operationRoutes } from "../generated/openapi/operation-routes.ts";
import { autopilotScanRoutes } from "./autopilot-scan.ts";
import { blockedValuesRoutes } from "./blocked-values.ts";
import type { ReferenceContext } from "./context.ts";
import { customerConfigRoutes } from "./customer-config.ts";
import { deleteTaskRoutes, runDueTasks } from "./delete-task.ts";
import { errorResponse, HttpError, renderError } from "./errors.ts";
import { lookupScanRoutes } from "./lookup-scan.ts";
import { serviceRoutes } from "./service.ts";
import { tokenEndpointRoutes } from "./token-endpoint.ts";

/**
 * Paths of one host and the methods they answer, as the contract declares them (generated from it; Hono's
 * :name for {name}), so a wrong method gets 405 naming the right one and a new operation needs no second
 * list here.
 */
function pathMethods(host: Host): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const operation of operationRoutes) {
    if (operation.host !== host) continue;
    const path = operation.path.replace(/\{([^}]+)\}/g, ":$1");
    paths[path] = [...(paths[path] ?? []), operation.method];
  }
  return paths;
}

function methodNotAllowed(app: Hono, paths: Record<string, string[]>): void {
  for (const [path, methods] of Object.entries(paths)) {
    app.all(path, (c) => {
      throw new HttpError(
        405,
        "method_not_allowed",
        `${c.req.method} is not supported on ${new URL(c.req.url).pathname}; use ${methods.join(" or ")}`,
        { allow: methods.join(", ") },
      );
    });
  }
}

/** Client errors of the body parser that a faulty server lets escape as a 500. */
function escapesAs500(ctx: ReferenceContext, error: HttpError): boolean {
  if (error.code === "invalid_json") return ctx.faults.has("malformed-json-500");
  return error.code === "payload_too_large" && ctx.faults.has("oversized-body-500");
}

function finish(app: Hono, ctx: ReferenceContext): Hono {
  app.notFound((c) =>
    renderError(
      ctx.variants,
      new HttpError(
        404,
        "not_found",
        `no endpoint ${c.req.method} ${new URL(c.req.url).pathname}; see the OpenAPI documents in openapi/`,
      ),
    ),
  );
  app.onError((error) => {
    if (error instanceof HttpError && !escapesAs500(ctx, error)) return renderError(ctx.variants, error);
    // A bug of the reference, not of the caller: say so instead of blaming the request.
    return errorResponse(
      500,
      "internal_error",
      `the reference failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  return app;
}

/** The operations of {base_url}: token endpoint, configuration, autopilot scans, blocked values. */
function platformRoutes(app: Hono, ctx: ReferenceContext): void {
  tokenEndpointRoutes(app, ctx);
  customerConfigRoutes(app, ctx);
  autopilotScanRoutes(app, ctx);
  blockedValuesRoutes(app, ctx);
}

/** The operations of {rdm_url}: service endpoints, delete tasks, the lookups scan. */
function rdmRoutes(app: Hono, ctx: ReferenceContext): void {
  serviceRoutes(app, ctx);
  deleteTaskRoutes(app, ctx);
  lookupScanRoutes(app, ctx);
}

/** Delayed delete tasks (a variant) run when a request finds them due. */
function dueTasksFirst(app: Hono, ctx: ReferenceContext): void {
  app.use("*", async (_c, next) => {
    runDueTasks(ctx);
    await next();
  });
}

/** The operations each document of the interface gives its own base URL. */
const ROUTES = { platform: platformRoutes, "lookup-data": rdmRoutes } as const;

/** An app serving the operations of `documents`, answering 405 to another method of their paths. */
function appOf(ctx: ReferenceContext, documents: readonly (keyof typeof ROUTES)[]): Hono {
  const app = new Hono({ strict: false });
  if (documents.includes("lookup-data")) dueTasksFirst(app, ctx);
  for (const document of documents) ROUTES[document](app, ctx);
  // One path in both documents keeps the later document's methods, as one spread of both did.
  methodNotAllowed(
    app,
    Object.fromEntries(documents.flatMap((document) => Object.entries(pathMethods(document)))),
  );
  return finish(app, ctx);
}

export const platformApp = (ctx: ReferenceContext): Hono => appOf(ctx, ["platform"]);
export const rdmApp = (ctx: ReferenceContext): Hono => appOf(ctx, ["lookup-data"]);
/** Both path sets on one app (the default: base_url == rdm_url). */
export const combinedApp = (ctx: ReferenceContext): Hono => appOf(ctx, ["platform", "lookup-data"]);
