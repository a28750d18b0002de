// lckit proxy --record FILE: every exchange the proxy forwards, appended to FILE as a line of NDJSON in
// the kit's exchange shape (what lckit judge reads), as it completes: memory stays flat however long the
// proxy runs. Redacted pseudonymously (src/redaction/pseudonyms.ts), as the kit's evidence.har is: each
// distinct token and client secret becomes a label of its own, so `lckit judge FILE` later follows each
// token's life and each client's requests as the proxy's own judge did, without a secret in the file.
// Unlike a run's evidence, the proxy cannot know that every token was issued through it: a token it never
// saw issued is labelled a token, never "never issued".
// Each exchange's secrets are labelled in exchangeSecrets' order before it is redacted, so the proxy's own
// judge, labelling the same traffic in the same order, names each token as this file does. Memory stays
// bounded on an endless day of ever new tokens: the label table keeps the most recently met (pseudonyms.ts),
// and the secrets the redactor looks for in bodies are the most recently learnt, the redactor made again
// from them when it has learnt twice as many (a secret not met for that long is still redacted wherever
// its field, header or scheme shows it, and a token met again is learnt again).
import { closeSync, openSync, writeSync } from "node:fs";
import type { Exchange } from "../check/index.ts";
import { HAR_BODY_LIMIT, tokensIn } from "../evidence/har.ts";
import { DEFAULT_LABELS_KEPT, Pseudonyms, type SecretKind } from "../redaction/pseudonyms.ts";
import { formValue, labelSecrets, Redactor, secretFieldValues } from "../redaction/redact.ts";
import { redactExchange } from "../transport/transport.ts";
import type { ReadExchange } from "./recorded-entry.ts";

/** Secrets learnt from the traffic that the redactor looks for in bodies, the most recently met. */
const SECRETS_KEPT = 10_000;
/** Bearer tokens shorter than this are not looked for in bodies. */
const MIN_BEARER = 8;

/** What the redactor was taught of one secret, to teach a new redactor again. */
type Learnt =
  | { credential: [clientId: string, secret: string] }
  | { value: string; kind: SecretKind; origin: string };

export class ExchangeRecording {
  private readonly fd: number;
  /** Labels per secret: the same for the whole recording (bounded, least recently met forgotten). */
  readonly labels: Pseudonyms;
  private redactor: Redactor;
  /** The secrets learnt from the traffic, least recently met first, at most `kept`. */
  private readonly learnt = new Map<string, Learnt>();
  private readonly kept: number;
  /** Exchanges written. */
  written = 0;
  private closed = false;

  constructor(
    readonly file: string,
    /** The target file's client secrets (credentials are also recognised by their place in the traffic). */
    private readonly secrets: readonly string[] = [],
    bounds: { labels?: number; secrets?: number } = {},
  ) {
    // As many labels as the proxy's judge keeps, so both forget alike.
    this.labels = new Pseudonyms(bounds.labels ?? DEFAULT_LABELS_KEPT);
    this.kept = bounds.secrets ?? SECRETS_KEPT;
    this.redactor = this.fresh();
    this.fd = openSync(file, "w");
  }

  /** Secrets the redactor looks for now: at most 8 × `kept` besides the target's (a credential is 3). */
  get secretsKnown(): number {
    return this.redactor.size;
  }

  private fresh(): Redactor {
    const redactor = new Redactor({ pseudonyms: true, names: this.labels });
    for (const s of this.secrets) redactor.addSecret(s, "secret");
    for (const l of this.learnt.values())
      if ("credential" in l) redactor.addCredential(...l.credential);
      else redactor.addSecret(l.value, l.kind, l.origin);
    return redactor;
  }

  private teach(key: string, learnt: Learnt): void {
    this.learnt.delete(key);
    this.learnt.set(key, learnt);
    if (this.learnt.size > this.kept) this.learnt.delete(this.learnt.keys().next().value as string);
    if ("credential" in learnt) this.redactor.addCredential(...learnt.credential);
    else this.redactor.addSecret(learnt.value, learnt.kind, learnt.origin);
    // Every form of every secret ever met would grow without bound: made again from the recent ones.
    if (this.redactor.size > 8 * this.kept + this.secrets.length) this.redactor = this.fresh();
  }

  private secret(value: string, kind: SecretKind = "token", origin = value): void {
    this.teach(`${kind} ${value}`, { value, kind, origin });
  }

  /** Appends one exchange, redacted; the secrets it carries (a Basic pair, a client secret in the body, a
   *  bearer token, the tokens its answer hands out) are secrets from now on, in its own echoes too. */
  add(x: ReadExchange): void {
    if (this.closed) return;
    labelSecrets(this.labels, x);
    this.learn(x);
    const raw: Exchange = {
      request: {
        method: x.method,
        url: x.url,
        headers: x.headers,
        ...(x.body === undefined ? {} : { body: x.body }),
      },
      response: {
        status: x.status,
        headers: x.responseHeaders,
        body: x.responseBody,
        ...(x.responseCut ? { bodyTruncated: true } : {}),
      },
      durationMs: Math.round(x.durationMs),
    };
    const { request, response, durationMs } = redactExchange(raw, this.redactor, HAR_BODY_LIMIT);
    const line = { ...(x.at === undefined ? {} : { at: x.at }), request, response, durationMs };
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    this.written += 1;
  }

  private learn(x: ReadExchange): void {
    const authorization = x.headers.authorization ?? "";
    const basic = /^basic\s+(\S+)\s*$/i.exec(authorization);
    if (basic) {
      const encoded = basic[1] as string;
      const decoded = Buffer.from(encoded, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon >= 0) {
        const raw = decoded.slice(colon + 1);
        this.secret(encoded, "secret", formValue(raw));
        const pair: [string, string] = [formValue(decoded.slice(0, colon)), formValue(raw)];
        this.teach(`credential ${pair.join(":")}`, { credential: pair });
        this.secret(raw, "secret", formValue(raw));
      } else this.secret(encoded, "secret");
    }
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    // A value this short may be a word of any body ("null"): its header is labelled, its echoes are not.
    if (bearer !== undefined && bearer.length >= MIN_BEARER) this.secret(bearer);
    if (x.body !== undefined) for (const value of secretFieldValues(x.body)) this.secret(value, "secret");
    for (const token of tokensIn(x.responseBody)) this.secret(token);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
