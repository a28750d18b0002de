// Health, status and version of the lookup-data service.

import { type Check, type CheckContext, explore, fail } from "../src/check/index.ts";
import { type ApiResponse, describeResponse } from "../src/client/index.ts";
import { defineCheck } from "./support/define.ts";
import { ensure, judgeSuccess } from "./support/response-judges.ts";
import { clientOf } from "./support/target-client.ts";

const dotted = /^\d+(\.\d+)+$/;

export function statusIsOk(response: ApiResponse<unknown>, what: string): void {
  ensure(judgeSuccess(response, what));
  const status = (response.body as { status?: unknown } | undefined)?.status;
  if (status !== "OK") fail(`expected ${what} to answer {"status": "OK"}, got ${describeResponse(response)}`);
}

/** The rdm-service version as text: from valid JSON (string or number), or from the document's
 *  unquoted sample form, which is not valid JSON. */
export function versionText(response: ApiResponse<unknown>): string | undefined {
  const body = response.body;
  if (typeof body === "object" && body !== null && "rdm-service" in body) {
    const value = (body as Record<string, unknown>)["rdm-service"];
    if (typeof value === "string") return value;
    if (typeof value === "number") {
      // A JSON number loses the form of "2016.3"; the raw text keeps it.
      const raw = /"rdm-service"\s*:\s*([0-9][0-9.]*)/.exec(response.text);
      return raw?.[1] ?? String(value);
    }
    return undefined;
  }
  return /"rdm-service"\s*:\s*([0-9][0-9.]*)/.exec(response.text)?.[1];
}

/** A check of one endpoint's answer to the viewer. */
interface EndpointRule {
  id: string;
  title: string;
  requirement: string;
  endpoint: "healthcheck" | "status" | "version";
  judge(ctx: CheckContext, response: ApiResponse<unknown>): void;
}

/** The endpoints the document shows answering {"status": "OK"}: the same rule on each. */
const statusOk = (id: string, endpoint: "healthcheck" | "status", requirement: string): EndpointRule => ({
  id,
  title: `MUST answer GET /${endpoint} with an object whose status is OK`,
  requirement,
  endpoint,
  judge(ctx, response) {
    explore(ctx, "endpoint", `GET /${endpoint}`);
    statusIsOk(response, `GET /${endpoint}`);
  },
});

/** What the document says of the service endpoints' answers. GET /version: a dotted version (MUST; the
 *  document's sample, unquoted, is read too), and valid JSON with the version as a string (SHOULD: the
 *  kit's choice where the sample is not JSON). */
const ENDPOINT_RULES: EndpointRule[] = [
  statusOk("service/healthcheck-ok", "healthcheck", "SERVICE-01"),
  statusOk("service/status-ok", "status", "SERVICE-02"),
  {
    id: "service/version-dotted",
    title: "MUST answer GET /version with rdm-service holding a dotted version number",
    requirement: "SERVICE-03",
    endpoint: "version",
    judge(ctx, response) {
      explore(ctx, "endpoint", "GET /version");
      ensure(judgeSuccess(response, "GET /version"));
      const version = versionText(response);
      if (version === undefined || !dotted.test(version))
        fail(
          `expected {"rdm-service": <dotted version such as 2016.3.0.0.1>}, got ${describeResponse(response)}`,
        );
    },
  },
  {
    id: "service/version-json-string",
    title: "SHOULD answer GET /version as valid JSON with the version as a string",
    requirement: "SERVICE-04",
    endpoint: "version",
    judge(_ctx, response) {
      const value = (response.body as Record<string, unknown> | undefined)?.["rdm-service"];
      if (typeof value !== "string" || !dotted.test(value))
        fail(
          `expected valid JSON {"rdm-service": "<dotted version>"} (a string, as the kit chose), got ${describeResponse(response)}`,
        );
    },
  },
];

export const serviceChecks: Check[] = [
  ...ENDPOINT_RULES.map(({ id, title, requirement, endpoint, judge }) =>
    defineCheck({
      id,
      title,
      requirements: [requirement],
      safety: "read",
      needs: { roles: ["viewer"] },
      run: async (ctx) => judge(ctx, await clientOf(ctx)[endpoint](await ctx.token("viewer"))),
    }),
  ),
  defineCheck({
    id: "service/refuses-without-authorization",
    title: "SHOULD refuse /healthcheck, /status and /version without Authorization (401)",
    requirements: ["AUTH-02", "AUTH-05"],
    safety: "read",
    needs: { roles: [] },
    async run(ctx) {
      const client = clientOf(ctx);
      explore(ctx, "token state", "none");
      for (const [endpoint, response] of [
        ["GET /healthcheck", await client.healthcheck(null)],
        ["GET /status", await client.status(null)],
        ["GET /version", await client.version(null)],
      ] as const) {
        explore(ctx, "endpoint", endpoint);
        if (response.status !== 401)
          fail(
            "expected 401 without an Authorization header (the document says every endpoint requires it; " +
              `many deployments leave these open, hence SHOULD), got ${describeResponse(response)}`,
          );
      }
    },
  }),
];
