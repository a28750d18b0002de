// The scroll protocol shared by the lookups scan and both autopilot scans (docs/assumptions.md, "Scans").
import type { ReferenceContext } from "./context.ts";
import { badRequest, jsonResponse } from "./errors.ts";
import type { FilterOptions } from "./filter.ts";
import { describeType, parseJson, readText } from "./http-body.ts";
import { parseScanQuery, type ScanQuery } from "./scan-query.ts";
import type { Scroll } from "./scroll.ts";

export interface ScanSpec {
  /** Scan and tenant, e.g. "lookups:acme"; scroll ids are valid only within their scope. */
  scope: string;
  /** The records in identity order; called once, when a scroll opens. */
  records: () => readonly object[];
  filterOptions?: FilterOptions;
}

/** The scroll id of a next-page request, or undefined for a first request (no body, null, {}). */
export async function readScrollId(ctx: ReferenceContext, request: Request): Promise<string | undefined> {
  const text = (await readText(request)).trim();
  if (text === "") return undefined;
  const type = request.headers.get("content-type") ?? "";
  const looksJson = text.startsWith("{") || text.startsWith('"') || text.startsWith("[");
  if (!type.includes("json") && !looksJson && text !== "null") {
    if (ctx.faults.has("raw-scroll-id-refused")) {
      throw badRequest("validation_error", 'body: expected {"scrollId": "<id>"} as application/json');
    }
    return text; // the raw id as text/plain
  }
  const body = parseJson(text);
  if (body === null) {
    if (ctx.faults.has("first-page-null-body-refused")) {
      throw badRequest("validation_error", 'body: expected no body (first page) or {"scrollId": "<id>"}');
    }
    return undefined;
  }
  if (typeof body === "string") return body;
  if (typeof body === "object" && !Array.isArray(body)) {
    const id = (body as Record<string, unknown>).scrollId;
    if (id === undefined || id === null) return undefined;
    if (typeof id === "string") return id;
    throw badRequest("invalid_scroll_id", `scrollId: expected a string, got ${describeType(id)}`);
  }
  throw badRequest(
    "validation_error",
    `body: expected no body or null (first page), or {"scrollId": "<id>"} (next page), got ${describeType(body)}`,
  );
}

function compareScalars(a: string | number | boolean, b: string | number | boolean): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta !== tb) {
    const rank = { number: 0, string: 1, boolean: 2 } as Record<string, number>;
    return (rank[ta] ?? 3) - (rank[tb] ?? 3);
  }
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function sortField(record: object, field: string): string | number | boolean | undefined {
  if (!Object.hasOwn(record, field)) return undefined;
  const value = (record as Record<string, unknown>)[field];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : undefined;
}

/** Filters and orders once; the result is the scroll's snapshot. */
function snapshot(
  ctx: ReferenceContext,
  identityOrdered: readonly object[],
  query: ScanQuery,
): readonly object[] {
  let records = identityOrdered;
  if (query.filter && !ctx.faults.has("scan-ignores-filter")) records = records.filter(query.filter);
  const field = query.sort;
  if (field !== undefined && !ctx.faults.has("scan-ignores-sort")) {
    // Stable sort over identity order: ties keep identity order. Records without the field go last.
    const present: object[] = [];
    const missing: object[] = [];
    for (const record of records) (sortField(record, field) === undefined ? missing : present).push(record);
    present.sort((a, b) =>
      compareScalars(
        sortField(a, field) as string | number | boolean,
        sortField(b, field) as string | number | boolean,
      ),
    );
    records = missing.length > 0 ? present.concat(missing) : present;
  }
  // desc is the exact reverse of asc, so records without the sort field come first.
  if (query.order === "desc" && !ctx.faults.has("scan-ignores-order")) records = records.slice().reverse();
  return records;
}

function page(ctx: ReferenceContext, scroll: Scroll, first: boolean): Response {
  if (ctx.faults.has("scan-restarts-after-end")) return cyclicPage(scroll, first);
  let start = scroll.position;
  if (!first && ctx.faults.has("scan-repeats-record-at-page-boundary")) start = Math.max(0, start - 1);
  if (!first && ctx.faults.has("scan-loses-record-at-page-boundary")) start += 1;
  const size = ctx.faults.has("scan-exceeds-limit") ? scroll.limit + 1 : scroll.limit;
  const values = scroll.records.slice(start, start + size);
  scroll.position = Math.min(start + values.length, scroll.records.length);
  if (scroll.position < scroll.records.length || ctx.faults.has("scan-never-ends")) {
    return jsonResponse(200, { scrollId: scroll.id, values });
  }
  // End of results: the last page already omits scrollId, and the scroll is gone.
  ctx.state.scrolls.close(scroll.id);
  return jsonResponse(200, { values });
}

/** Only with the scan-restarts-after-end fault: the scroll never closes, an empty page marks the end once,
 *  and the request after it starts the scroll over. */
function cyclicPage(scroll: Scroll, first: boolean): Response {
  if (!first && scroll.position >= scroll.records.length) {
    scroll.position = 0;
    return jsonResponse(200, { scrollId: scroll.id, values: [] });
  }
  const values = scroll.records.slice(scroll.position, scroll.position + scroll.limit);
  scroll.position += values.length;
  return jsonResponse(200, { scrollId: scroll.id, values });
}

/** Answers one scan request: opens a scroll (no id in the body) or serves the next page of one. */
export async function scan(ctx: ReferenceContext, request: Request, spec: ScanSpec): Promise<Response> {
  const scrollId = await readScrollId(ctx, request);
  const now = ctx.clock.now();
  const known = scrollId === undefined ? undefined : ctx.state.scrolls.take(scrollId, spec.scope, now);
  if (scrollId === undefined || (!known && ctx.faults.has("unknown-scroll-id-restarts"))) {
    const query = parseScanQuery(ctx, new URL(request.url), spec.filterOptions ?? {});
    const records = snapshot(ctx, spec.records(), query);
    const scroll = ctx.state.scrolls.create(spec.scope, records, query.limit, now);
    return page(ctx, scroll, true);
  }
  const scroll = known;
  if (!scroll) {
    throw badRequest(
      "invalid_scroll_id",
      `scrollId: "${scrollId.length > 80 ? `${scrollId.slice(0, 80)}...` : scrollId}" is unknown, finished or expired (scrolls expire after 5 minutes without use); start a new scan with no body`,
    );
  }
  return page(ctx, scroll, false);
}
