// Pact against contract: every HTTP interaction of a pact must be an exchange the OpenAPI documents allow
// (operation by method and path, parameters, request body, status and response body), and every message's
// contents must pass the event schemas. Matchers are judged by the example values the pact holds.
import {
  type Contract,
  type ContractOperation,
  type Host,
  loadContract,
  SchemaValidators,
} from "../contract/index.ts";
import { checkMessage } from "../events/index.ts";
import {
  bodyText,
  type PactFile,
  type PactHttpInteraction,
  type PactMessageInteraction,
  readPactFile,
} from "./pact-file.ts";

export type ViolationPart = "operation" | "request" | "response" | "message";

/** One way a pact contradicts the contract. */
export interface PactViolation {
  file: string;
  interaction: string;
  part: ViolationPart;
  /** JSON pointer into the part (body, parameter or message envelope); "" for the whole part. */
  instancePath: string;
  keyword: string;
  message: string;
}

export interface PactFileCheck {
  file: string;
  consumer: string;
  provider: string;
  interactions: number;
  violations: PactViolation[];
}

export interface ContractCheckResult {
  files: PactFileCheck[];
  violations: PactViolation[];
  ok: boolean;
}

const hosts: Host[] = ["lookup-data", "platform"];
const parameterValidators = new SchemaValidators();

/** Checks pact files (already found, see findPactFiles) against the contract. */
export function checkPactFiles(
  files: readonly string[],
  cwd: string,
  contract = loadContract(),
): ContractCheckResult {
  return summarize(files.map((file) => checkPact(readPactFile(file, cwd), contract)));
}

export function summarize(checks: PactFileCheck[]): ContractCheckResult {
  const violations = checks.flatMap((check) => check.violations);
  return { files: checks, violations, ok: violations.length === 0 };
}

export function checkPact(pact: PactFile, contract = loadContract()): PactFileCheck {
  const violations: PactViolation[] = [];
  for (const interaction of pact.interactions) {
    const add = (
      part: ViolationPart,
      found: { instancePath: string; keyword: string; message: string }[],
    ) => {
      for (const v of found)
        violations.push({ file: pact.file, interaction: interaction.description, part, ...pick(v) });
    };
    if (interaction.kind === "http") checkHttp(interaction, contract, add);
    else if (interaction.kind === "message") add("message", messageViolations(pact.file, interaction));
    else
      add("operation", [
        {
          instancePath: "",
          keyword: "type",
          message: `interaction type ${interaction.type} is not part of this interface (HTTP and asynchronous messages only)`,
        },
      ]);
  }
  return {
    file: pact.file,
    consumer: pact.consumer,
    provider: pact.provider,
    interactions: pact.interactions.length,
    violations,
  };
}

function pick(v: { instancePath: string; keyword: string; message: string }) {
  return { instancePath: v.instancePath, keyword: v.keyword, message: v.message };
}

type Found = { instancePath: string; keyword: string; message: string };

function checkHttp(
  interaction: PactHttpInteraction,
  contract: Contract,
  add: (part: ViolationPart, found: Found[]) => void,
): void {
  const { request, response } = interaction;
  const match = hosts
    .map((host) => contract.findOperation(host, request.method, request.path))
    .find((found) => found !== undefined);
  if (!match) {
    add("operation", [
      {
        instancePath: "",
        keyword: "operation",
        message: `no operation of the contract serves ${request.method} ${request.path}; see openapi/platform.yaml and openapi/lookup-data.yaml for the paths`,
      },
    ]);
    return;
  }
  const { operation, pathParams } = match;
  const requestFound: Found[] = [...parameterViolations(operation, pathParams, request.query)];
  const succeeds = response.status >= 200 && response.status < 300;
  if (operation.requiresBearer && succeeds && !request.headers.authorization) {
    requestFound.push({
      instancePath: "/headers/authorization",
      keyword: "required",
      message: `${operation.operationId} requires Authorization: Bearer <token>, but the request has none and still expects ${response.status}`,
    });
  }
  const body = request.body ? bodyText(request.body) : undefined;
  const contentType = request.body?.contentType ?? request.headers["content-type"]?.[0];
  requestFound.push(...contract.validateRequest(operation.operationId, body, contentType));
  add("request", requestFound);
  const responseType = response.body?.contentType ?? response.headers["content-type"]?.[0];
  const responseFound = contract.validateResponse(
    operation.operationId,
    response.status,
    responseType,
    response.body ? bodyText(response.body) : undefined,
  );
  // A pact's response lists only what the consumer relies on; the provider may send more (Pact's
  // Postel rule). A missing required field is therefore no contradiction; a wrong one is.
  add(
    "response",
    responseFound.filter((v) => v.keyword !== "required"),
  );
}

/** Path and query parameters against their schemas; query values are text, so numbers are coerced first. */
function parameterViolations(
  operation: ContractOperation,
  pathParams: Record<string, string>,
  query: Record<string, string[]>,
): Found[] {
  const found: Found[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== "path" && parameter.in !== "query") continue;
    const values = parameter.in === "path" ? [pathParams[parameter.name]] : query[parameter.name];
    const where = `/${parameter.in}/${parameter.name}`;
    if (values === undefined || values[0] === undefined) {
      if (parameter.required)
        found.push({
          instancePath: where,
          keyword: "required",
          message: `${parameter.in} parameter ${parameter.name} is required`,
        });
      continue;
    }
    for (const raw of values) {
      if (raw === undefined) continue;
      const value = coerce(raw, parameter.schema);
      for (const v of parameterValidators.check(
        parameter.schema,
        value,
        `${operation.operationId}/${parameter.in}/${parameter.name}`,
      )) {
        found.push({
          instancePath: where,
          keyword: v.keyword,
          message: `${parameter.in} parameter ${parameter.name}=${JSON.stringify(raw)}: ${v.message.replace(/^body ?/, "")}`,
        });
      }
    }
  }
  return found;
}

function coerce(raw: string, schema: Record<string, unknown>): unknown {
  const type = schema.type;
  if ((type === "integer" || type === "number") && raw.trim() !== "" && Number.isFinite(Number(raw)))
    return Number(raw);
  if (type === "boolean" && (raw === "true" || raw === "false")) return raw === "true";
  return raw;
}

function messageViolations(file: string, interaction: PactMessageInteraction): Found[] {
  if (!interaction.contents) {
    return [
      {
        instancePath: "",
        keyword: "required",
        message: "the message has no contents; an event message is a JSON payload",
      },
    ];
  }
  const headers = Object.fromEntries(
    Object.entries(interaction.metadata).filter(([name]) => !/^content-?type$/i.test(name)),
  );
  const body = bodyText(interaction.contents);
  const problems = checkMessage({
    position: `${file} "${interaction.description}"`,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    body: typeof body === "string" ? body : new TextDecoder().decode(body),
  });
  return problems
    .filter((problem) => problem.evidence.severity === "error")
    .map((problem) => ({
      instancePath: problem.evidence.instancePath,
      keyword: problem.evidence.keyword,
      message: `${problem.message} (${problem.requirement})`,
    }));
}

/** One line per violation: pact file, interaction, where, what. */
export function formatViolation(v: PactViolation): string {
  const where = v.instancePath === "" ? v.part : `${v.part} ${v.instancePath}`;
  return `${v.file}: "${v.interaction}": ${where}: ${v.message}`;
}
