// Blocked values of a lookup type, paged by offset and limit (default 0 and 100, at most 100).
import fc from "fast-check";
import {
  type Check,
  type CheckContext,
  depthOf,
  explore,
  fail,
  inconclusive,
  runsAtDepth,
} from "../src/check/index.ts";
import { type ApiResponse, type BlockedValue, describeResponse, pageOf } from "../src/client/index.ts";
import { discoverLookupTypes, typeName } from "./support/data-operations.ts";
import { type CheckDefinition, defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import { blockedValueRules, recordsProblem } from "./support/record-fields.ts";
import { recorded } from "./support/recorded-scrolls.ts";
import { ensure, isClientError, judgeSuccess } from "./support/response-judges.ts";
import { identityFinding, identityProblem } from "./support/scan-judges.ts";
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

interface FirstPages {
  /** The lookup type with the most blocked values (so paging has something to page), and its first page. */
  lookupType: string;
  firstPage: BlockedValue[];
  /** The first page (offset 0, limit 100) of every lookup type found, by type. */
  everyType: [string, BlockedValue[]][];
}

async function richestType(ctx: CheckContext): Promise<FirstPages> {
  const found = await recorded(ctx, ["blocked-values richest type", ctx.target.tenant], () =>
    findRichestType(ctx),
  );
  explore(ctx, "lookup type", found.lookupType);
  return found;
}

async function findRichestType(ctx: CheckContext): Promise<FirstPages> {
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
  const everyType: [string, BlockedValue[]][] = [];
  for (const lookupType of [...candidates].sort()) {
    const response = await get(ctx, lookupType, { offset: 0, limit: 100 });
    const firstPage = Array.isArray(response.body) ? (response.body as BlockedValue[]) : [];
    everyType.push([lookupType, firstPage]);
    if (!best || firstPage.length > best.firstPage.length) best = { lookupType, firstPage };
  }
  if (!best)
    inconclusive({
      saw: `no lookup type found in tenant ${ctx.target.tenant} (lookups and autopilot statistics) to list blocked values of`,
      readings: ["the tenant has no blocked values", "its listing answers nothing"],
      decideBy: "certify with a tenant that has lookups and blocked values (the target file's tenant)",
    });
  return { ...best, everyType };
}

/**
 * The richest lookup type, for a check that judges listed values: with none listed for any type it cannot
 * tell a tenant without blocked values from a listing that answers nothing, and must not pass.
 */
async function typeWithValues(ctx: CheckContext): Promise<FirstPages> {
  const found = await richestType(ctx);
  if (found.firstPage.length === 0)
    inconclusive({
      saw: `no lookup type of tenant ${ctx.target.tenant} lists a blocked value (asked: ${found.everyType.map(([t]) => t).join(", ")})`,
      readings: ["the tenant has no blocked values", "the listing answers nothing"],
      decideBy:
        "certify with a tenant that has blocked values (autopilot blocks them while it processes the tenant's data; the target file's tenant)",
    });
  return found;
}

/** The path of a blocked-values request with its query, as a failure detail names it. */
function listPath(ctx: CheckContext, lookupType: string, query: string): string {
  return `/configuration/${ctx.target.tenant}/autopilot/${lookupType}/blockedValues?${query}`;
}

/** Pages of `limit` at offsets 0, limit, 2*limit, ... until a short page. Fails on a page above the limit
 *  and on a page of nothing but values seen before (the offset did not advance); with `judge: false` (a
 *  check of another rule, for which paging is only the way to every value) such a page ends the reading
 *  instead, and so do 50 pages. */
async function readAll(
  ctx: CheckContext,
  lookupType: string,
  limit: number,
  judge = true,
): Promise<BlockedValue[]> {
  const values: BlockedValue[] = [];
  const seen = new Set<string>();
  for (let offset = 0; judge || offset < 50 * limit; offset += limit) {
    const response = await get(ctx, lookupType, { offset, limit });
    // After a full page the offset may be the end: whether an offset there is answered with nothing or
    // refused is not shown; the values read so far are then judged whole.
    if (offset > 0 && isClientError(response.status)) return values;
    const list = listOf(response, `blocked values of ${lookupType} offset=${offset}&limit=${limit}`);
    const request = { method: "GET", path: listPath(ctx, lookupType, `offset=${offset}&limit=${limit}`) };
    if (judge && list.length > limit)
      fail(`offset=${offset}&limit=${limit} answered ${list.length} blocked values`, {
        expected: `at most ${limit} blocked values`,
        actual: `${list.length} blocked values`,
        request,
      });
    if (offset > 0 && list.length > 0 && list.every((v) => seen.has(identity(v)))) {
      if (!judge) return values;
      fail(
        `offset=${offset}&limit=${limit} answered only values of earlier pages ` +
          `(${list.slice(0, 3).map(identity).join(", ")}...); the offset must skip the values before it`,
        {
          expected: `the values after the first ${offset}`,
          actual: "only values of earlier pages",
          record: identity(list[0] as BlockedValue),
          request,
        },
      );
    }
    for (const v of list) seen.add(identity(v));
    values.push(...list);
    if (list.length < limit) return values;
  }
  return values;
}

/** Limits of one page worth asking: the boundaries around `available` values first, any other now and then. */
function limitsOfAPage(available: number): fc.Arbitrary<number> {
  const boundaries = [1, 2, available - 1, available, available + 1, 99, 100].filter(
    (k) => k >= 1 && k <= 100,
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...new Set(boundaries)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }) },
  );
}

/** Which offset a window starts at, as the exploration log names it. */
function offsetKind(offset: number, limit: number, total: number): string {
  if (offset === 0) return "0";
  if (offset === total) return "total";
  if (offset > total) return "past the end";
  return offset % limit === 0 ? "k" : "inside a page";
}

/**
 * A page at any offset starts at that offset of the listing (BLOCKED-02): offset=o&limit=l holds the values
 * at positions o..o+l-1 of the pages of 100 (in any order within the page). Offsets that are no multiple of
 * the limit (a pager of whole pages rounds them), the last value, the end and past the end first, whatever
 * the seed; then draws. At or past the end nothing comes: an empty page, or a refusal (not shown which).
 */
async function judgeWindows(
  ctx: CheckContext,
  lookupType: string,
  all: BlockedValue[],
  limit: number,
): Promise<void> {
  const n = all.length;
  const judge = async (offset: number, size: number) => {
    const response = await recorded(ctx, ["blocked-values window", lookupType, offset, size], () =>
      get(ctx, lookupType, { offset, limit: size }),
    );
    explore(ctx, "offset", offsetKind(offset, size, n));
    const query = `offset=${offset}&limit=${size}`;
    const request = { method: "GET", path: listPath(ctx, lookupType, query) };
    if (offset >= n && isClientError(response.status)) return;
    const list = listOf(response, `blocked values of ${lookupType} ${query}`);
    const expected = all.slice(offset, offset + size).map(identity);
    const finding = identityFinding(expected, list.map(identity));
    if (finding)
      fail(
        `blocked values of ${lookupType} ${query}: expected the values at positions ${offset} to ` +
          `${offset + size - 1} of the listing (${expected.length}); ${finding.detail.actual}`,
        { ...finding.detail, request },
      );
  };
  const windows: [number, number][] = [
    [1, limit],
    [limit + 1, limit],
    [n - 1, limit],
    [n, limit],
    [n + 1, limit],
    [n + limit, limit],
  ];
  for (const [offset, size] of windows) if (offset >= 0) await judge(offset, size);
  await checkProperty(
    ctx,
    fc.asyncProperty(fc.integer({ min: 0, max: n + 5 }), fc.integer({ min: 1, max: 100 }), judge),
    { numRuns: runsAtDepth(ctx, 3) },
  );
}

/** A check of the blocked-values list: it only reads, with the admin's client (as every read here does). */
const blockedValuesCheck = (definition: Omit<CheckDefinition, "safety" | "needs">) =>
  defineCheck({ ...definition, safety: "read", needs: { roles: ["admin"] } });

export const blockedValuesChecks: Check[] = [
  blockedValuesCheck({
    id: "blocked-values/paging-consistent",
    title:
      "MUST list every blocked value exactly once across pages at offsets 0, k, 2k, ..., and start a page at any offset there",
    requirements: ["BLOCKED-05", "BLOCKED-02", "BLOCKED-01"],
    async run(ctx) {
      const { lookupType } = await typeWithValues(ctx);
      const all = await readAll(ctx, lookupType, 100);
      const expected = all.map(identity);
      ensure(identityProblem(expected, expected), `blocked values of ${lookupType} in pages of 100`);
      // Page sizes that cost at most five pages each (a fault of paging shows at every page boundary), the
      // boundaries among them first (a last page exactly full, one of a single value, one page short of
      // all), read whatever the property draws; a size drawn again is read once.
      const n = all.length;
      const pages = depthOf(ctx) === "deep" ? 30 : 5;
      const floor = Math.min(100, Math.max(1, Math.ceil(n / pages)));
      // The most pages that end exactly full (the next offset is the end) and that leave one value over.
      const full = [...Array(pages).keys()].map((i) => pages - i).find((p) => n % p === 0 && n / p <= 100);
      const over = [...Array(pages).keys()]
        .map((i) => pages - i)
        .find((p) => (n - 1) % p === 0 && (n - 1) / p >= 2 && (n - 1) / p <= 100);
      const boundaries = [
        ...new Set([
          floor,
          n - 1,
          n,
          n + 1,
          99,
          100,
          Math.ceil(n / 2),
          Math.ceil((n - 1) / 2),
          full === undefined ? 0 : n / full,
          over === undefined ? 0 : (n - 1) / over,
        ]),
      ]
        .filter((k) => Number.isInteger(k) && k >= floor && k <= 100)
        .sort((a, b) => a - b);
      explore(ctx, "scan", "blocked values");
      let deepest = 0;
      const judge = async (k: number) => {
        const paged = await recorded(ctx, ["blocked-values", lookupType, k], () =>
          readAll(ctx, lookupType, k),
        );
        explore(ctx, "limit", k);
        explore(ctx, "offset", "0");
        if (n > k) explore(ctx, "offset", "k");
        // A last page exactly full sends the offset to the end itself.
        if (n % k === 0) explore(ctx, "offset", "total");
        explore(ctx, "last page", n % k === 0 ? "exactly full" : n % k === 1 ? "one record over" : "partial");
        deepest = Math.max(deepest, Math.ceil(n / k));
        const pages = Array.from({ length: Math.ceil(paged.length / k) }, (_, i) =>
          paged.slice(i * k, (i + 1) * k).map(identity),
        );
        const finding = identityFinding(expected, paged.map(identity), { pages });
        if (finding)
          fail(`blocked values of ${lookupType} in pages of ${k}: ${finding.message}`, {
            ...finding.detail,
            request: { method: "GET", path: listPath(ctx, lookupType, `offset=0&limit=${k}`) },
          });
      };
      try {
        for (const k of boundaries) await judge(k);
        await checkProperty(
          ctx,
          fc.asyncProperty(
            fc.oneof(
              { weight: 3, arbitrary: fc.constantFrom(...boundaries) },
              { weight: 1, arbitrary: fc.integer({ min: floor, max: 100 }) },
            ),
            judge,
          ),
        );
        await judgeWindows(ctx, lookupType, all, full === undefined ? floor : n / full);
      } finally {
        if (deepest > 0) explore(ctx, "pages read", String(deepest));
      }
    },
  }),
  blockedValuesCheck({
    id: "blocked-values/limit-respected",
    title: "MUST never answer more blocked values than the limit, and never more than 100",
    requirements: ["BLOCKED-03"],
    async run(ctx) {
      const { lookupType, firstPage } = await typeWithValues(ctx);
      await checkProperty(
        ctx,
        // The limits that matter (1, 2, one below, at and above the number available, 99, 100) most of
        // the time, any other now and then; a limit drawn again is asked once.
        fc.asyncProperty(limitsOfAPage(firstPage.length), async (limit) => {
          explore(ctx, "scan", "blocked values");
          explore(ctx, "limit", limit);
          explore(ctx, "offset", "0");
          const response = await recorded(ctx, ["blocked-values limit", lookupType, limit], () =>
            get(ctx, lookupType, { limit }),
          );
          const list = listOf(response, `limit=${limit}`);
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
  blockedValuesCheck({
    id: "blocked-values/defaults",
    title: "MUST answer without offset and limit as with offset=0 and limit=100",
    requirements: ["BLOCKED-02", "BLOCKED-03", "BLOCKED-01"],
    async run(ctx) {
      const { lookupType } = await typeWithValues(ctx);
      explore(ctx, "limit", "none (default)");
      explore(ctx, "offset", "none (default)");
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
  blockedValuesCheck({
    id: "blocked-values/record-fields",
    title: "MUST answer an array of blocked values whose fields have the document's types",
    requirements: ["BLOCKED-04", "BLOCKED-01"],
    async run(ctx) {
      const { lookupType, firstPage } = await typeWithValues(ctx);
      ensure(
        recordsProblem(firstPage, blockedValueRules, (v) => String(v.value)),
        `blocked values of ${lookupType}`,
      );
    },
  }),
  blockedValuesCheck({
    id: "blocked-values/of-the-path",
    title: "MUST list only blocked values of the tenant and lookup type the path names",
    requirements: ["BLOCKED-08", "BLOCKED-01"],
    async run(ctx) {
      // Every page of every lookup type found: values of another type may follow those of the path's type.
      // The record's lookupType is rdm/lookupTypes/<type_name> (BLOCKED-04, judged by record-fields); here
      // only whose it is counts, so the bare name is taken too.
      const { everyType } = await typeWithValues(ctx);
      let lookupType: string | undefined;
      let foreign: BlockedValue | undefined;
      for (const [type, firstPage] of everyType) {
        explore(ctx, "lookup type", type);
        const listed = firstPage.length < 100 ? firstPage : await readAll(ctx, type, 100, false);
        foreign = listed.find(
          (v) => v.tenantId !== ctx.target.tenant || typeName(String(v.lookupType)) !== type,
        );
        lookupType = type;
        if (foreign !== undefined) break;
      }
      if (lookupType !== undefined && foreign !== undefined)
        fail(
          `the blocked values of ${lookupType} in tenant ${ctx.target.tenant} list ${identity(foreign)} of ` +
            `tenant ${String(foreign.tenantId)}`,
          {
            expected: `values of tenant ${ctx.target.tenant} and lookup type ${lookupType} only`,
            actual: `tenantId ${String(foreign.tenantId)}, lookupType ${String(foreign.lookupType)}`,
            record: identity(foreign),
            request: { method: "GET", path: listPath(ctx, lookupType, "offset=0&limit=100") },
          },
        );
    },
  }),
  blockedValuesCheck({
    id: "blocked-values/out-of-range-400",
    title: "SHOULD refuse offset below 0 and limit outside 1..100 with 400",
    requirements: ["BLOCKED-07"],
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
