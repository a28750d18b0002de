// The scroll protocol shared by the lookups scan and both autopilot scans (docs/assumptions.md, "Scans").
import type { ReferenceContext } from "./context.ts";
import { badRequest, HttpError, jsonResponse } from "./errors.ts";
import type { FilterOptions } from "./filter.ts";
import { describeType, parseJson, readText } from "./http-body.ts";
import { fullLastPageRepeated, keysetPages, overlappingPages, sortedEachPage } from "./paging-faults.ts";
import { type ScrollView, scanView } from "./scan-order.ts";
import { parseScanQuery, type ScanQuery } from "./scan-query.ts";
import { type Scroll, slice } from "./scroll.ts";
import { orderAsChosen } from "./sort-choices.ts";

export interface ScanSpec {
  /** Scan and tenant, e.g. "lookups:acme"; scroll ids are valid only within their scope. */
  scope: string;
  /** The records in identity order, as a shared array that is never mutated; called when a scroll opens. */
  records: () => readonly object[];
  /** Records of `records` the scan serves at all (e.g. one lookup type), applied with the filter. */
  where?: (record: object) => boolean;
  filterOptions?: FilterOptions;
  /** How a record is answered (record-field variants); default: as stored. */
  present?: (record: object) => object;
  /** Sort each page on its own instead of the whole scroll (only the autopilot-type-scan-sorts-each-page
   *  fault sets it). */
  sortEachPage?: boolean;
}

function refuseEncoding(expected: string): HttpError {
  return badRequest(
    "validation_error",
    `body: expected ${expected} for the next page, or no body for the first`,
  );
}

/** The scroll id of a next-page request, or undefined for a first request (no body, null, {}). */
export async function readScrollId(ctx: ReferenceContext, request: Request): Promise<string | undefined> {
  const text = (await readText(request)).trim();
  if (text === "") return undefined;
  // The variant takes the body for the id itself, whatever it looks like; JSON null still opens a scroll.
  if (ctx.variants.has("scroll-id-raw-text-only")) return text === "null" ? undefined : text;
  const objectOnly = ctx.variants.has("scroll-id-object-only");
  const stringOnly = ctx.variants.has("scroll-id-json-string-only");
  const type = request.headers.get("content-type") ?? "";
  const looksJson = text.startsWith("{") || text.startsWith('"') || text.startsWith("[");
  if (!type.includes("json") && !looksJson && text !== "null") {
    if (ctx.faults.has("raw-scroll-id-refused") || objectOnly) {
      throw refuseEncoding('{"scrollId": "<id>"} as application/json');
    }
    if (stringOnly) throw refuseEncoding('the scroll id as a JSON string ("<id>")');
    return text; // the raw id as text/plain
  }
  const body = parseJson(text);
  if (body === null) {
    if (ctx.faults.has("first-page-null-body-refused")) {
      throw badRequest("validation_error", 'body: expected no body (first page) or {"scrollId": "<id>"}');
    }
    return undefined;
  }
  if (typeof body === "string") {
    if (objectOnly) throw refuseEncoding('{"scrollId": "<id>"} as application/json');
    return body;
  }
  if (typeof body === "object" && !Array.isArray(body)) {
    const id = (body as Record<string, unknown>).scrollId;
    if (id === undefined || id === null) return undefined;
    if (stringOnly) throw refuseEncoding('the scroll id as a JSON string ("<id>")');
    if (typeof id === "string") return id;
    throw badRequest("invalid_scroll_id", `scrollId: expected a string, got ${describeType(id)}`);
  }
  throw badRequest(
    "validation_error",
    `body: expected no body or null (first page), or {"scrollId": "<id>"} (next page), got ${describeType(body)}`,
  );
}

/** Filters and orders once, when the scroll opens (scan-order.ts: no record copied). */
function snapshot(
  ctx: ReferenceContext,
  base: readonly object[],
  query: ScanQuery,
  spec: ScanSpec,
): ScrollView {
  const where = spec.where;
  const filter =
    query.filter &&
    !ctx.faults.has("scan-ignores-filter") &&
    !(query.sort !== undefined && ctx.faults.has("scan-filter-dropped-under-sort"))
      ? query.filter
      : undefined;
  const field = query.sort !== undefined && !ctx.faults.has("scan-ignores-sort") ? query.sort : undefined;
  // desc is the exact reverse of asc, so records without the sort field come first.
  const reversed = query.order === "desc" && !ctx.faults.has("scan-ignores-order");
  const keep =
    filter && where ? (record: object) => where(record) && filter(record) : (filter ?? where ?? undefined);
  const perPage = field !== undefined && spec.sortEachPage === true;
  const view = scanView(base, {
    ...(keep ? { keep } : {}),
    ...(field === undefined || perPage ? {} : { field }),
    reversed: reversed && !perPage,
    // One more than the limit: the scan-exceeds-limit fault serves that many.
    firstPage: query.limit + 1,
    ...(ctx.faults.has("scan-first-page-ties-reversed") ? { firstPageTiesReversed: true } : {}),
  });
  if (field === undefined) return faultyPaging(ctx, view, query.limit, filter !== undefined);
  if (perPage) return sortedEachPage(view, field, reversed, query.limit);
  const chosen = orderAsChosen(ctx, view, field, reversed);
  return faultyPaging(ctx, chosen, query.limit, filter !== undefined, field);
}

/** The view as a seeded fault of paging serves it (paging-faults.ts); the view itself without one. */
function faultyPaging(
  ctx: ReferenceContext,
  view: ScrollView,
  limit: number,
  filtered: boolean,
  sortField?: string,
): ScrollView {
  if (sortField !== undefined && ctx.faults.has("scan-keyset-loses-ties"))
    return keysetPages(view, sortField, limit);
  if (sortField !== undefined && filtered && ctx.faults.has("scan-filtered-sorted-repeats-at-boundary"))
    return overlappingPages(view, limit);
  if (filtered && ctx.faults.has("scan-filtered-full-last-page-repeated"))
    return fullLastPageRepeated(view, limit);
  return view;
}

function page(
  ctx: ReferenceContext,
  scroll: Scroll,
  first: boolean,
  present?: ScanSpec["present"],
): Response {
  if (ctx.faults.has("scan-restarts-after-end")) return cyclicPage(scroll, first);
  let start = scroll.position;
  if (!first && ctx.faults.has("scan-repeats-record-at-page-boundary")) start = Math.max(0, start - 1);
  if (!first && ctx.faults.has("scan-loses-record-at-page-boundary")) start += 1;
  const size = ctx.faults.has("scan-exceeds-limit") ? scroll.limit + 1 : scroll.limit;
  const sliced = slice(scroll, start, start + size);
  const values = present ? sliced.map(present) : sliced;
  const wasAtEnd = !first && scroll.position >= scroll.length;
  scroll.position = Math.min(start + values.length, scroll.length);
  if (!first && ctx.variants.has("scroll-id-per-page")) ctx.state.scrolls.renew(scroll);
  if (scroll.position < scroll.length || ctx.faults.has("scan-never-ends")) {
    return jsonResponse(200, { scrollId: scroll.id, values });
  }
  return endOfResults(ctx, scroll, values, wasAtEnd);
}

/** The answer that holds the last records, and those after it, as the end-of-results variant says. */
function endOfResults(ctx: ReferenceContext, scroll: Scroll, values: object[], wasAtEnd: boolean): Response {
  const v = ctx.variants;
  const emptyFirst = v.has("end-empty-page") || v.has("end-empty-page-with-scroll-id");
  if (emptyFirst && values.length > 0 && !wasAtEnd) {
    // The last records still come with the scrollId; the end is told by the next answer.
    return jsonResponse(200, { scrollId: scroll.id, values });
  }
  if (v.has("end-empty-page-with-scroll-id") && scroll.endAnswers === 0) {
    scroll.endAnswers++;
    return jsonResponse(200, { scrollId: scroll.id, values: [] });
  }
  // The end: no scrollId (or null with the variant), and the scroll is gone.
  ctx.state.scrolls.close(scroll.id);
  return jsonResponse(200, v.has("end-scroll-id-null") ? { scrollId: null, values } : { values });
}

/** Only with the scan-restarts-after-end fault: the scroll never closes, an empty page marks the end once,
 *  and the request after it starts the scroll over. */
function cyclicPage(scroll: Scroll, first: boolean): Response {
  if (!first && scroll.position >= scroll.length) {
    scroll.position = 0;
    return jsonResponse(200, { scrollId: scroll.id, values: [] });
  }
  const values = slice(scroll, scroll.position, scroll.position + scroll.limit);
  scroll.position += values.length;
  return jsonResponse(200, { scrollId: scroll.id, values });
}

/** Answers one scan request: opens a scroll (no id in the body) or serves the next page of one. */
export async function scan(ctx: ReferenceContext, request: Request, spec: ScanSpec): Promise<Response> {
  // Read before the body is (only the first-page-null-body-drops-query fault asks).
  const probe = ctx.faults.has("first-page-null-body-drops-query") ? request.clone() : undefined;
  const scrollId = await readScrollId(ctx, request);
  const now = ctx.clock.now();
  // The fault takes a scroll id on any scan's path, of any tenant or lookup type: the scroll's own scope.
  const scope =
    scrollId !== undefined && ctx.faults.has("scroll-id-continues-on-any-path")
      ? (ctx.state.scrolls.scopeOf(scrollId) ?? spec.scope)
      : spec.scope;
  const known = scrollId === undefined ? undefined : ctx.state.scrolls.take(scrollId, scope, now);
  if (scrollId === undefined || (!known && ctx.faults.has("unknown-scroll-id-restarts"))) {
    // The fault: a first request with a null body opens the scan with the default query (no filter, no
    // sort, the default limit), as if the query string were not there.
    const nullFirst = probe !== undefined && (await probe.text()).trim() === "null";
    const query = parseScanQuery(
      ctx,
      nullFirst ? new URL(new URL(request.url).pathname, request.url) : new URL(request.url),
      spec.filterOptions ?? {},
      spec.scope.startsWith("lookups:"),
    );
    const view = snapshot(ctx, spec.records(), query, spec);
    // The fault keeps one open scroll: opening a scan closes every other, of every client.
    if (ctx.faults.has("scan-opening-closes-other-scrolls")) ctx.state.scrolls.clear();
    // The fault bounds the positions open scrolls hold at none: opening a scan closes the other open scrolls
    // that hold an index of their own (filtered ones), as an entry budget too small would.
    if (ctx.faults.has("scan-opening-closes-indexed-scrolls")) ctx.state.scrolls.closeIndexed();
    const scroll = ctx.state.scrolls.create(spec.scope, view, query.limit, now);
    return page(ctx, scroll, true, spec.present);
  }
  const scroll = known;
  if (!scroll) {
    throw new HttpError(
      400,
      "invalid_scroll_id",
      `scrollId: "${scrollId.length > 80 ? `${scrollId.slice(0, 80)}...` : scrollId}" is unknown, finished or expired (scrolls expire after 5 minutes without use); start a new scan with no body`,
    ).as("unknown-scroll-id");
  }
  return page(ctx, scroll, false, spec.present);
}
