// Canonical JSON text of a parsed message: object keys sorted, no whitespace. Two payloads that are equal
// as data (a redelivery re-serialized with other key order or spacing) give the same text, so the stream
// rules can tell a redelivery from a reused objectVersion by comparing fingerprints of this text.

// Quote, backslash, C0 controls, line separators and lone surrogates: JSON.stringify writes these escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to find
const needsEscape = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

function stringText(text: string): string {
  return needsEscape.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * The canonical text of a value that came from JSON.parse. Recursion follows the value's nesting, which
 * the checker bounds before it calls this (CheckOptions.maxDepth), so no input can exhaust the stack.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === "string") return stringText(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value === null || typeof value !== "object") return "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) out += ",";
      out += canonicalJson(value[index]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Most producers write keys in one fixed order; sorting is needed only to compare across producers.
  if (keys.length > 1) keys.sort();
  let out = "{";
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    if (index > 0) out += ",";
    out += `${stringText(key)}:${canonicalJson(record[key])}`;
  }
  return `${out}}`;
}
