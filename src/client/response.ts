// What every client call returns: the raw status, headers and text plus the parsed body, so callers can
// judge tolerant outcomes themselves (the client never throws on a non-2xx answer).

export interface ApiResponse<T> {
  request: { method: string; url: string };
  status: number;
  /** True for 2xx. */
  ok: boolean;
  headers: Headers;
  /** Media type without parameters, lower case; "" when absent. */
  contentType: string;
  text: string;
  /** The body parsed as JSON; undefined when the body is empty or not JSON. */
  body: unknown;
  /** The body as the documented success shape: set when ok and the body parsed. Not validated here
   *  (the schema suite validates bodies); callers that judge a target must check the shape they use. */
  data?: T;
}

export async function readResponse<T>(
  request: { method: string; url: string },
  response: Response,
): Promise<ApiResponse<T>> {
  const text = await response.text();
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  let body: unknown;
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  const ok = response.status >= 200 && response.status < 300;
  const result: ApiResponse<T> = {
    request,
    status: response.status,
    ok,
    headers: response.headers,
    contentType,
    text,
    body,
  };
  if (ok && body !== undefined) result.data = body as T;
  return result;
}

/** One line naming a response, for error messages: "POST http://x/_scan -> 400 {"error":...}". */
export function describeResponse(response: ApiResponse<unknown>, maxBody = 300): string {
  const body = response.text.length > maxBody ? `${response.text.slice(0, maxBody)}...` : response.text;
  return `${response.request.method} ${response.request.url} -> ${response.status}${body ? ` ${body}` : ""}`;
}
