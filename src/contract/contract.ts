// The HTTP contract (openapi/platform.yaml, openapi/lookup-data.yaml) loaded, resolved and compiled once;
// runner, suites, mock and Pact work ask it about operations and check bodies against it.
import { join } from "node:path";
import { packagePath } from "../package-root.ts";
import { decodeBody, essence, isJsonMedia, matchMediaType } from "./media-types.ts";
import { type ContractOperation, extractOperations, type Host, PathMatcher } from "./operations.ts";
import { isObject, RefResolver } from "./ref-resolver.ts";
import { SchemaValidators, type Violation, violation } from "./violations.ts";

/** The repository's openapi/ directory (documents and components). */
export const openapiDir = packagePath("openapi");

/** The contract's documents by host. */
export const documentFiles: Record<Host, string> = {
  platform: "platform.yaml",
  "lookup-data": "lookup-data.yaml",
};

/** What findOperation answers: the operation and the concrete path's parameters. */
export interface OperationMatch {
  operation: ContractOperation;
  /** Decoded path parameters, e.g. { tenantId: "acme" }. */
  pathParams: Record<string, string>;
  /** Base-path prefix in front of the template ("" when the path is exactly the template). */
  prefix: string;
}

/** The operation a request (method and absolute or relative URL) calls, on either host; undefined when it
 *  calls none of the contract's operations. */
export function operationCalled(method: string, url: string): ContractOperation | undefined {
  const contract = loadContract();
  for (const host of ["lookup-data", "platform"] as const) {
    const match = contract.findOperation(host, method, url);
    if (match) return match.operation;
  }
  return undefined;
}

/** The loaded contract; every method is synchronous and uses validators compiled at load. */
export interface Contract {
  /** Every operation of both documents, in document order. */
  readonly operations: readonly ContractOperation[];
  /** The fully resolved OpenAPI documents (no $ref left), by host. */
  readonly documents: Readonly<Record<Host, Record<string, unknown>>>;
  /** The operation with this operationId; throws naming the known ids when there is none. */
  operation(operationId: string): ContractOperation;
  /** The operation serving `method concretePath` on `host` (query string and base-path prefix tolerated). */
  findOperation(host: Host, method: string, concretePath: string): OperationMatch | undefined;
  /**
   * Violations of a response: status not declared, content type not declared, body missing or not JSON,
   * schema violations. `body` is the raw text (string or bytes) or an already parsed value.
   */
  validateResponse(
    operationId: string,
    status: number,
    contentType: string | null | undefined,
    body: unknown,
  ): Violation[];
  /**
   * Violations of a request body (string/bytes raw, or parsed). `contentType` defaults to the operation's
   * first declared media type; an absent body (undefined or "") is a violation only when the body is required.
   */
  validateRequest(operationId: string, body: unknown, contentType?: string): Violation[];
  /** The validators the two methods above compile the contract's schemas with: a check of another part of
   *  the contract (a parameter's schema) compiles with these too, so a process compiles ajv's meta-schema
   *  and each schema once. */
  readonly validators: SchemaValidators;
}

const cache = new Map<string, Contract>();

/** The contract of `dir` (default: the repository's openapi/), loaded and compiled once per process. */
export function loadContract(dir: string = openapiDir): Contract {
  let contract = cache.get(dir);
  if (!contract) {
    contract = buildContract(dir);
    cache.set(dir, contract);
  }
  return contract;
}

function buildContract(dir: string): Contract {
  const resolver = new RefResolver();
  const documents = {
    platform: resolver.resolveDocument(join(dir, documentFiles.platform)),
    "lookup-data": resolver.resolveDocument(join(dir, documentFiles["lookup-data"])),
  };
  const operations = [
    ...extractOperations(documents.platform, "platform"),
    ...extractOperations(documents["lookup-data"], "lookup-data"),
  ];
  const byId = new Map<string, ContractOperation>();
  for (const operation of operations) {
    if (byId.has(operation.operationId))
      throw new Error(`operationId ${operation.operationId} appears twice in the contract; make it unique`);
    byId.set(operation.operationId, operation);
  }
  const matcher = new PathMatcher(operations);
  // Each body schema is compiled on its first use and cached: a process that validates a few operations
  // (most test files, `lckit serve`) does not pay for compiling all of them when it loads the contract.
  const validators = new SchemaValidators();

  const operation = (operationId: string): ContractOperation => {
    const found = byId.get(operationId);
    if (!found)
      throw new Error(
        `unknown operationId "${operationId}"; the contract has: ${[...byId.keys()].join(", ")}`,
      );
    return found;
  };

  return {
    operations,
    documents,
    operation,
    findOperation: (host, method, concretePath) => matcher.match(host, method, concretePath),
    validators,
    validateResponse(operationId, status, contentType, body) {
      const op = operation(operationId);
      const responses = isObject(op.raw.responses) ? op.raw.responses : {};
      const key = [String(status), `${String(status).charAt(0)}XX`, "default"].find((k) => k in responses);
      if (key === undefined)
        return [
          violation(
            "status",
            `status ${status} is not declared for ${operationId} (${op.method} ${op.path}); declared: ${op.statuses.join(", ")}`,
            `#/paths/${pointerEscape(op.path)}/${op.method.toLowerCase()}/responses`,
          ),
        ];
      const response = responses[key];
      const location = `#/paths/${pointerEscape(op.path)}/${op.method.toLowerCase()}/responses/${key}`;
      const content = isObject(response) && isObject(response.content) ? response.content : undefined;
      if (!content) return [];
      return checkBody(
        validators,
        content,
        contentType,
        body,
        true,
        `${location}/content`,
        `${operationId} ${status}`,
      );
    },
    validateRequest(operationId, body, contentType) {
      const op = operation(operationId);
      const location = `#/paths/${pointerEscape(op.path)}/${op.method.toLowerCase()}/requestBody`;
      const requestBody = isObject(op.raw.requestBody) ? op.raw.requestBody : undefined;
      const content = requestBody && isObject(requestBody.content) ? requestBody.content : undefined;
      if (!requestBody || !content) {
        const decoded = decodeBody(body, "text/plain");
        return "present" in decoded && decoded.present
          ? [violation("body", `${operationId} takes no request body, got one`, location)]
          : [];
      }
      const type = contentType ?? Object.keys(content)[0] ?? "application/json";
      return checkBody(
        validators,
        content,
        type,
        body,
        requestBody.required === true,
        `${location}/content`,
        `${operationId} request`,
      );
    },
  };
}

function checkBody(
  validators: SchemaValidators,
  content: Record<string, unknown>,
  contentType: string | null | undefined,
  body: unknown,
  required: boolean,
  location: string,
  what: string,
): Violation[] {
  const declared = Object.keys(content);
  const absent = body === undefined || body === "" || (body instanceof Uint8Array && body.length === 0);
  if (absent) {
    return required
      ? [violation("body", `${what}: expected a body (${declared.join(" or ")}), got none`, location)]
      : [];
  }
  if (!contentType)
    return [
      violation(
        "contentType",
        `${what}: body has no Content-Type; expected ${declared.join(" or ")}`,
        location,
      ),
    ];
  const media = matchMediaType(declared, contentType);
  if (media === undefined)
    return [
      violation(
        "contentType",
        `${what}: Content-Type ${essence(contentType)} is not declared; expected ${declared.join(" or ")}`,
        location,
      ),
    ];
  const mediaObject = content[media];
  const decoded = decodeBody(body, isJsonMedia(essence(media)) ? media : essence(contentType));
  if ("violation" in decoded)
    return [{ ...decoded.violation, schemaPath: `${location}/${pointerEscape(media)}` }];
  if (!decoded.present)
    return required ? [violation("body", `${what}: expected a body (${media}), got none`, location)] : [];
  const schema = isObject(mediaObject) && isObject(mediaObject.schema) ? mediaObject.schema : undefined;
  if (!schema) return [];
  return validators.check(schema, decoded.value, `${location}/${pointerEscape(media)}/schema`);
}

/** Every (schema, where) of an operation's request and response bodies. */
export function bodySchemas(
  operation: ContractOperation,
): { schema: Record<string, unknown>; where: string }[] {
  const found: { schema: Record<string, unknown>; where: string }[] = [];
  const collect = (content: unknown, where: string) => {
    if (!isObject(content)) return;
    for (const [media, mediaObject] of Object.entries(content))
      if (isObject(mediaObject) && isObject(mediaObject.schema))
        found.push({ schema: mediaObject.schema, where: `${where} ${media}` });
  };
  const { raw } = operation;
  if (isObject(raw.requestBody)) collect(raw.requestBody.content, `${operation.operationId} request`);
  if (isObject(raw.responses))
    for (const [status, response] of Object.entries(raw.responses))
      if (isObject(response)) collect(response.content, `${operation.operationId} ${status}`);
  return found;
}

function pointerEscape(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}
