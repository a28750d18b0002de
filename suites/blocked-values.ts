// Blocked values of a lookup type, paged by offset and limit (default 0 and 100, at most 100).
import fc from "fast-check";
import { type Check, type CheckContext, fail, skip } from "../src/check/index.ts";
import { type ApiResponse, type BlockedValue, describeResponse, pageOf } from "../src/client/index.ts";
import { discoverLookupTypes, typeName } from "./support/data-operations.ts";
import { defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import { blockedValueRules, recordsProblem } from "./support/record-fields.ts";
import { ensure, isClientError, judgeSuccess } from "./support/response-judges.ts";
import { identityProblem, recorded } from "./support/scan-properties.ts";
import { clientOf } from "./support/target-client.ts";

const identity = (v: BlockedValue) => `${typeName(String(v.lookupType))}|${String(v.value)}`;

function listOf(response: ApiResponse<BlockedValue[]>, what: string): BlockedValue[] {
  ensure(judgeSuccess(response, what));
  if (!Array.isArray(response.body))
    fail(`${what}: expected a JSON array of blocked values, got ${describeResponse(response)}`);
  return response.body as BlockedValue[];
}

async function get(
  ctx: CheckContext,
  lookupType: string,
  query: { offset?: number | string; limit?: number | string },
) {
  return clientOf(ctx).blockedValues(await ctx.token("admin"), ctx.target.tenant, lookupType, query);
}

/** The lookup type with the most blocked values (so paging has something to page), and its first page. */
async function richestType(ctx: CheckContext): Promise<{ lookupType: string; firstPage: BlockedValue[] }> {
  return recorded(ctx, ["blocked-values richest type", ctx.target.tenant], () => findRichestType(ctx));
}

async function findRichestType(
  ctx: CheckContext,
): Promise<{ lookupType: string; firstPage: BlockedValue[] }> {
  const client = clientOf(ctx);
  const auth = await ctx.token("admin");
  const fromLookups = await discoverLookupTypes(client, auth, ctx.target.tenant);
  const stats = pageOf(
    await client.scanFirst(auth, { kind: "autopilot", tenantId: ctx.target.tenant }, { limit: 100 }),
  );
  const candidates = new Set([
    ...fromLookups,
    ...(stats?.values ?? []).map((s) => typeName(String(s.lookupType))),
  ]);
  let best: { lookupType: string; firstPage: BlockedValue[] } | undefined;
  for (const lookupType of [...candidates].sort()) {
    const response = await get(ctx, lookupType, { offset: 0, limit: 100 });
    const firstPage = Array.isArray(response.body) ? (response.body as BlockedValue[]) : [];
    if (!best || firstPage.length > best.firstPage.length) best = { lookupType, firstPage };
  }
  if (!best) skip(`no lookup type found in tenant ${ctx.target.tenant} to list blocked values of`);
  return best;
}

/** Pages of `limit` at offsets 0, limit, 2*limit, ... until a short page. Fails on a page above the limit
 *  and on a page of nothing but values seen before (the offset did not advance). */
async function readAll(ctx: CheckContext, lookupType: string, limit: number): Promise<BlockedValue[]> {
  const values: BlockedValue[] = [];
  const seen = new Set<string>();
  for (let offset = 0; ; offset += limit) {
    const list = listOf(
      await get(ctx, lookupType, { offset, limit }),
      `blocked values of ${lookupType} offset=${offset}&limit=${limit}`,
    );
    if (list.length > limit) fail(`offset=${offset}&limit=${limit} answered ${list.length} blocked values`);
    if (offset > 0 && list.length > 0 && list.every((v) => seen.has(identity(v))))
      fail(
        `offset=${offset}&limit=${limit} answered only values of earlier pages ` +
          `(${list.slice(0, 3).map(identity).join(", ")}...); the offset must skip the values before it`,
      );
    for (const v of list) seen.add(identity(v));
    values.push(...list);
    if (list.length < limit) return values;
  }
}

export const blockedValuesChecks: Check[] = [
  defineCheck({
    id: "blocked-values/paging-consistent",
    title: "MUST list every blocked value exactly once across pages at offsets 0, k, 2k, ...",
    requirements: ["BLOCKED-05", "BLOCKED-02", "BLOCKED-01"],
    safety: "read",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const { lookupType } = await richestType(ctx);
      const all = await readAll(ctx, lookupType, 100);
      const expected = all.map(identity);
      ensure(identityProblem(expected, expected), `blocked values of ${lookupType} in pages of 100`);
      // Page sizes that cost at most ten pages each, the boundaries among them first (a last page exactly
      // full, one of a single value, one page short of all); a size drawn twice is read once.
      const floor = Math.min(100, Math.max(1, Math.ceil(all.length / 10)));
      const n = all.length;
      const boundaries = [
        ...new Set([floor, n - 1, n, n + 1, 99, 100, Math.ceil(n / 2), Math.ceil((n - 1) / 2)]),
      ]
        .filter((k) => Number.isInteger(k) && k >= floor && k <= 100)
        .sort((a, b) => a - b);
      await checkProperty(
        ctx,
        fc.asyncProperty(
          fc.oneof(fc.constantFrom(...boundaries), fc.integer({ min: floor, max: 100 })),
          async (k) => {
            const paged = await recorded(ctx, ["blocked-values", lookupType, k], () =>
              readAll(ctx, lookupType, k),
            );
            ensure(
              identityProblem(expected, paged.map(identity)),
              `blocked values of ${lookupType} in pages of ${k}`,
            );
          },
        ),
      );
    },
  }),
  defineCheck({
    id: "blocked-values/limit-respected",
    title: "MUST never answer more blocked values than the limit, and never more than 100",
    requirements: ["BLOCKED-03"],
    safety: "read",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const { lookupType, firstPage } = await richestType(ctx);
      await checkProperty(
        ctx,
        fc.asyncProperty(fc.integer({ min: 1, max: 100 }), async (limit) => {
          const list = listOf(await get(ctx, lookupType, { limit }), `limit=${limit}`);
          if (list.length > limit) fail(`limit=${limit} answered ${list.length} blocked values`);
          // offset=0&limit=100 showed how many there are at least: a smaller limit must fill its page.
          const available = Math.min(limit, firstPage.length);
          if (list.length < available)
            fail(`limit=${limit} answered ${list.length} blocked values; ${available} were available`);
        }),
      );
      for (const limit of [101, 150, 1000]) {
        const response = await get(ctx, lookupType, { limit });
        if (isClientError(response.status)) continue;
        const list = listOf(response, `limit=${limit}`);
        if (list.length > 100) fail(`limit=${limit} answered ${list.length} blocked values; at most 100`);
      }
    },
  }),
  defineCheck({
    id: "blocked-values/defaults",
    title: "MUST answer without offset and limit as with offset=0 and limit=100",
    requirements: ["BLOCKED-02", "BLOCKED-03", "BLOCKED-01"],
    safety: "read",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const { lookupType } = await richestType(ctx);
      const plain = listOf(
        await get(ctx, lookupType, {}),
        `blocked values of ${lookupType} without parameters`,
      );
      const explicit = listOf(await get(ctx, lookupType, { offset: 0, limit: 100 }), "offset=0&limit=100");
      if (plain.length > 100)
        fail(`without parameters ${plain.length} blocked values came; the default limit is 100`);
      ensure(
        identityProblem(explicit.map(identity), plain.map(identity)),
        "without parameters vs offset=0&limit=100",
      );
    },
  }),
  defineCheck({
    id: "blocked-values/record-fields",
    title: "MUST answer an array of blocked values whose fields have the document's types",
    requirements: ["BLOCKED-04", "BLOCKED-01"],
    safety: "read",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const { lookupType, firstPage } = await richestType(ctx);
      ensure(
        recordsProblem(firstPage, blockedValueRules, (v) => String(v.value)),
        `blocked values of ${lookupType}`,
      );
    },
  }),
  defineCheck({
    id: "blocked-values/out-of-range-400",
    title: "SHOULD refuse offset below 0 and limit outside 1..100 with 400",
    requirements: ["BLOCKED-07"],
    safety: "read",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const { lookupType } = await richestType(ctx);
      for (const query of [{ offset: -1 }, { limit: 0 }, { limit: 101 }, { limit: "ten" }, { offset: "x" }]) {
        const response = await get(ctx, lookupType, query);
        if (response.status !== 400)
          fail(`${JSON.stringify(query)}: expected 400, got ${describeResponse(response)}`);
      }
    },
  }),
];
