// lckit proxy --record FILE: every exchange the proxy forwards, appended to FILE as a line of NDJSON in
// the kit's exchange shape (what lckit judge reads), as it completes: memory stays flat however long the
// proxy runs. Redacted pseudonymously (src/redaction/pseudonyms.ts), as the kit's evidence.har is: each
// distinct token and client secret becomes a label of its own, so `lckit judge FILE` later follows each
// token's life and each client's requests as the proxy's own judge did, without a secret in the file.
// Unlike a run's evidence, the proxy cannot know that every token was issued through it: a token it never
// saw issued is labelled a token, never "never issued".
import { closeSync, openSync, writeSync } from "node:fs";
import type { Exchange } from "../check/index.ts";
import { HAR_BODY_LIMIT, tokensIn } from "../evidence/har.ts";
import { formValue, Redactor, secretFieldValues } from "../redaction/redact.ts";
import { redactExchange } from "../transport/transport.ts";
import type { ReadExchange } from "./recorded-entry.ts";

/** Bearer tokens shorter than this are not looked for in bodies. */
const MIN_BEARER = 8;

export class ExchangeRecording {
  private readonly fd: number;
  private readonly redactor = new Redactor({ pseudonyms: true });
  /** Exchanges written. */
  written = 0;
  private closed = false;

  constructor(
    readonly file: string,
    /** The target file's client secrets (credentials are also recognised by their place in the traffic). */
    secrets: readonly string[] = [],
  ) {
    for (const s of secrets) this.redactor.addSecret(s, "secret");
    this.fd = openSync(file, "w");
  }

  /** Appends one exchange, redacted; the secrets it carries (a Basic pair, a client secret in the body, a
   *  bearer token, the tokens its answer hands out) are secrets from now on, in its own echoes too. */
  add(x: ReadExchange): void {
    if (this.closed) return;
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
      this.redactor.addSecret(encoded, "secret");
      const decoded = Buffer.from(encoded, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon >= 0) {
        const raw = decoded.slice(colon + 1);
        this.redactor.addCredential(formValue(decoded.slice(0, colon)), formValue(raw));
        this.redactor.addSecret(raw, "secret", formValue(raw));
      }
    }
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    // A value this short may be a word of any body ("null"): its header is labelled, its echoes are not.
    if (bearer !== undefined && bearer.length >= MIN_BEARER) this.redactor.addSecret(bearer);
    if (x.body !== undefined)
      for (const value of secretFieldValues(x.body)) this.redactor.addSecret(value, "secret");
    for (const token of tokensIn(x.responseBody)) this.redactor.addSecret(token);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
