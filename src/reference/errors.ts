// Error answers: {"error", "error_description"} JSON with a stable snake_case code (docs/assumptions.md).
import type { ErrorBody } from "./types.ts";
import type { VariantName } from "./variants.ts";

const JSON_HEADERS = { "content-type": "application/json; charset=UTF-8" };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function errorResponse(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, { error, error_description: description } satisfies ErrorBody, headers);
}

/** Errors whose status the document leaves open: variants (variants.ts) answer them differently. */
export type ErrorKind = "quota" | "expired-token" | "missing-token" | "tenant-refused" | "unknown-scroll-id";

/** A client error raised deep in a handler and turned into its answer at the edge. */
export class HttpError extends Error {
  override name = "HttpError";
  kind?: ErrorKind;
  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }

  /** Tags the error with its kind, for the variants that choose its status. */
  as(kind: ErrorKind): this {
    this.kind = kind;
    return this;
  }

  toResponse(): Response {
    return errorResponse(this.status, this.code, this.message, this.headers);
  }
}

/** Codes of 400 answers that are validation errors (a field or parameter with a wrong value). */
const VALIDATION_CODES = new Set([
  "validation_error",
  "invalid_limit",
  "invalid_offset",
  "invalid_order",
  "invalid_sort",
  "invalid_filter",
]);

/** The status an error gets with the switched-on variants. */
function statusOf(variants: ReadonlySet<VariantName>, error: HttpError): number {
  switch (error.kind) {
    case "quota":
      if (variants.has("quota-refusal-400")) return 400;
      if (variants.has("quota-refusal-403")) return 403;
      if (variants.has("quota-refusal-409")) return 409;
      return error.status;
    case "expired-token":
      return variants.has("expired-token-403") ? 403 : error.status;
    case "missing-token":
      return variants.has("missing-token-403") ? 403 : error.status;
    case "tenant-refused":
      return variants.has("tenant-refused-404") ? 404 : error.status;
    case "unknown-scroll-id":
      if (variants.has("unknown-scroll-id-404")) return 404;
      if (variants.has("unknown-scroll-id-410")) return 410;
      return error.status;
    default:
      return error.status === 400 && VALIDATION_CODES.has(error.code) && variants.has("validation-error-422")
        ? 422
        : error.status;
  }
}

/** An error as the reference answers it: the kit's {error, error_description}, or a variant's style. */
export function renderError(variants: ReadonlySet<VariantName>, error: HttpError): Response {
  const status = statusOf(variants, error);
  if (variants.has("error-body-problem-json")) {
    const body = {
      type: `urn:lckit:problem:${error.code}`,
      title: error.code,
      status,
      detail: error.message,
    };
    return new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/problem+json", ...error.headers },
    });
  }
  if (variants.has("error-body-plain-text")) {
    return new Response(`${error.message}\n`, {
      status,
      headers: { "content-type": "text/plain; charset=UTF-8", ...error.headers },
    });
  }
  return errorResponse(status, error.code, error.message, error.headers);
}

export const badRequest = (code: string, description: string) => new HttpError(400, code, description);
export const validationError = (field: string, problem: string) =>
  new HttpError(400, "validation_error", `${field}: ${problem}`);
export const forbidden = (description: string) => new HttpError(403, "forbidden", description);
export const notFound = (description: string) => new HttpError(404, "not_found", description);
