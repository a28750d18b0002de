// One check per operation of the contract: every exchange the run recorded for it is validated against
// the OpenAPI documents. The documents hold the kit's choices too (x-kit-assumption), so these checks
// are SHOULD-level: a target that chose differently where the interface document is silent still passes
// every MUST check.

import { type Check, type CheckContext, type Exchange, fail, skip } from "../src/check/index.ts";
import { describeResponse, pageOf } from "../src/client/index.ts";
import { type ContractOperation, type Host, loadContract, type Violation } from "../src/contract/index.ts";
import { discoverLookupTypes, typeName } from "./support/data-operations.ts";
import { defineCheck } from "./support/define.ts";
import { clientOf, credentialOf } from "./support/target-client.ts";

const contract = loadContract();

/** x-requirements of the schemas an operation's responses use, then the operation's own. */
function requirementsOf(operation: ContractOperation): string[] {
  const found = new Set<string>();
  const seen = new WeakSet<object>();
  const walk = (node: unknown) => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    const own = (node as Record<string, unknown>)["x-requirements"];
    if (Array.isArray(own)) for (const id of own) if (typeof id === "string") found.add(id);
    for (const value of Object.values(node)) walk(value);
  };
  walk(operation.raw.responses);
  return found.size > 0 ? [...found] : [...operation.requirements];
}

function hostsOf(ctx: CheckContext, url: string): Host[] {
  const hosts: Host[] = [];
  if (url.startsWith(ctx.target.rdmUrl)) hosts.push("lookup-data");
  if (url.startsWith(ctx.target.baseUrl)) hosts.push("platform");
  return hosts.length > 0 ? hosts : ["platform", "lookup-data"];
}

/** The exchanges of the run that the contract maps to `operationId`, with a whole response body. */
function exchangesOf(ctx: CheckContext, operationId: string): Exchange[] {
  return ctx.exchanges().filter((exchange) => {
    if (!exchange.response || exchange.response.bodyTruncated) return false;
    const path = new URL(exchange.request.url).pathname;
    const status = exchange.response.status;
    return hostsOf(ctx, exchange.request.url).some((host) => {
      const found = contract.findOperation(host, exchange.request.method, path)?.operation;
      if (found?.operationId !== operationId) return false;
      // "Rate limits: not shown": a 429 of a gateway may answer any operation, so one the operation does
      // not declare is the link's, not the operation's answer (the transport waits it out and retries).
      const responses = (found.raw as { responses?: Record<string, unknown> }).responses ?? {};
      return status !== 429 || "429" in responses;
    });
  });
}

/** Sends one safe, representative request for operations that can be read without changing anything. */
async function representative(ctx: CheckContext, operationId: string): Promise<void> {
  if (!ctx.target.credentials.admin)
    skip(`nothing recorded for ${operationId}, and no admin credentials to send a request`);
  const client = clientOf(ctx);
  const tenant = ctx.target.tenant;
  const auth = async () => ctx.token("admin");
  const someType = async () => (await discoverLookupTypes(client, await auth(), tenant))[0] ?? "Country";
  switch (operationId) {
    case "issueToken":
      await client.token(credentialOf(ctx, "admin"));
      return;
    case "getHealthcheck":
      await client.healthcheck(await auth());
      return;
    case "getStatus":
      await client.status(await auth());
      return;
    case "getVersion":
      await client.version(await auth());
      return;
    case "scanLookups":
      await client.scanFirst(await auth(), { kind: "lookups", tenantId: tenant }, { limit: 5 });
      return;
    case "scanAutopilotStats":
      await client.scanFirst(await auth(), { kind: "autopilot", tenantId: tenant }, { limit: 5 });
      return;
    case "scanAutopilotStatsByType": {
      const stats = pageOf(
        await client.scanFirst(await auth(), { kind: "autopilot", tenantId: tenant }, { limit: 1 }),
      );
      const type = stats?.values[0]?.lookupType;
      const lookupType = typeof type === "string" ? typeName(type) : await someType();
      await client.scanFirst(
        await auth(),
        { kind: "autopilot-type", tenantId: tenant, lookupType },
        { limit: 5 },
      );
      return;
    }
    case "listBlockedValues":
      await client.blockedValues(await auth(), tenant, await someType(), { limit: 5 });
      return;
    case "getTask": {
      const created = exchangesOf(ctx, "createTask")
        .map((x) => {
          try {
            return (JSON.parse(x.response?.body ?? "") as { id?: unknown }).id;
          } catch {
            return undefined;
          }
        })
        .find((id): id is string => typeof id === "string");
      if (!created) skip("no delete task was recorded in this run, so there is no task id to ask for");
      const response = await client.taskStatus(await auth(), tenant, created);
      ctx.log.debug(`representative getTask: ${describeResponse(response)}`);
      return;
    }
    default:
      skip(
        `no exchange of ${operationId} was recorded in this run, and a representative request would change data`,
      );
  }
}

function describeViolation(exchange: Exchange, violation: Violation): string {
  const { method, url } = exchange.request;
  return `${method} ${url} -> ${exchange.response?.status}: ${violation.instancePath || "/"} ${violation.message} (${violation.keyword} at ${violation.schemaPath})`;
}

function schemaCheck(operation: ContractOperation): Check {
  return defineCheck({
    id: `schema/${operation.operationId}`,
    title: `SHOULD answer ${operation.method} ${operation.path} as the contract describes (${operation.operationId})`,
    requirements: requirementsOf(operation),
    safety: "read",
    // Judges the exchanges of every other check: the planner runs it last.
    readsOthersTraffic: true,
    // With nothing recorded for the token endpoint it asks for the admin's token itself (representative).
    ...(operation.operationId === "issueToken" ? { issuesTokensFor: ["admin" as const] } : {}),
    needs: { roles: [] },
    async run(ctx) {
      let exchanges = exchangesOf(ctx, operation.operationId);
      if (exchanges.length === 0) {
        await representative(ctx, operation.operationId);
        exchanges = exchangesOf(ctx, operation.operationId);
      }
      if (exchanges.length === 0) skip(`no exchange of ${operation.operationId} to validate`);
      // What this check rests on is the traffic it validates, whichever check sent it.
      ctx.cite?.(exchanges);
      const departing: Exchange[] = [];
      // The same departure usually repeats on every page: report each (status, path pattern, message) once.
      const distinct = new Map<string, { text: string; count: number }>();
      // The same grouped coarser, by (status, JSON pointer), for the report's table of departures.
      const byPointer = new Map<
        string,
        { status: number; pointer: string; count: number; example: string }
      >();
      for (const exchange of exchanges) {
        const response = exchange.response;
        if (!response) continue;
        const violations = contract.validateResponse(
          operation.operationId,
          response.status,
          response.headers["content-type"],
          response.body,
        );
        for (const violation of violations) {
          const pattern = (text: string) => text.replace(/\/\d+(?=\/|\s|$)/g, "/*");
          const key = `${response.status} ${pattern(violation.instancePath)} ${violation.keyword} ${pattern(violation.message)}`;
          const pointer = pattern(violation.instancePath) || "/";
          const group = byPointer.get(`${response.status} ${pointer}`);
          if (group) group.count++;
          else
            byPointer.set(`${response.status} ${pointer}`, {
              status: response.status,
              pointer,
              count: 1,
              example: describeViolation(exchange, violation),
            });
          const known = distinct.get(key);
          if (known) known.count++;
          else {
            distinct.set(key, { text: describeViolation(exchange, violation), count: 1 });
            departing.push(exchange);
          }
        }
      }
      if (distinct.size === 0) return;
      // The evidence is the first answer of each kind of departure.
      ctx.cite?.(departing, "evidence");
      const lines = [...distinct.values()]
        .slice(0, 10)
        .map((v) => (v.count > 1 ? `${v.text} (x${v.count})` : v.text));
      fail(
        `${distinct.size} kind(s) of departure from the contract in ${exchanges.length} recorded exchanges of ${operation.operationId}:\n  ${lines.join("\n  ")}`,
        {
          expected: `responses as openapi/ declares for ${operation.operationId}`,
          actual: lines[0] ?? "",
          departures: [...byPointer.values()].slice(0, 50),
        },
      );
    },
  });
}

export const schemaChecks: Check[] = contract.operations.map(schemaCheck);
