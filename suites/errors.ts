// Client errors in general: malformed and oversized bodies get a 4xx, and nothing the kit sends in a run
// gets a 5xx.

import { type Check, fail } from "../src/check/index.ts";
import { describeResponse } from "../src/client/index.ts";
import { trimTrailingSlashes } from "../src/http/trailing-slashes.ts";
import { absentLookupTasks, absentLookupUri } from "./support/data-operations.ts";
import { defineCheck } from "./support/define.ts";
import { isClientError } from "./support/response-judges.ts";
import { clientOf } from "./support/target-client.ts";

/** Just over the 1 MiB the kit assumes as body limit. */
const oversized = 1024 * 1024 + 1024;

export const errorsChecks: Check[] = [
  defineCheck({
    id: "errors/malformed-json-4xx",
    title: "SHOULD answer a malformed JSON body with a 4xx naming the problem",
    requirements: ["ERRORS-03", "ERRORS-02"],
    safety: "read",
    harmlessCalls: [absentLookupTasks],
    needs: { roles: ["admin"] },
    async run(ctx) {
      const tenant = ctx.target.tenant;
      const auth = await ctx.token("admin");
      const send = (path: string, base: string) =>
        ctx.fetch(`${trimTrailingSlashes(base)}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
          body: '{"scrollId": ',
        });
      for (const [what, request] of [
        ["the lookups scan", () => send(`/lookups/${tenant}/_scan`, ctx.target.rdmUrl)],
        [
          "the autopilot scan",
          () => send(`/configuration/${tenant}/autopilot/stats/_scan`, ctx.target.baseUrl),
        ],
        // A task body that does not parse cannot delete anything.
        ["the delete task", () => send(`/tasks/${tenant}`, ctx.target.rdmUrl)],
      ] as const) {
        const response = await request();
        const text = await response.text();
        if (!isClientError(response.status) || text.trim() === "")
          fail(
            `${what}: expected a 4xx with a body naming the problem for malformed JSON, got ${response.status} ${text.slice(0, 200)}`,
          );
      }
    },
  }),
  defineCheck({
    id: "errors/oversized-body-4xx",
    title: "SHOULD refuse a request body over 1 MiB with a 4xx",
    requirements: ["ERRORS-03"],
    safety: "read",
    harmlessCalls: [absentLookupTasks],
    needs: { roles: ["admin"] },
    async run(ctx) {
      const uris = Array.from(
        { length: Math.ceil(oversized / 40) },
        (_, i) => `${absentLookupUri(ctx.target.tenant)}-${i}`,
      );
      const response = await clientOf(ctx).createTask(await ctx.token("admin"), ctx.target.tenant, {
        type: "delete",
        parameters: { uris },
      });
      if (!isClientError(response.status))
        fail(`expected a 4xx (413) for a body over 1 MiB, got ${describeResponse(response, 200)}`);
    },
  }),
  defineCheck({
    id: "errors/no-5xx",
    title: "SHOULD answer no request of the run with a 5xx",
    requirements: ["ERRORS-02"],
    safety: "read",
    needs: { roles: [] },
    async run(ctx) {
      const failing = ctx.exchanges().filter((x) => (x.response?.status ?? 0) >= 500);
      ctx.cite?.(failing, "evidence");
      if (failing.length > 0)
        fail(
          `${failing.length} request(s) of this run got a 5xx, e.g. ${failing
            .slice(0, 3)
            .map((x) => `${x.request.method} ${x.request.url} -> ${x.response?.status}`)
            .join("; ")}; a client error must be a 4xx`,
        );
    },
  }),
];
