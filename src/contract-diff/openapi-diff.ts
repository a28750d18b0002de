// Compares two versions of an OpenAPI document operation by operation: endpoints, parameters, request
// bodies (request direction) and responses (response direction). Paths are matched by their template with
// parameter names ignored, so renaming {id} to {tenantId} is no change.
import { type DocumentLoader, isRecord, type Located } from "./document-loader.ts";
import { type ContractChange, diffSchema, type SchemaDiffContext } from "./schema-diff.ts";

const methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

interface Operation {
  method: string;
  path: string;
  node: Record<string, unknown>;
  /** Path-level and operation-level parameters, operation-level winning, keyed by in:name. */
  parameters: Map<string, Located>;
  file: string;
}

function operationsOf(loader: DocumentLoader, document: Located | undefined): Map<string, Operation> {
  const found = new Map<string, Operation>();
  if (!document) return found;
  const root = loader.deref(document);
  const paths = isRecord(root.node) && isRecord(root.node.paths) ? root.node.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = loader.deref({ node: rawItem, file: root.file });
    if (!isRecord(item.node)) continue;
    // Path parameters are matched by their place in the template: a renamed {id} is the same parameter.
    const places = [...path.matchAll(/\{([^}]*)\}/g)].map((match) => match[1] ?? "");
    const shared = parametersOf(loader, item.node.parameters, item.file, places);
    for (const method of methods) {
      const operation = item.node[method];
      if (!isRecord(operation)) continue;
      const parameters = new Map([
        ...shared,
        ...parametersOf(loader, operation.parameters, item.file, places),
      ]);
      const key = `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, "{}")}`;
      found.set(key, { method: method.toUpperCase(), path, node: operation, parameters, file: item.file });
    }
  }
  return found;
}

function parametersOf(
  loader: DocumentLoader,
  list: unknown,
  file: string,
  places: readonly string[],
): Map<string, Located> {
  const found = new Map<string, Located>();
  for (const raw of Array.isArray(list) ? list : []) {
    const parameter = loader.deref({ node: raw, file });
    if (!isRecord(parameter.node)) continue;
    const name = String(parameter.node.name);
    const place = String(parameter.node.in);
    const key =
      place === "header" ? name.toLowerCase() : place === "path" ? `{${places.indexOf(name)}}` : name;
    found.set(`${place}:${key}`, parameter);
  }
  return found;
}

function contentOf(loader: DocumentLoader, located: Located | undefined): Map<string, Located> {
  const found = new Map<string, Located>();
  if (!located) return found;
  const resolved = loader.deref(located);
  const content = isRecord(resolved.node) && isRecord(resolved.node.content) ? resolved.node.content : {};
  for (const [media, value] of Object.entries(content))
    if (isRecord(value)) found.set(media, { node: value.schema ?? {}, file: resolved.file });
  return found;
}

/** Every change between two versions of one OpenAPI document (either may be absent: all added/removed). */
export function diffOpenApi(
  context: SchemaDiffContext,
  before: Located | undefined,
  after: Located | undefined,
  label: string,
): void {
  const { loader, changes } = context;
  const push = (change: ContractChange) => changes.push(change);
  const old = operationsOf(loader, before);
  const next = operationsOf(loader, after);
  const prefix = label ? `${label}: ` : "";
  for (const [key, operation] of old) {
    const name = `${prefix}${operation.method} ${operation.path}`;
    const counterpart = next.get(key);
    if (!counterpart) {
      push({ level: "breaking", kind: "endpoint-removed", where: name, detail: "endpoint removed" });
      continue;
    }
    diffOperation(context, operation, counterpart, name);
  }
  for (const [key, operation] of next)
    if (!old.has(key))
      push({
        level: "compatible",
        kind: "endpoint-added",
        where: `${prefix}${operation.method} ${operation.path}`,
        detail: "new endpoint",
      });
}

function diffOperation(context: SchemaDiffContext, old: Operation, next: Operation, name: string): void {
  const { loader, changes } = context;
  // Parameters (what consumers send).
  for (const [key, parameter] of old.parameters) {
    const where = `${name} parameter ${key}`;
    const counterpart = next.parameters.get(key);
    if (!counterpart) {
      changes.push({ level: "compatible", kind: "parameter-removed", where, detail: "no longer declared" });
      continue;
    }
    const a = parameter.node as Record<string, unknown>;
    const b = counterpart.node as Record<string, unknown>;
    if (b.required === true && a.required !== true)
      changes.push({
        level: "breaking",
        kind: "parameter-now-required",
        where,
        detail: "optional before, required now",
      });
    if (a.schema !== undefined && b.schema !== undefined)
      diffSchema(
        context,
        { node: a.schema, file: parameter.file },
        { node: b.schema, file: counterpart.file },
        "request",
        `${where} $`,
      );
  }
  for (const [key, parameter] of next.parameters)
    if (!old.parameters.has(key)) {
      const required = (parameter.node as Record<string, unknown>).required === true;
      changes.push({
        level: required ? "breaking" : "compatible",
        kind: required ? "parameter-required-added" : "parameter-added",
        where: `${name} parameter ${key}`,
        detail: required ? "new required parameter" : "new optional parameter",
      });
    }

  // Request body.
  const bodyA =
    old.node.requestBody === undefined
      ? undefined
      : loader.deref({ node: old.node.requestBody, file: old.file });
  const bodyB =
    next.node.requestBody === undefined
      ? undefined
      : loader.deref({ node: next.node.requestBody, file: next.file });
  const requiredA = isRecord(bodyA?.node) && bodyA.node.required === true;
  const requiredB = isRecord(bodyB?.node) && bodyB.node.required === true;
  if (requiredB && !requiredA)
    changes.push({
      level: "breaking",
      kind: "request-body-required",
      where: `${name} request body`,
      detail: bodyA ? "optional before, required now" : "a required request body was added",
    });
  const mediaA = contentOf(loader, bodyA);
  const mediaB = contentOf(loader, bodyB);
  for (const [media, schema] of mediaA) {
    const where = `${name} request body ${media}`;
    const counterpart = mediaB.get(media);
    if (!counterpart) {
      changes.push({ level: "breaking", kind: "media-type-removed", where, detail: "no longer accepted" });
      continue;
    }
    diffSchema(context, schema, counterpart, "request", `${where} $`);
  }
  for (const media of mediaB.keys())
    if (!mediaA.has(media))
      changes.push({
        level: "compatible",
        kind: "media-type-added",
        where: `${name} request body ${media}`,
        detail: "now also accepted",
      });

  // Responses (what consumers read).
  const responsesA = isRecord(old.node.responses) ? old.node.responses : {};
  const responsesB = isRecord(next.node.responses) ? next.node.responses : {};
  for (const [status, response] of Object.entries(responsesA)) {
    const where = `${name} response ${status}`;
    if (!(status in responsesB)) {
      const success = /^2/.test(status);
      changes.push({
        level: success ? "breaking" : "compatible",
        kind: "status-removed",
        where,
        detail: success ? "success status no longer answered" : "error status no longer declared",
      });
      continue;
    }
    const contentA = contentOf(loader, { node: response, file: old.file });
    const contentB = contentOf(loader, { node: responsesB[status], file: next.file });
    for (const [media, schema] of contentA) {
      const counterpart = contentB.get(media);
      if (!counterpart) {
        changes.push({
          level: "breaking",
          kind: "media-type-removed",
          where: `${where} ${media}`,
          detail: "no longer answered",
        });
        continue;
      }
      diffSchema(context, schema, counterpart, "response", `${where} ${media} $`);
    }
    for (const media of contentB.keys())
      if (!contentA.has(media))
        changes.push({
          level: "breaking",
          kind: "media-type-added",
          where: `${where} ${media}`,
          detail: "a media type consumers may not read",
        });
  }
  for (const status of Object.keys(responsesB))
    if (!(status in responsesA))
      changes.push({
        level: /^2/.test(status) ? "breaking" : "compatible",
        kind: "status-added",
        where: `${name} response ${status}`,
        detail: /^2/.test(status)
          ? "a new success status consumers may not handle"
          : "new error status declared",
      });
}
