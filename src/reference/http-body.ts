// Reading request bodies: at most 1 MiB, malformed JSON answered as a 400 that says where it broke.
import { announcedBeyond, joinChunks, readWithinLimit } from "../http/limited-body.ts";
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
  const declared = announcedBeyond(request.headers, MAX_BODY_BYTES);
  if (declared !== undefined) {
    await request.body.cancel().catch(() => undefined);
    throw tooLarge(`${declared} bytes`);
  }
  const read = await readWithinLimit(request.body, MAX_BODY_BYTES);
  if ("error" in read) throw read.error;
  if (read.over) throw tooLarge("over 1 MiB");
  const { chunks } = read;
  if (chunks.length === 1 && chunks[0]) return new TextDecoder().decode(chunks[0]);
  return new TextDecoder().decode(joinChunks(chunks));
}

/** Deepest nesting of arrays and objects a JSON body may have; no document of the interface needs more. */
export const MAX_JSON_DEPTH = 64;

/** Nesting depth of a JSON text (brackets outside strings), stopping as soon as it passes the limit. */
function nestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) depth--;
  }
  return false;
}

export function parseJson(text: string): unknown {
  // Checked before parsing: deep documents would overflow the stack of every later step (validation,
  // storing, answering) and must never be stored.
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    throw new HttpError(
      400,
      "validation_error",
      `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects; no request of this interface needs that, send a flatter document`,
    );
  }
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
  if (value === undefined) return "nothing (the field is missing)";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}
