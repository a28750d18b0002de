// Query parameters of every scan: limit, sort, order, filter (docs/assumptions.md, "Scans").
import type { ReferenceContext } from "./context.ts";
import { badRequest } from "./errors.ts";
import { compileFilter, type FilterOptions, type Predicate } from "./filter.ts";

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 100;
/** With the short-pages variant: the most records a lookups scan page holds, whatever limit asks. */
export const SHORT_PAGE = 25;

/** With the sort-fields-limited variant: the fields that sort (lookups and statistics alike). */
const LIMITED_SORT_FIELDS: readonly string[] = ["code", "updateDate", "createdAt", "semanticScore"];

export interface ScanQuery {
  limit: number;
  sort?: string;
  order: "asc" | "desc";
  filter?: Predicate;
}

/** `boundless`: a scan whose limit bound the document does not give (the lookups scan). */
export function parseScanQuery(
  ctx: ReferenceContext,
  url: URL,
  filterOptions: FilterOptions,
  boundless = false,
): ScanQuery {
  const params = url.searchParams;
  const unbounded =
    ctx.faults.has("limit-over-100-accepted-silently") ||
    (boundless && ctx.variants.has("lookup-scan-limit-unbounded"));
  const max = unbounded ? Number.MAX_SAFE_INTEGER : MAX_LIMIT;
  let limit = DEFAULT_LIMIT;
  const rawLimit = params.get("limit");
  // The faults: the default page size of a sorted autopilot scan is 50, of a filtered one 25, not 100.
  if (rawLimit === null && !boundless) {
    if (params.get("sort") && ctx.faults.has("autopilot-sorted-default-limit-50")) limit = 50;
    if (params.get("filter") && ctx.faults.has("autopilot-filtered-default-limit-25")) limit = 25;
  }
  if (rawLimit !== null) {
    limit = /^\d{1,15}$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
    if (limit > max && ctx.variants.has("limit-above-max-clamped")) limit = max;
    if (!(limit >= 1 && limit <= max)) {
      throw badRequest(
        "invalid_limit",
        `limit: expected an integer from 1 to ${MAX_LIMIT}, got "${rawLimit}"`,
      );
    }
  }
  // The limit is still validated as always; the page is shorter than it asks.
  if (boundless && ctx.variants.has("short-pages")) limit = Math.min(limit, SHORT_PAGE);
  // The fault serves short pages on the autopilot scans, whose page size the document gives (default 100).
  if (!boundless && ctx.faults.has("autopilot-scan-short-pages")) limit = Math.min(limit, SHORT_PAGE);
  const rawOrder = params.get("order");
  let order: "asc" | "desc" = "asc";
  if (rawOrder !== null) {
    const lower = rawOrder.toLowerCase();
    if (lower !== "asc" && lower !== "desc") {
      throw badRequest("invalid_order", `order: expected asc or desc, got "${rawOrder}"`);
    }
    order = lower;
  }
  const rawSort = params.get("sort");
  let sort: string | undefined;
  if (rawSort !== null && rawSort !== "") {
    if (!/^[A-Za-z_$][\w$-]*$/.test(rawSort)) {
      throw badRequest(
        "invalid_sort",
        `sort: expected the name of a top-level field of the record (e.g. code), got "${rawSort}"`,
      );
    }
    if (ctx.variants.has("sort-fields-limited") && !LIMITED_SORT_FIELDS.includes(rawSort)) {
      throw badRequest(
        "invalid_sort",
        `sort: "${rawSort}" cannot be sorted on; sortable fields: ${LIMITED_SORT_FIELDS.join(", ")}`,
      );
    }
    sort = rawSort;
  }
  const rawFilter = params.get("filter");
  const options: FilterOptions = {
    ...filterOptions,
    ...(ctx.variants.has("equals-exact-stored-value") ? { typePaths: [] } : {}),
    caseSensitive: ctx.variants.has("equals-case-sensitive"),
    equalsOnly: ctx.variants.has("filter-equals-only"),
    missingFieldMatchesEquals: ctx.faults.has("filter-equals-matches-missing-field"),
  };
  const filter =
    rawFilter !== null && rawFilter.trim() !== "" ? compileFilter(rawFilter, options) : undefined;
  return { limit, sort, order, filter };
}
