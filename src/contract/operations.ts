// The operations of the two resolved OpenAPI documents as plain data, and path-template matching.
import { isObject } from "./ref-resolver.ts";
import { withoutQuery } from "./without-query.ts";

/** Which server an operation lives on: {base_url} (platform.yaml) or {rdm_url} (lookup-data.yaml). */
export type Host = "platform" | "lookup-data";

/** Methods the contract uses, upper case. */
export type HttpMethod = "GET" | "PUT" | "POST" | "DELETE" | "PATCH";

const methods: HttpMethod[] = ["GET", "PUT", "POST", "DELETE", "PATCH"];

/** x-kit-safety: what calling an operation does to a live system. read: nothing a check must undo;
 *  write: changes configuration; destructive: deletes data. */
export const OPERATION_SAFETY = ["read", "write", "destructive"] as const;
export type OperationSafety = (typeof OPERATION_SAFETY)[number];

/** One path/query/header parameter of an operation (path-level and operation-level merged). */
export interface ContractParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: Record<string, unknown>;
}

/** One operation of the contract, as data; `raw` is the resolved OpenAPI operation object. */
export interface ContractOperation {
  operationId: string;
  host: Host;
  method: HttpMethod;
  /** Path template, e.g. /lookups/{tenantId}/_scan. */
  path: string;
  summary: string;
  /** x-kit-roles: roles the kit assumes grant the operation ({tenantId} is the path's tenant). */
  roles: string[];
  /** x-requirements: catalogue ids the operation implements. */
  requirements: string[];
  /** x-kit-assumption ids: the operation's own first, then those of its parameters, bodies and responses. */
  assumptions: string[];
  /** x-kit-extension: true for an operation the interface document does not describe. */
  extension: boolean;
  /** x-kit-safety: what calling it does to a live system. */
  safety: OperationSafety;
  /** True when the operation requires Authorization: Bearer (every operation but the token endpoint). */
  requiresBearer: boolean;
  /** Declared response status keys ("200", "4XX", "default"), in document order. */
  statuses: string[];
  parameters: ContractParameter[];
  requestBody?: { required: boolean; contentTypes: string[] };
  raw: Record<string, unknown>;
}

/** The operations of one resolved document, as data. */
export function extractOperations(document: Record<string, unknown>, host: Host): ContractOperation[] {
  const operations: ContractOperation[] = [];
  const rootSecurity = document.security;
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const pathParameters = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of methods) {
      const raw = item[method.toLowerCase()];
      if (!isObject(raw)) continue;
      if (typeof raw.operationId !== "string")
        throw new Error(
          `${host} ${method} ${path}: operationId missing; every operation of the contract needs one`,
        );
      const security = Array.isArray(raw.security) ? raw.security : rootSecurity;
      const own = typeof raw["x-kit-assumption"] === "string" ? [raw["x-kit-assumption"]] : [];
      const body = isObject(raw.requestBody) ? raw.requestBody : undefined;
      operations.push({
        operationId: raw.operationId,
        host,
        method,
        path,
        summary: typeof raw.summary === "string" ? raw.summary : "",
        roles: strings(raw["x-kit-roles"]),
        requirements: strings(raw["x-requirements"]),
        assumptions: unique([...own, ...collectAssumptions(raw)]),
        extension: raw["x-kit-extension"] === true,
        safety: safetyOf(raw["x-kit-safety"], `${host} ${method} ${path}`),
        requiresBearer:
          Array.isArray(security) &&
          security.length > 0 &&
          security.every((entry) => isObject(entry) && "bearerAuth" in entry),
        statuses: isObject(raw.responses) ? Object.keys(raw.responses) : [],
        parameters: mergeParameters(pathParameters, Array.isArray(raw.parameters) ? raw.parameters : []),
        ...(body
          ? {
              requestBody: {
                required: body.required === true,
                contentTypes: isObject(body.content) ? Object.keys(body.content) : [],
              },
            }
          : {}),
        raw,
      });
    }
  }
  return operations;
}

function safetyOf(value: unknown, where: string): OperationSafety {
  const known = OPERATION_SAFETY.find((safety) => safety === value);
  if (known === undefined)
    throw new Error(
      `${where}: x-kit-safety is ${JSON.stringify(value)}; every operation of the contract says what calling it does: one of ${OPERATION_SAFETY.join(", ")}`,
    );
  return known;
}

/** Matches concrete paths (query and a base-path prefix tolerated) to the operations' path templates. */
export class PathMatcher {
  private readonly routes: {
    operation: ContractOperation;
    pattern: RegExp;
    names: string[];
    literals: number;
  }[];

  constructor(operations: ContractOperation[]) {
    this.routes = operations
      .map((operation) => {
        const names: string[] = [];
        const segments = operation.path.split("/").filter(Boolean);
        const source = segments
          .map((segment) =>
            segment.replace(/\{([^}]+)\}|[^{}]+/g, (part, name: string | undefined) => {
              if (name === undefined) return escapeRegExp(part);
              names.push(name);
              return "([^/]+)";
            }),
          )
          .join("/");
        const literals = segments.filter((segment) => !segment.includes("{")).length;
        return { operation, pattern: new RegExp(`^((?:/[^/]+)*?)/${source}/?$`), names, literals };
      })
      // More literal segments first: /a/stats/_scan wins over /a/{lookupType}/... when both could match.
      .sort((a, b) => b.literals - a.literals);
  }

  /** The operation serving `method concretePath` on `host`, with its decoded path parameters. */
  match(
    host: Host,
    method: string,
    concretePath: string,
  ): { operation: ContractOperation; pathParams: Record<string, string>; prefix: string } | undefined {
    const path = pathOnly(concretePath);
    const wanted = method.toUpperCase();
    let best:
      | { operation: ContractOperation; pathParams: Record<string, string>; prefix: string }
      | undefined;
    for (const route of this.routes) {
      if (route.operation.host !== host || route.operation.method !== wanted) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const pathParams: Record<string, string> = {};
      route.names.forEach((name, index) => {
        pathParams[name] = safeDecode(found[index + 2] ?? "");
      });
      const prefix = found[1] ?? "";
      if (prefix === "") return { operation: route.operation, pathParams, prefix };
      best ??= { operation: route.operation, pathParams, prefix };
    }
    return best;
  }
}

function pathOnly(concretePath: string): string {
  let path = concretePath;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) path = new URL(path).pathname;
  path = withoutQuery(path);
  return path.startsWith("/") ? path : `/${path}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function mergeParameters(pathLevel: unknown[], operationLevel: unknown[]): ContractParameter[] {
  const byKey = new Map<string, ContractParameter>();
  for (const parameter of [...pathLevel, ...operationLevel]) {
    if (!isObject(parameter) || typeof parameter.name !== "string" || typeof parameter.in !== "string")
      continue;
    byKey.set(`${parameter.in}:${parameter.name}`, {
      name: parameter.name,
      in: parameter.in as ContractParameter["in"],
      required: parameter.required === true,
      schema: isObject(parameter.schema) ? parameter.schema : {},
    });
  }
  return [...byKey.values()];
}

function collectAssumptions(node: unknown, found: string[] = [], seen = new Set<unknown>()): string[] {
  if (typeof node !== "object" || node === null || seen.has(node)) return found;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) collectAssumptions(item, found, seen);
    return found;
  }
  for (const [name, value] of Object.entries(node)) {
    if (name === "x-kit-assumption" && typeof value === "string") found.push(value);
    else if (name !== "examples" && name !== "example") collectAssumptions(value, found, seen);
  }
  return found;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
