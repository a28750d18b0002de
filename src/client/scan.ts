// Cursor scans of lookups and autopilot statistics: first page, next page by scroll id, and a full scan
// that always ends (a hard page cap, plus the end signals real deployments use).
import { type Auth, type Body, type ClientConfig, joinUrl, type Query, segment, send } from "./http.ts";
import type { ApiResponse } from "./response.ts";
import type { AutopilotStatistic, Lookup, ScanPage } from "./types.ts";

/** How the next-page request carries the scroll id (the document does not say; deployments differ). */
export type ScrollIdEncoding = "object" | "raw-text" | "json-string";
export const scrollIdEncodings: readonly ScrollIdEncoding[] = ["object", "raw-text", "json-string"];

export interface ScanQuery {
  limit?: number | string;
  filter?: string;
  sort?: string;
  order?: string;
}

export type ScanEndpoint =
  | { kind: "lookups"; tenantId: string }
  | { kind: "autopilot"; tenantId: string }
  | { kind: "autopilot-type"; tenantId: string; lookupType: string };

/** Record type per endpoint. */
export type ScanRecord<E extends ScanEndpoint> = E extends { kind: "lookups" } ? Lookup : AutopilotStatistic;

export function scanUrl(config: ClientConfig, endpoint: ScanEndpoint, query: ScanQuery = {}): string {
  const q: Query = { limit: query.limit, filter: query.filter, sort: query.sort, order: query.order };
  switch (endpoint.kind) {
    case "lookups":
      return joinUrl(config.rdmUrl, `/lookups/${segment(endpoint.tenantId)}/_scan`, q);
    case "autopilot":
      return joinUrl(config.baseUrl, `/configuration/${segment(endpoint.tenantId)}/autopilot/stats/_scan`, q);
    case "autopilot-type":
      return joinUrl(
        config.baseUrl,
        `/configuration/${segment(endpoint.tenantId)}/autopilot/stats/${segment(endpoint.lookupType)}/_scan`,
        q,
      );
  }
}

export function scrollBody(scrollId: string, encoding: ScrollIdEncoding): Body {
  switch (encoding) {
    case "object":
      return { json: { scrollId } };
    case "raw-text":
      return { text: scrollId, contentType: "text/plain" };
    case "json-string":
      return { json: scrollId };
  }
}

export interface FirstPageOptions {
  /** The document allows no body or a JSON null on the first call. Default "none". */
  firstBody?: "none" | "null";
}

export function scanFirst<E extends ScanEndpoint>(
  config: ClientConfig,
  auth: Auth,
  endpoint: E,
  query: ScanQuery = {},
  options: FirstPageOptions = {},
): Promise<ApiResponse<ScanPage<ScanRecord<E>>>> {
  const body: Body | undefined = options.firstBody === "null" ? { json: null } : undefined;
  return send(config, "POST", scanUrl(config, endpoint, query), { auth, body });
}

export function scanNext<E extends ScanEndpoint>(
  config: ClientConfig,
  auth: Auth,
  endpoint: E,
  scrollId: string,
  encoding: ScrollIdEncoding,
  query: ScanQuery = {},
): Promise<ApiResponse<ScanPage<ScanRecord<E>>>> {
  return send(config, "POST", scanUrl(config, endpoint, query), {
    auth,
    body: scrollBody(scrollId, encoding),
  });
}

/** Why a full scan stopped. The first two are the end signals deployments use; the rest are failures. */
export type ScanEnd =
  | "no-scroll-id" // the response carried no scrollId
  | "empty-page" // the response carried an empty values array
  | "repeated-scroll-id" // the same scrollId came back with the same page: no progress
  | "page-cap" // the hard page cap was reached
  | "error" // a non-2xx answer
  | "malformed"; // a 2xx answer that is not { values: [...] }

export interface ScanPageResult<R> {
  response: ApiResponse<ScanPage<R>>;
  values: R[];
  scrollId?: string;
}

export interface FullScanOptions extends FirstPageOptions {
  query?: ScanQuery;
  encoding?: ScrollIdEncoding;
  /** Hard cap on requests; default 1000. */
  maxPages?: number;
  /** Hard cap on the page text a scan reads, in characters; default DEFAULT_SCAN_BYTES. A scan that never
   *  ends with fat pages would otherwise hold every page until the heap is gone. Reaching it ends the scan
   *  with "page-cap" (and `capped: "bytes"`). */
  maxBytes?: number;
  /** Send the query parameters again on later pages (harmless where they are ignored). Default true. */
  repeatQuery?: boolean;
  /** Go on with a scroll read before: the pages come after this one (its scrollId is sent first), and
   *  maxPages counts the pages of this call only. */
  after?: { scrollId: string; values: readonly unknown[] };
}

/** Page text one scan reads at most by default (see FullScanOptions.maxBytes). */
export const DEFAULT_SCAN_BYTES = 24 * 1024 * 1024;

export interface FullScanResult<R> {
  pages: ScanPageResult<R>[];
  records: R[];
  end: ScanEnd;
  /** With end "page-cap": which cap was reached. */
  capped?: "pages" | "bytes";
  /** The response that ended the scan with "error" or "malformed". */
  failure?: ApiResponse<unknown>;
}

/** The values and scrollId of a 2xx scan answer, or undefined when it does not have that shape. A null
 *  among the values is no record: callers read fields of every record, so such a page is malformed. */
export function pageOf<R>(
  response: ApiResponse<ScanPage<R>>,
): { values: R[]; scrollId?: string } | undefined {
  const body = response.body;
  if (!response.ok || typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const values = (body as { values?: unknown }).values;
  if (!Array.isArray(values) || values.includes(null)) return undefined;
  const scrollId = (body as { scrollId?: unknown }).scrollId;
  return typeof scrollId === "string" && scrollId !== ""
    ? { values: values as R[], scrollId }
    : { values: values as R[] };
}

/** Pages of one scan, first to last; the generator returns why it stopped. */
export async function* scanPages<E extends ScanEndpoint>(
  config: ClientConfig,
  auth: Auth,
  endpoint: E,
  options: FullScanOptions = {},
): AsyncGenerator<
  ScanPageResult<ScanRecord<E>>,
  { end: ScanEnd; failure?: ApiResponse<unknown>; capped?: "pages" | "bytes" }
> {
  const maxPages = options.maxPages ?? 1000;
  const maxBytes = options.maxBytes ?? DEFAULT_SCAN_BYTES;
  let bytes = 0;
  const encoding = options.encoding ?? "object";
  const query = options.query ?? {};
  const laterQuery = options.repeatQuery === false ? {} : query;
  const after = options.after;
  let previous: { scrollId?: string; json: string } | undefined = after
    ? { scrollId: after.scrollId, json: JSON.stringify(after.values) }
    : undefined;
  let response = after
    ? await scanNext(config, auth, endpoint, after.scrollId, encoding, laterQuery)
    : await scanFirst(config, auth, endpoint, query, options);
  for (let count = 1; ; count++) {
    const page = pageOf(response);
    if (!page) return { end: response.ok ? "malformed" : "error", failure: response };
    const result: ScanPageResult<ScanRecord<E>> = { response, values: page.values };
    if (page.scrollId !== undefined) result.scrollId = page.scrollId;
    const json = JSON.stringify(page.values);
    if (page.values.length === 0) return { end: "empty-page" };
    if (previous && page.scrollId === previous.scrollId && json === previous.json)
      return { end: "repeated-scroll-id" };
    bytes += response.text.length;
    yield result;
    if (page.scrollId === undefined) return { end: "no-scroll-id" };
    if (count >= maxPages) return { end: "page-cap", capped: "pages" };
    if (bytes >= maxBytes) return { end: "page-cap", capped: "bytes" };
    previous = { scrollId: page.scrollId, json };
    response = await scanNext(config, auth, endpoint, page.scrollId, encoding, laterQuery);
  }
}

/** Every page of a scan, collected; never loops forever. */
export async function scanAll<E extends ScanEndpoint>(
  config: ClientConfig,
  auth: Auth,
  endpoint: E,
  options: FullScanOptions = {},
): Promise<FullScanResult<ScanRecord<E>>> {
  const pages: ScanPageResult<ScanRecord<E>>[] = [];
  const iterator = scanPages(config, auth, endpoint, options);
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      const result: FullScanResult<ScanRecord<E>> = {
        pages,
        records: pages.flatMap((p) => p.values),
        end: next.value.end,
      };
      if (next.value.failure) result.failure = next.value.failure;
      if (next.value.capped) result.capped = next.value.capped;
      return result;
    }
    pages.push(next.value);
  }
}
