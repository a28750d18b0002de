// Every form a secret can take in an output, for tests that grep outputs for leaks: raw, percent- and
// form-encoded, JSON-escaped (once and twice), \u-escaped, HTML-escaped, and for a client credential the
// Basic value of the pair (raw and RFC 6749 form-encoded; padded, unpadded, URL-safe alphabet).
import { formEncode } from "../../src/client/token.ts";

export function secretForms(clientId: string | undefined, secret: string): string[] {
  const forms = new Set<string>([
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    formEncode(secret),
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(secret).slice(1, -1).replace(/\//g, "\\/"),
    JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    [...secret]
      .map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
      .join(""),
    secret.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`),
    secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"),
  ]);
  if (clientId !== undefined) {
    for (const pair of [`${clientId}:${secret}`, `${formEncode(clientId)}:${formEncode(secret)}`]) {
      const b64 = Buffer.from(pair).toString("base64");
      forms.add(b64);
      forms.add(b64.replace(/=+$/, ""));
      forms.add(Buffer.from(pair).toString("base64url"));
      forms.add(encodeURIComponent(b64));
    }
  }
  return [...forms].filter((f) => f.length >= 4);
}

/** The forms of `secrets` found in `text` (empty: nothing leaked). */
export function leaksIn(text: string, secrets: { clientId?: string; secret: string }[]): string[] {
  const found: string[] = [];
  for (const { clientId, secret } of secrets)
    for (const form of secretForms(clientId, secret)) if (text.includes(form)) found.push(form);
  return found;
}
