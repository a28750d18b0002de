// Pseudonymous redaction, for the recordings the kit writes itself (evidence.har, lckit proxy --record):
// each distinct secret is replaced by a stable label instead of one placeholder for all, so a judge of
// the recording can follow a token's life and tell one client's requests from another's without seeing
// a secret. A label is a counter per kind, given in the order the values are first met: it is never
// derived from the secret (no hash of it), so the label says nothing of the value but its identity.

/** What a label stands for: a token (an access token, a bearer credential of any header), a client's
 *  secret (a client_secret, a password, the secret half of a Basic pair), or a bearer token the recording
 *  shows sent but never issued, where the recorder knows it saw every token issued (the kit's own run). */
export type SecretKind = "token" | "secret" | "unissued";

/** The characters a bearer credential may hold (RFC 6750 §2.1, token68). */
const token68 = /^[A-Za-z0-9._~+/-]+=*$/;

/** A label of the kit's: `redacted-token-3`, `redacted-secret-1`, `redacted-unissued-1`, or
 *  `{redacted-malformed-2}` for a credential a token68 cannot be (braces keep it one, so a judge still
 *  sees it malformed). */
export const PSEUDONYM = /^(?:redacted-(?:token|secret|unissued)-\d+|\{redacted-malformed-\d+\})$/;

/** Every label in a text. */
export const PSEUDONYMS = /redacted-(?:token|secret|unissued)-\d+|\{redacted-malformed-\d+\}/g;

/** A bearer token the recorder saw sent and never issued, though it saw every token issued. */
export const neverIssued = (value: string | undefined) => /^redacted-unissued-\d+$/.test(value ?? "");

/** Labels remembered at most, by default: an endless day of traffic meets ever new tokens. */
export const DEFAULT_LABELS_KEPT = 100_000;

export class Pseudonyms {
  /** Value to label, least recently met first (the order of the map). */
  private readonly labels = new Map<string, string>();
  private readonly counts = { token: 0, secret: 0, unissued: 0, malformed: 0 };
  /** Labels forgotten over the bound (diagnostics). */
  forgotten = 0;

  /** At most `kept` labels are remembered, the least recently met forgotten past it: a value met again
   *  after it was forgotten gets a new label (a token kept in use is met, so it keeps its label). The
   *  counters never go back, so a label is never given to two values. */
  constructor(private readonly kept = DEFAULT_LABELS_KEPT) {}

  /** The label of `value`: the same value always the same label, whatever kind it is met as later. A
   *  token that is no token68 keeps that shape in its label. A value that already is a label of the kit's
   *  (a recording the kit redacted) or the one placeholder stays itself: it is no secret. */
  of(value: string, kind: SecretKind): string {
    if (value === "[redacted]" || PSEUDONYM.test(value)) return value;
    let label = this.labels.get(value);
    if (label === undefined) {
      const shape = kind !== "secret" && !token68.test(value) ? "malformed" : kind;
      const n = ++this.counts[shape];
      label = shape === "malformed" ? `{redacted-malformed-${n}}` : `redacted-${shape}-${n}`;
    } else this.labels.delete(value);
    this.labels.set(value, label);
    if (this.labels.size > this.kept) {
      this.labels.delete(this.labels.keys().next().value as string);
      this.forgotten += 1;
    }
    return label;
  }

  /** How many distinct values have a label (tests and diagnostics). */
  get size(): number {
    return this.labels.size;
  }
}
