// Error answers: {"error", "error_description"} JSON with a stable snake_case code (docs/assumptions.md).

export interface ErrorBody {
  error: string;
  error_description: string;
}

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

/** A client error raised deep in a handler and turned into its answer at the edge. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }

  toResponse(): Response {
    return errorResponse(this.status, this.code, this.message, this.headers);
  }
}

export const badRequest = (code: string, description: string) => new HttpError(400, code, description);
export const validationError = (field: string, problem: string) =>
  new HttpError(400, "validation_error", `${field}: ${problem}`);
export const forbidden = (description: string) => new HttpError(403, "forbidden", description);
export const notFound = (description: string) => new HttpError(404, "not_found", description);
