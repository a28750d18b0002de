// The caller rule derived from the contract's request side: every recorded request is judged against the
// contract. One to a method and path the interface does not have is a finding naming the nearest operations
// (the token endpoint is not shown, so a token request goes where the deployment says, unjudged). One to a
// lookup-data or autopilot operation the document describes is judged against that operation's path
// parameters, query parameters and body as the compiled contract (openapi/, ajv) states them, and against the
// words of the document where it is explicit and the contract cannot say it (a lookup type NAME in the path,
// the shape of a lookup URI in the delete task, paging by offset or the scrollId, not by a parameter the
// operation does not define). Where the document is silent (the token request, the scroll id's encoding,
// sort field names, the filter grammar, the lookups scan's limit bounds, a query parameter nothing relies
// on) every reasonable request passes. Where the two addresses differ, each operation is sent to its own.
// One rule, not one per mistake: each finding names the operation, the member and the document's words.
import { defineRule } from "../../check/index.ts";
import {
  type ContractOperation,
  type ContractParameter,
  LOOKUP_TYPE_PREFIX,
  loadContract,
} from "../../contract/index.ts";
import type { CallerRule, CallerRuleDeclaration, RuleVerdict, Violation } from "./caller-rule.ts";
import { verdict } from "./caller-rule.ts";
import { readDeleteTask } from "./delete-task-reading.ts";
import { nearestOperations, shownOperation, unjudgedReason } from "./nearest-operation.ts";
import { pagedMessage, undefinedParameters } from "./query-parameters.ts";
import { parseJson, remembered, type Traffic, type TrafficExchange } from "./traffic.ts";

export const REQUEST_WITHIN_CONTRACT_ID = "client/request-within-contract";

/** The document's own words for each member the rule judges (interface-spec.md), by parameter name or
 *  `operationId:name` where one operation's words differ. */
const WORDS: Record<string, string> = {
  tenantId: '"tenantId (string, required, tenant identifier)"',
  lookupType: '"lookupType (string, required, lookup type name; only for the last two endpoints)"',
  "scanLookups:limit": '"limit (integer; the sample uses 100)"',
  limit: '"limit | integer | No | page size; default 100, maximum 100"',
  "listBlockedValues:limit": '"limit (integer, optional, default 100, maximum 100)"',
  offset: '"offset (integer, optional, default 0, starting offset)"',
  order: '"order (asc or desc)"',
  filter: '"filter | string | No | filter expression"',
  sort: '"sort | string | No | sort field name"',
  task: '"type | string | Yes | Value delete"; "parameters.type | string | No | Lookup type URI (rdm/lookupTypes/<type_name>)"; "A lookup URI, as used in the delete task, has the shape <tenant_id>/<type_name>/<code>."',
};
const wordsOf = (operationId: string, name: string) =>
  WORDS[`${operationId}:${name}`] ?? WORDS[name] ?? "(the contract's schema)";

/** The operations the rule judges: the lookup-data and autopilot operations the document describes (the
 *  token endpoint's request is not shown, the customer configuration is no client's business here, and the
 *  kit's extensions are not the document's). */
function judgedOperation(operationId: string | undefined): ContractOperation | undefined {
  if (operationId === undefined) return undefined;
  const operation = loadContract().operation(operationId);
  if (operation.extension) return undefined;
  if (operation.host === "lookup-data" || operation.path.startsWith("/configuration/")) return operation;
  return undefined;
}

/** A query or path value as the contract's schema reads it: digits for an integer or number, else text. */
function typed(value: string, schema: Record<string, unknown>): unknown {
  const numeric = schema.type === "integer" || schema.type === "number";
  return numeric && /^[+-]?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
}

/** What is wrong with one parameter value, in the words a team reads (undefined: nothing). */
function parameterProblem(parameter: ContractParameter, value: string): string | undefined {
  const { schema } = parameter;
  const errors = loadContract().validators.check(schema, typed(value, schema), "#");
  const error = errors[0];
  if (error === undefined) return undefined;
  const shown = `${parameter.name}=${value}`;
  switch (error.keyword) {
    case "maximum":
      return `${shown}; the maximum is ${String(schema.maximum)}`;
    case "minimum":
      return `${shown}; the minimum is ${String(schema.minimum)}`;
    case "enum":
      return `${shown}; expected one of ${(schema.enum as unknown[]).map(String).join(", ")}`;
    case "type":
      return `${shown}; expected ${schema.type === "integer" ? "an integer" : `a ${String(schema.type)}`}`;
    case "minLength":
      return `${parameter.name} is empty`;
    default:
      return `${shown}: ${error.message.replace(/^body /, "")}`;
  }
}

const where = (x: TrafficExchange, operation: ContractOperation) =>
  `${x.method} ${x.pathname} (${operation.operationId})`;

/** A path to an autopilot operation that carries a lookup type URI where the type name goes: with its
 *  slashes it matches no operation, so the contract cannot name it. */
const TYPE_URI_IN_PATH = /\/configuration\/[^/]+\/autopilot\/(?:stats\/)?rdm\/lookupTypes\/[^/]+\//i;

/** The violations of one request against its operation's request side. Each part depends on the
 *  operation and one piece of the request alone (its path, its query, its task body), so it is read once per
 *  distinct piece: a client repeats them. */
function requestProblems(x: TrafficExchange, operation: ContractOperation): readonly string[] {
  const id = operation.operationId;
  // The operation is the one of the request's method and path (or a caller's own, for another method).
  const ofPath = x.method === operation.method ? pathRead(id, x.pathname, x) : pathProblems(x, operation);
  const ofQuery = x.search === "" ? [] : queryRead(id, x.search, x);
  const ofTask =
    id !== "createTask" ? [] : x.body === undefined ? taskProblems(x) : taskRead(x.pathname, x.body, x);
  // Most requests have nothing wrong: no list made for them.
  return ofQuery.length + ofTask.length === 0 ? ofPath : [...ofPath, ...ofQuery, ...ofTask];
}

const pathRead = remembered(
  (x: TrafficExchange) => pathProblems(x, judgedOperation(x.operation) as ContractOperation),
  10_000,
);
const queryRead = remembered(
  (x: TrafficExchange) => queryProblems(x.search, judgedOperation(x.operation) as ContractOperation),
  10_000,
);
const taskRead = remembered(taskProblems, 10_000);

function pathProblems(x: TrafficExchange, operation: ContractOperation): string[] {
  const problems: string[] = [];
  const id = operation.operationId;
  const match = loadContract().findOperation(operation.host, x.method, x.pathname);
  for (const parameter of operation.parameters.filter((p) => p.in === "path")) {
    const value = match?.pathParams[parameter.name] ?? "";
    const problem = parameterProblem(parameter, value);
    if (problem) problems.push(`path parameter ${problem}; the document: ${wordsOf(id, parameter.name)}`);
    else if (parameter.name === "lookupType" && value.startsWith(LOOKUP_TYPE_PREFIX))
      problems.push(
        `path parameter lookupType is the lookup type URI "${value}", expected the type name ("${value.slice(LOOKUP_TYPE_PREFIX.length)}"); the document: ${wordsOf(id, "lookupType")}`,
      );
  }
  return problems;
}

function queryProblems(search: string, operation: ContractOperation): string[] {
  const problems: string[] = [];
  const query = new URLSearchParams(search);
  for (const parameter of operation.parameters.filter((p) => p.in === "query")) {
    for (const value of query.getAll(parameter.name)) {
      const problem = parameterProblem(parameter, value);
      if (problem)
        problems.push(`query ${problem}; the document: ${wordsOf(operation.operationId, parameter.name)}`);
    }
  }
  return problems;
}

/** The delete task body: the document's reading first (it says what the task would delete), then the
 *  contract's schema for what that reading does not cover. */
function taskProblems(x: TrafficExchange): string[] {
  const read = readDeleteTask(x);
  if (read.problem) return [`${read.problem}; the document: ${WORDS.task}`];
  const parsed = parseJson(x.body) as Record<string, unknown>;
  // A null parameters, type or uris is read as not set (CALLER-TASK-01); the schema has no null.
  const body: Record<string, unknown> = { ...parsed };
  if (body.parameters === null) delete body.parameters;
  else if (body.parameters !== undefined) {
    const parameters = { ...(body.parameters as Record<string, unknown>) };
    for (const key of ["type", "uris"]) if (parameters[key] === null) delete parameters[key];
    body.parameters = parameters;
  }
  return loadContract()
    .validateRequest("createTask", body, "application/json")
    .map((v) => `${v.message}; the document: ${WORDS.task}`);
}

export const REQUEST_WITHIN_CONTRACT: CallerRule = defineRule<"caller", CallerRuleDeclaration>("caller", {
  id: REQUEST_WITHIN_CONTRACT_ID,
  requirements: ["CALLER-REQUEST-01", "CALLER-LIMIT-01", "CALLER-TASK-01", "CALLER-QUERY-01"],
  title:
    "MUST send every request within the request side of the contract where the document is explicit (an operation the interface has, its path and query parameters, their values and bounds, the delete task body, paging by the documented position)",
  opportunity:
    "a lookup-data or autopilot request of an operation the document describes, or a request to a method and path the interface does not have",
  breaks:
    "a method and path the interface does not have (the finding names the nearest operations), a path parameter (`lookupType` a type URI, not its name), a query value (`limit` not an integer or above 100 on the autopilot scans and blocked values, `offset` not an integer, `order` other than `asc`/`desc`), paging by a query parameter the operation does not define (`page=1`, `page=2` with the same `offset`, or a scan opened again with another `page`), or a delete task body (`type` not `delete`, `parameters.type` not `rdm/lookupTypes/<type_name>`, `parameters.uris` not `<tenant_id>/<type_name>/<code>`, a member the document does not define) outside the contract, or, where `{base_url}` and `{rdm_url}` differ, a request sent to the other one's address (`/version` at `{base_url}`); silent points (the token endpoint and request, scroll id encoding, sort fields, filter grammar, the lookups scan's `limit` bounds, HEAD and OPTIONS) are not judged",
  exercisedBy:
    "any call; a delete task and an autopilot scan for the body and the bounds; `--variants all` (its world `addresses-apart`) for the addresses",
  judge(traffic: Traffic): RuleVerdict {
    const violations: Violation[] = [];
    let opportunities = 0;
    for (const x of traffic.exchanges) {
      if (x.operation === undefined) {
        if (unjudgedReason(x) !== undefined) continue;
        opportunities += 1;
        violations.push({ seq: x.seq, message: unknownOperationMessage(x) });
        continue;
      }
      const operation = judgedOperation(x.operation);
      if (operation === undefined) continue;
      opportunities += 1;
      const elsewhere = traffic.addresses && wrongAddress(x, operation, traffic.addresses);
      if (elsewhere) violations.push({ seq: x.seq, message: `${where(x, operation)}: ${elsewhere}` });
      for (const problem of requestProblems(x, operation))
        violations.push({ seq: x.seq, message: `${where(x, operation)}: ${problem}` });
    }
    // Paging by a parameter the operation does not define: the first request that did, per operation and
    // parameter (each later page repeats the same mistake).
    const reported = new Set<string>();
    for (const p of undefinedParameters(traffic)) {
      if (!p.paged) continue;
      const key = `${p.operation.operationId} ${p.name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      violations.push({ seq: p.x.seq, message: pagedMessage({ ...p, paged: p.paged }) });
    }
    violations.sort((a, b) => a.seq - b.seq);
    return verdict(
      opportunities,
      violations,
      "your client sent no lookup-data or autopilot request; run the tests that call the interface",
    );
  },
});

/** The document's words for the two addresses. */
const ADDRESSES =
  '"Addresses: {base_url} for the token-configuration and autopilot-configuration paths; {rdm_url} for the lookup-data service paths"';

/** A request sent to the address of the other document's paths, where the deployment serves the two at
 *  different addresses (where they are one, every request is at both and this cannot be judged). */
function wrongAddress(
  x: TrafficExchange,
  operation: ContractOperation,
  addresses: NonNullable<Traffic["addresses"]>,
): string | undefined {
  const [own, other, ownName, otherName] =
    operation.host === "lookup-data"
      ? [addresses.rdmUrl, addresses.baseUrl, "{rdm_url}", "{base_url}"]
      : [addresses.baseUrl, addresses.rdmUrl, "{base_url}", "{rdm_url}"];
  if (x.url.startsWith(`${own}/`) || !x.url.startsWith(`${other}/`)) return undefined;
  return `sent to ${otherName} (${other}), but the operation is at ${ownName} (${own}): where a deployment serves the two at different addresses, ${otherName} does not have it; the document: ${ADDRESSES}`;
}

/** A request to no operation of the contract: a lookup type URI where the name goes (its slashes make the
 *  path match nothing), or a method and path the interface does not have, with the nearest it has. */
function unknownOperationMessage(x: TrafficExchange): string {
  if (TYPE_URI_IN_PATH.test(x.pathname))
    return `${x.method} ${x.pathname}: the path carries a lookup type URI (rdm/lookupTypes/<type_name>) where the lookup type name goes, so it names no operation; the document: ${WORDS.lookupType}`;
  const nearest = nearestOperations(x).map(shownOperation);
  return `${x.method} ${x.pathname} matches no operation of the interface (method and path, on the base or the rdm address), so no provider of the document serves it; the nearest: ${nearest.join(" or ")}. The document lists every endpoint with its method and path (Endpoints)`;
}
