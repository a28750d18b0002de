// Secrets never reach a report: credential values, tokens and secret-bearing fields become "[redacted]".

export const REDACTED = "[redacted]";

/** Headers whose whole value is a credential. */
const secretHeaders = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]);

/** Field names whose value is a secret, in JSON bodies, form bodies and query strings. */
const secretFields = [
  "access_token",
  "refresh_token",
  "id_token",
  "client_secret",
  "clientSecret",
  "password",
  "accessToken",
  "refreshToken",
];
const fieldAlternation = secretFields.join("|");
const jsonField = new RegExp(`("(?:${fieldAlternation})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, "g");
const formField = new RegExp(`((?:^|[?&\\s])(?:${fieldAlternation})=)[^&\\s"]*`, "g");

export class Redactor {
  private readonly secrets = new Set<string>();

  /** Remember a value that must never appear in evidence (a client secret, an access token). Very short
   *  values are ignored: replacing every "a" would destroy the evidence without protecting anything. */
  addSecret(value: string | undefined): void {
    if (value === undefined || value.length < 4) return;
    this.secrets.add(value);
    const encoded = encodeURIComponent(value);
    if (encoded !== value) this.secrets.add(encoded);
  }

  text(input: string): string {
    let out = input.replace(jsonField, `$1"${REDACTED}"`).replace(formField, `$1${REDACTED}`);
    // Longest first, so a secret that contains another is replaced whole.
    for (const secret of [...this.secrets].sort((a, b) => b.length - a.length)) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      out[name] = secretHeaders.has(name.toLowerCase()) ? redactCredentialHeader(value) : this.text(value);
    }
    return out;
  }

  /** Redacts every string inside a JSON-like value (used for the finished result, after the run has
   *  seen every token it will ever see). */
  deep<T>(value: T): T {
    if (typeof value === "string") return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.deep(v);
      return out as T;
    }
    return value;
  }
}

/** Keeps the scheme ("Bearer", "Basic") so the evidence still shows how the request authenticated. */
function redactCredentialHeader(value: string): string {
  const scheme = /^(\w+)\s+\S/.exec(value);
  return scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
}
