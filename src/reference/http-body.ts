// Reading request bodies: at most 1 MiB, malformed JSON answered as a 400 that says where it broke.
import { HttpError } from "./errors.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

function tooLarge(size: string): HttpError {
  return new HttpError(
    413,
    "payload_too_large",
    `request body is ${size}; the limit is ${MAX_BODY_BYTES} bytes (1 MiB). Send a smaller body (e.g. fewer URIs per delete task)`,
  );
}

/** The body as text; "" when there is none. */
export async function readText(request: Request): Promise<string> {
  if (request.body === null) return "";
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) {
    await request.body.cancel().catch(() => undefined);
    throw tooLarge(`${declared} bytes`);
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge("over 1 MiB");
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0]) return new TextDecoder().decode(chunks[0]);
  return Buffer.concat(chunks).toString("utf8");
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(
      400,
      "invalid_json",
      `request body is not valid JSON (${(error as Error).message}); send a JSON document with Content-Type: application/json`,
    );
  }
}

/** The body parsed as JSON; undefined when there is no body. */
export async function readJson(request: Request): Promise<unknown> {
  const text = await readText(request);
  if (text.trim() === "") return undefined;
  return parseJson(text);
}

export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}
