// Secrets never reach a report: credential values, tokens and secret-bearing fields become "[redacted]",
// or, in a recording the kit writes (pseudonyms), each distinct secret a stable label of its own
// (pseudonyms.ts), so a judge of the recording still tells tokens and clients apart.
// A target may echo a secret in any encoding, so every known secret is matched in every form it can take
// (raw, percent- or form-encoded, JSON-escaped at any depth, HTML entities, inside any Base64 blob), and
// fields and headers that carry credentials are redacted whatever their value.

import { formEncode } from "../client/token.ts";
import { Pseudonyms, type SecretKind } from "./pseudonyms.ts";
import { AnchorIndex, longestAlnumRun } from "./secret-anchors.ts";
import { secretFields, secretFieldsIn } from "./secret-fields.ts";

export const REDACTED = "[redacted]";

/** Headers whose whole value is a credential (besides names matching credentialHeaderName). */
const secretHeaders = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"]);
/** Any other header whose name says it carries a credential (x-auth-token, x-client-secret, ...). CORS
 *  headers name credentials without carrying one; WWW-Authenticate carries the challenge, not a secret. */
const credentialHeaderName = /auth|token|secret|password|passwd|credential|session|api-?key|cookie/i;
const notCredentialHeader = /^(?:access-control-|www-authenticate$)/i;

const fieldAlternation = secretFields.join("|");
/** A secret field in a form body or query string, also percent-encoded once (`client_secret%3D...`). */
const formField = new RegExp(`((?:^|[?&\\s;,])(?:${fieldAlternation})(?:=|%3[dD]))[^&\\s"'<>\\\\]*`, "g");
/** Both kinds of secret field name the field: a text naming none is spared the search for them. */
const anyField = new RegExp(fieldAlternation);
/** An HTTP credential (RFC 7235 token68) after its scheme, wherever it appears (an echoed header in a
 *  body, a debug field); an auth-param like `error="..."` is not a credential and is kept. */
const schemeCredential = /\b(Basic|Bearer|Digest|Negotiate)(\s+|%20|\+)([A-Za-z0-9._~+/-]{8,}=*)/g;

/** Secrets shorter than this are ignored: replacing every "abc" would destroy the evidence and protect
 *  nothing. */
const MIN_SECRET = 4;
/** A Base64 fragment shorter than this could occur by chance. */
const MIN_FRAGMENT = 8;
const B64_SENTINEL = "\u0000b64\u0000";

/** One form of a secret (or of its head) as the redactor matches it. Its pattern is made when a text may
 *  hold it: a run learns hundreds of tokens, of which few are ever echoed. */
class Form {
  #pattern: string | undefined;
  constructor(
    /** The text the pattern is made from, and by which maker (see guarded()). */
    readonly text: string,
    /** Base64 fragments match only literally; other forms also as %hh, \uhhhh or &#..; escapes (h a hex digit). */
    readonly escapable: boolean,
  ) {}

  get pattern(): string {
    if (this.#pattern === undefined) this.#pattern = patternOf(this.text, this.escapable, false);
    return this.#pattern;
  }

  /** What the pattern is made from: forms with one key have one pattern. */
  get key(): string {
    return `${this.escapable ? "e" : "b"}:${this.text}`;
  }
}

class Known extends Form {
  constructor(
    text: string,
    escapable: boolean,
    /** The secret this form is of, and what it is: its pseudonym's key. */
    readonly origin: string,
    readonly kind: SecretKind,
    /** Order of addition: among patterns of one length, the first added is tried first. */
    readonly seq: number,
    /** The first HEAD_CHARS characters, in every form: what is left of the secret where a text was cut. */
    readonly head: Form,
  ) {
    super(text, escapable);
  }
}

/** A secret cut short by an excerpt ("...", "…") still shows its start: this many characters of it, in
 *  any encoding, just before a cut mark are redacted up to the mark. */
const HEAD_CHARS = 6;
const cutMark = /\.\.\.|…/g;
/** How far before a cut mark the start of a secret is looked for. */
const CUT_WINDOW = 512;

export class Redactor {
  private readonly secrets = new Set<string>();
  /** Every form of every secret, filed under letters and digits it shows in any encoding, so a text is
   *  scanned once for the few secrets it may hold, not matched against thousands of them. */
  private readonly known = new AnchorIndex<Known>();
  /** The head of each form, filed likewise, for the excerpts an ellipsis cut. */
  private readonly heads = new AnchorIndex<Form>();
  /** Keys of the heads filed (Form.key). */
  private readonly headForms = new Set<string>();
  private seq = 0;
  private readonly cache = new Map<string, RegExp>();
  /** Labels per secret, when each secret is replaced by its own (a recording's redaction). */
  private readonly names: Pseudonyms | undefined;
  /** Whether every token issued so far is known (addSecret): then a bearer token it never learnt is
   *  labelled never issued. Only the kit's own run can say so, and only while no token answer is still
   *  being read; otherwise a token is labelled a token. */
  private readonly issuedWithin: () => boolean;

  constructor(
    options: {
      pseudonyms?: boolean;
      issuedWithin?: boolean | (() => boolean);
      /** The label table to use (shared with what labelled the traffic before: labelSecrets). */
      names?: Pseudonyms;
    } = {},
  ) {
    this.names = options.pseudonyms ? (options.names ?? new Pseudonyms()) : undefined;
    const within = options.issuedWithin;
    this.issuedWithin =
      options.pseudonyms !== true || within === undefined || within === false
        ? () => false
        : within === true
          ? () => true
          : within;
  }

  /** What replaces a secret: its label, or the one placeholder. */
  private label(value: string, kind: SecretKind): string {
    return this.names === undefined ? REDACTED : this.names.of(value, kind);
  }

  /** Remember a value that must never appear in evidence (a client secret, an access token); `origin` is
   *  the secret it stands for where it is an encoding of one (a Basic pair stands for its secret). */
  addSecret(value: string | undefined, kind: SecretKind = "token", origin: string | undefined = value): void {
    if (value === undefined || value.length < MIN_SECRET || this.secrets.has(value)) return;
    this.secrets.add(value);
    const file = (text: string, escapable: boolean) => {
      const head = [...text].slice(0, HEAD_CHARS).join("");
      const entry = new Known(text, escapable, origin ?? value, kind, this.seq++, new Form(head, escapable));
      // The longest run of letters and digits: every encoding keeps it readable (secret-anchors.ts).
      this.known.add(longestAlnumRun(text), entry);
      if (!this.headForms.has(entry.head.key)) {
        this.headForms.add(entry.head.key);
        this.heads.add(longestAlnumRun(head), entry.head);
      }
    };
    file(value, true);
    // Inside Base64 the secret may sit raw or encoded as a form or URL component would be.
    for (const form of new Set([value, formEncode(value), encodeURIComponent(value)]))
      for (const fragment of base64Fragments(form)) file(fragment, false);
  }

  /** A client's credentials: the secret, and both Basic encodings of the pair (raw and RFC 6749 §2.3.1
   *  form-encoded), so a Basic header echoed anywhere is caught even in exact form. */
  addCredential(clientId: string, clientSecret: string | undefined): void {
    if (clientSecret === undefined || clientSecret.length < MIN_SECRET) return;
    this.addSecret(clientSecret, "secret");
    for (const pair of basicPairs(clientId, clientSecret))
      this.addSecret(Buffer.from(pair).toString("base64"), "secret", clientSecret);
  }

  /** How many distinct values are known (tests and diagnostics). */
  get size(): number {
    return this.secrets.size;
  }

  text(input: string): string {
    let out = input.replace(schemeCredential, (whole, scheme: string, space: string, credential: string) =>
      // `error_description=` and the like are auth-params, not credentials.
      /^[A-Za-z_-]+=$/.test(credential) ? whole : `${scheme}${space}${this.credential(scheme, credential)}`,
    );
    if (anyField.test(out))
      out = this.jsonFields(out).replace(formField, (whole, name: string) => {
        const value = whole.slice(name.length);
        if (this.names === undefined) return `${name}${REDACTED}`;
        return value === "" ? whole : `${name}${this.label(formValue(value), kindOfField(name))}`;
      });
    // Only the secrets that can be present are matched: bodies are large and usually hold none, and a
    // run may know thousands of tokens. Longest first, so a secret that contains another is replaced whole.
    const present = [...this.known.find(out)].sort(
      (a, b) => b.pattern.length - a.pattern.length || a.seq - b.seq,
    );
    const guard = out.includes(longRun);
    const chosen = (k: Known) => (guard ? guarded(k) : k.pattern);
    const literal = present.filter((k) => k.escapable);
    const base64 = present.filter((k) => !k.escapable);
    for (const group of groups(literal)) out = this.replaceKnown(out, group, chosen, (label) => label);
    for (const group of groups(base64))
      out = this.replaceKnown(out, group, chosen, (label) => `${B64_SENTINEL}${label}\u0000`);
    if (out.includes(B64_SENTINEL)) out = widenBase64(out);
    if (!this.known.empty && (out.includes("...") || out.includes("…"))) out = this.redactCuts(out, guard);
    return out;
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      const credential =
        secretHeaders.has(lower) || (credentialHeaderName.test(lower) && !notCredentialHeader.test(lower));
      out[name] = credential ? this.credentialHeader(value) : this.text(value);
    }
    return out;
  }

  /** Each known secret of `group` found in `text` replaced: by the placeholder, or by its own label (each
   *  pattern in a group of its own, so the match says whose it is). */
  private replaceKnown(
    text: string,
    group: Known[],
    chosen: (k: Known) => string,
    mark: (label: string) => string,
  ): string {
    const names = this.names;
    if (names === undefined) return text.replace(this.regex(group.map(chosen)), mark(REDACTED));
    const patterns = group.map((k) => `(${chosen(k)})`);
    return text.replace(this.regex(patterns), (...args: unknown[]) => {
      const index = args.slice(1, group.length + 1).findIndex((g) => g !== undefined);
      const known = group[index] as Known;
      return mark(names.of(known.origin, known.kind));
    });
  }

  /** A credential after its scheme: a Basic pair keeps its client id (it is no secret) and has its secret
   *  labelled; any other credential is labelled as a token. */
  private credential(scheme: string, value: string): string {
    if (this.names === undefined) return REDACTED;
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(value, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      const canonical = Buffer.from(decoded, "utf8").toString("base64").replace(/=+$/, "");
      if (colon >= 0 && canonical === value.replace(/=+$/, "")) {
        const secret = formValue(decoded.slice(colon + 1));
        return Buffer.from(`${decoded.slice(0, colon)}:${this.label(secret, "secret")}`).toString("base64");
      }
      return this.label(value, "secret");
    }
    const issued = !/^bearer$/i.test(scheme) || this.secrets.has(value) || !this.issuedWithin();
    return this.label(value, issued ? "token" : "unissued");
  }

  /** A header whose value is a credential: the scheme kept ("Bearer", "Basic") so the evidence still
   *  shows how the request authenticated, the credential replaced. */
  private credentialHeader(value: string): string {
    if (this.names === undefined) return redactCredentialHeader(value);
    const scheme = /^(\w+)(\s+)(\S.*)$/s.exec(value);
    if (scheme) return `${scheme[1]}${scheme[2]}${this.credential(scheme[1] as string, scheme[3] as string)}`;
    return this.label(value, "token");
  }

  /** Every secret JSON field's value replaced, its quotes and their escaping kept. */
  private jsonFields(text: string): string {
    let out = "";
    let copied = 0;
    for (const field of secretFieldsIn(text)) {
      let replacement = REDACTED;
      if (this.names !== undefined && field.valueEnd > field.valueStart) {
        const name = /"(\w+)/.exec(text.slice(field.start, field.valueStart))?.[1] ?? "";
        const value = unescapeJson(text.slice(field.valueStart, field.valueEnd)).at(-1) ?? "";
        replacement = /^authorization$/i.test(name)
          ? this.credentialHeader(value)
          : this.label(value, kindOfField(name));
      }
      out += `${text.slice(copied, field.valueStart)}${replacement}`;
      copied = field.valueEnd;
    }
    return copied === 0 ? text : out + text.slice(copied);
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

  /** Before each cut mark, the start of a secret running up to the mark (an excerpt cut it) goes. The
   *  cuts are collected first and the text is put together once: rebuilding it for every mark took time
   *  proportional to its length times the number of marks. */
  private redactCuts(text: string, guard: boolean): string {
    // A window's readings are the text's, cut short: no head in the text, none in any window.
    if (this.heads.find(text).size === 0) return text;
    const marks = [...text.matchAll(cutMark)].map((m) => m.index ?? 0).reverse();
    /** [from, to) stretches to redact, from the last mark back; none overlaps the one found before it. */
    const cuts: [number, number][] = [];
    let floor = text.length;
    for (const at of marks) {
      // A mark inside a stretch already redacted for a later mark has nothing left to hide.
      if (at > floor) continue;
      const start = Math.max(0, at - CUT_WINDOW);
      const window = text.slice(start, at);
      let first: number | undefined;
      const heads = [...this.heads.find(window)].map((head) => (guard ? guarded(head) : head.pattern));
      for (const group of groups(heads)) {
        const found = this.regex(group, "$").exec(window);
        if (found && (first === undefined || found.index < first)) first = found.index;
      }
      if (first !== undefined) {
        cuts.push([start + first, at]);
        floor = start + first;
      }
    }
    if (cuts.length === 0) return text;
    let out = "";
    let copied = 0;
    for (const [from, to] of cuts.reverse()) {
      out += `${text.slice(copied, from)}${REDACTED}`;
      copied = to;
    }
    return out + text.slice(copied);
  }

  private regex(patterns: string[], tail = ""): RegExp {
    const alternatives = patterns.join("|");
    const source = tail === "" ? alternatives : `(?:${alternatives})\\S*${tail}`;
    let regex = this.cache.get(source);
    if (!regex) {
      regex = new RegExp(source, tail === "" ? "g" : "");
      if (this.cache.size > 64) this.cache.clear();
      this.cache.set(source, regex);
    }
    return regex;
  }
}

/** Patterns per regular expression: a text holding thousands of secrets (a target echoing every token it
 *  issued) would make one alternation too large to compile. Groups keep the longest-first order. */
const GROUP = 200;

function groups<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += GROUP) out.push(items.slice(i, i + GROUP));
  return out;
}

/** Every `id:secret` pair a Basic header can carry: raw, and each part form-encoded (RFC 6749 §2.3.1). */
export function basicPairs(clientId: string, clientSecret: string): string[] {
  return [...new Set([`${clientId}:${clientSecret}`, `${formEncode(clientId)}:${formEncode(clientSecret)}`])];
}

/** Values of secret fields found in a body (tokens a check obtained by itself), unescaped. */
export function secretFieldValues(body: string): string[] {
  const out = new Set<string>();
  for (const field of secretFieldsIn(body)) {
    const raw = body.slice(field.valueStart, field.valueEnd);
    if (!raw) continue;
    for (const value of unescapeJson(raw)) out.add(value);
  }
  for (const m of body.matchAll(formField)) {
    const raw = m[0].slice(m[1]?.length ?? 0);
    if (!raw) continue;
    out.add(raw);
    try {
      out.add(decodeURIComponent(raw.replace(/\+/g, " ")));
    } catch {
      // a malformed escape: the raw value is remembered already
    }
  }
  return [...out];
}

/** A JSON string's value at each escaping level, from the raw text down: one level undone per backslash
 *  level (JSON inside a JSON string). */
function unescapeJson(raw: string): string[] {
  const out = [raw];
  let value = raw;
  for (let depth = 0; depth < 4 && value.includes("\\"); depth++) {
    try {
      value = JSON.parse(`"${value}"`) as string;
      out.push(value);
    } catch {
      break;
    }
  }
  return out;
}

/** A form field's value decoded (a malformed escape leaves it as it is). */
export function formValue(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/** The secrets one exchange carries, in the order a recording of it meets them (the request's credential,
 *  its body's secret fields, then its answer's tokens and secret fields), each with its kind: given to a
 *  label table in this order, every reader of the same traffic gives each secret the same label (the
 *  proxy's recording and its judge, a client check's exchanges and their judge). */
export function exchangeSecrets(x: {
  headers: Record<string, string>;
  body?: string | undefined;
  responseBody: string;
}): [string, SecretKind][] {
  const out: [string, SecretKind][] = [];
  const authorization = Object.entries(x.headers).find(
    ([name]) => name.toLowerCase() === "authorization",
  )?.[1];
  const credential = /^(\w+)\s+(\S+)\s*$/.exec(authorization ?? "");
  if (credential && /^basic$/i.test(credential[1] as string)) {
    const decoded = Buffer.from(credential[2] as string, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon >= 0) out.push([formValue(decoded.slice(colon + 1)), "secret"]);
  } else if (credential) out.push([credential[2] as string, "token"]);
  for (const text of [x.body, x.responseBody]) {
    if (text === undefined || !anyField.test(text)) continue;
    for (const field of secretFieldsIn(text)) {
      const name = /"(\w+)/.exec(text.slice(field.start, field.valueStart))?.[1] ?? "";
      const value = unescapeJson(text.slice(field.valueStart, field.valueEnd)).at(-1) ?? "";
      if (value !== "" && !/^authorization$/i.test(name)) out.push([value, kindOfField(name)]);
    }
    for (const m of text.matchAll(formField)) {
      const name = (m[1] ?? "").replace(/^[?&\s;,]/, "").replace(/(=|%3[dD])$/, "");
      const raw = m[0].slice(m[1]?.length ?? 0);
      if (raw !== "") out.push([formValue(raw), kindOfField(name)]);
    }
  }
  return out;
}

/** Gives each secret of the exchange its label, in exchangeSecrets' order. */
export function labelSecrets(names: Pseudonyms, x: Parameters<typeof exchangeSecrets>[0]): void {
  for (const [value, kind] of exchangeSecrets(x)) names.of(value, kind);
}

/** Client secrets and passwords are secrets; tokens are every other secret field. */
function kindOfField(name: string): SecretKind {
  return /secret|password/i.test(name) ? "secret" : "token";
}

/** Keeps the scheme ("Bearer", "Basic") so the evidence still shows how the request authenticated. */
function redactCredentialHeader(value: string): string {
  const scheme = /^(\w+)\s+\S/.exec(value);
  return scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
}

// ------------------------------------------------------------------ one secret, every encoding

const hexDigit = (d: string) => (/[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d);
const hexPattern = (n: number, width: number) =>
  [...n.toString(16).padStart(width, "0")].map(hexDigit).join("");
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

const namedEntities: Record<string, string[]> = {
  "&": ["&amp;"],
  "<": ["&lt;"],
  ">": ["&gt;"],
  '"': ["&quot;"],
  "'": ["&apos;", "&#39;"],
};

/**
 * Before the forms that open with a run of backslashes, when they start a pattern: the run is taken from
 * its first backslash only. Otherwise the search would try the pattern again at every backslash of a long
 * run, each try reading the rest of the run: time quadratic in the run (a target that echoes a token it
 * was given and then a few hundred kilobytes of backslashes held the redactor for half a minute). The run
 * is taken whole from its first backslash, and `\\+` accepts any length, so no form is lost. The guard
 * slows every search by about a third, so it is added only for a text holding a long run (longRun), to
 * the patterns it is matched against (guarded); a shorter run costs at most its length squared.
 */
const runStart = "(?<!\\\\)";
const longRun = "\\".repeat(64);
const guardedPatterns = new Map<string, string>();

/** A form's pattern with runStart before the run-opening forms of its first character, made from the
 *  form's text when first needed and kept. */
function guarded(form: Form): string {
  let pattern = guardedPatterns.get(form.key);
  if (pattern === undefined) {
    pattern = patternOf(form.text, form.escapable, true);
    if (guardedPatterns.size > 4096) guardedPatterns.clear();
    guardedPatterns.set(form.key, pattern);
  }
  return pattern;
}

/** The pattern of a form: every encoding of a secret's text, or a Base64 fragment as it can appear. */
function patternOf(text: string, escapable: boolean, guard: boolean): string {
  return escapable ? anyEncoding(text, guard) : fragmentPattern(text, guard);
}

/** One character in every form an encoder may give it: itself (JSON-escaped at any depth for `"`, `\`
 *  and `/`), %hh per UTF-8 byte (also %25hh: encoded twice), `+` for a space, \uhhhh, HTML entities. */
function charForms(char: string, guard: boolean): string {
  const run = guard ? runStart : "";
  const forms = new Set<string>([escapeRegExp(char)]);
  if (char === '"' || char === "\\" || char === "/") forms.add(`${run}(?:\\\\)+${escapeRegExp(char)}`);
  const bytes = [...Buffer.from(char, "utf8")];
  forms.add(bytes.map((b) => `%(?:25)?${hexPattern(b, 2)}`).join(""));
  if (char === " ") forms.add("\\+");
  const units = [...Array(char.length).keys()].map((i) => char.charCodeAt(i));
  forms.add(`${run}${units.map((u) => `\\\\+u${hexPattern(u, 4)}`).join("")}`);
  const code = char.codePointAt(0) ?? 0;
  forms.add(`&#(?:0*${code}|[xX]0*${hexPattern(code, 1)});`);
  for (const entity of namedEntities[char] ?? []) forms.add(escapeRegExp(entity));
  return `(?:${[...forms].join("|")})`;
}

function anyEncoding(secret: string, guard: boolean): string {
  return [...secret].map((char, index) => charForms(char, guard && index === 0)).join("");
}

/** The stretch of base64(prefix + secret + suffix) that depends on the secret alone, for each of the three
 *  byte alignments: found inside any Base64 blob that carries the secret (a Basic header of it, a token
 *  wrapped in a base64 envelope). */
function base64Fragments(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const out: string[] = [];
  for (const align of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(align), bytes, Buffer.alloc(3)]).toString("base64");
    const end = align + bytes.length;
    // Character k of group g holds bits of these byte offsets.
    const needs = (k: number): number[] => {
      const g = Math.floor(k / 4) * 3;
      return [[g], [g, g + 1], [g + 1, g + 2], [g + 2]][k % 4] ?? [];
    };
    let best = "";
    let run = "";
    for (let k = 0; k < encoded.length; k++) {
      if (needs(k).every((b) => b >= align && b < end)) run += encoded[k];
      else {
        if (run.length > best.length) best = run;
        run = "";
      }
    }
    if (run.length > best.length) best = run;
    if (best.length >= MIN_FRAGMENT) out.push(best);
  }
  return out;
}

/** A Base64 fragment in either alphabet (standard or URL-safe), also percent- or JSON-escaped. */
function fragmentPattern(fragment: string, guard: boolean): string {
  return [...fragment]
    .map((c, index) => {
      if (c === "+") return "(?:\\+|-|%2[bB])";
      if (c === "/") return `(?:/|_|${guard && index === 0 ? runStart : ""}(?:\\\\)+/|%2[fF])`;
      return c;
    })
    .join("");
}

const base64Char = /[A-Za-z0-9+/_-]/;

/** Widens each marked fragment to its whole Base64 word, so no part of an encoded credential is left. */
function widenBase64(text: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const at = text.indexOf(B64_SENTINEL, from);
    if (at < 0) break;
    let start = at;
    while (start > from && base64Char.test(text[start - 1] ?? "")) start--;
    const close = text.indexOf("\u0000", at + B64_SENTINEL.length);
    const label = text.slice(at + B64_SENTINEL.length, close);
    let end = close + 1;
    while (end < text.length && base64Char.test(text[end] ?? "")) end++;
    while (end < text.length && text[end] === "=") end++;
    out += `${text.slice(from, start)}${label}`;
    from = end;
  }
  return out + text.slice(from);
}
