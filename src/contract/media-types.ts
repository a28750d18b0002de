// Matching a message's Content-Type to the contract's declared media types, and turning raw body text into
// the value the schema describes (JSON, form fields, plain text).
import { type Violation, violation } from "./violations.ts";

/** "Application/JSON; charset=utf-8" -> "application/json". */
export function essence(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** True for application/json and any +json media type. */
export function isJsonMedia(media: string): boolean {
  return media === "application/json" || media.endsWith("+json");
}

/** The declared media type key serving `contentType`: exact, then +json as JSON, then wildcards. */
export function matchMediaType(declared: string[], contentType: string): string | undefined {
  const wanted = essence(contentType);
  const exact = declared.find((media) => essence(media) === wanted);
  if (exact) return exact;
  if (wanted.endsWith("+json")) {
    const json = declared.find((media) => essence(media) === "application/json");
    if (json) return json;
  }
  const [type] = wanted.split("/");
  return declared.find((media) => essence(media) === "*/*" || essence(media) === `${type}/*`);
}

/** A decoded body: absent, present with its value, or a violation (bad JSON). */
export type Decoded = { present: false } | { present: true; value: unknown } | { violation: Violation };

/**
 * The body as the schema sees it. Strings and bytes are raw message text: parsed as JSON for JSON media
 * types, as fields for form bodies, kept for text. Anything else is taken as the already parsed value.
 * An empty or absent body is `present: false`.
 */
export function decodeBody(body: unknown, media: string): Decoded {
  let text: string | undefined;
  if (typeof body === "string") text = body;
  else if (body instanceof Uint8Array) text = new TextDecoder().decode(body);
  else if (body === undefined) return { present: false };
  else return { present: true, value: body };

  if (text === "") return { present: false };
  const kind = essence(media);
  if (isJsonMedia(kind)) {
    try {
      return { present: true, value: JSON.parse(text) as unknown };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        violation: violation(
          "json",
          `body is not valid JSON (${reason}); expected ${kind}, got: ${JSON.stringify(text.slice(0, 80))}`,
        ),
      };
    }
  }
  if (kind === "application/x-www-form-urlencoded")
    return { present: true, value: Object.fromEntries(new URLSearchParams(text)) };
  return { present: true, value: text };
}
