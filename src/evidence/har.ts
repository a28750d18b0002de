// evidence.har: every exchange of the run as HAR 1.2, written to disk as each exchange completes (memory
// stays flat however long the run), redacted with the same Redactor rules as the reports (credential
// headers, secret fields, the target's client secrets and every access token seen, in any encoding), but
// pseudonymously: each distinct secret becomes a label of its own (redacted-token-1, ...), so lckit judge
// can follow a token's life and tell clients apart in the file without seeing a secret.
// Each entry carries the run-wide id the transport gave its exchange (`_exchangeId`) and the id of the
// check that sent it (`_check`, or lckit/tokens, lckit/restore for the runner's own); every check points
// at the entries of the exchanges it used (CheckResult.exchangeIds -> harEntries), shared recordings
// included, so a citation is exact, never a guess by method and URL.
import {
  closeSync,
  createReadStream,
  createWriteStream,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { pipeline } from "node:stream/promises";
import { createGzip, gunzipSync } from "node:zlib";
import type { Exchange } from "../check/index.ts";
import { joinChunks, readWithinLimit } from "../http/index.ts";
import { Redactor } from "../redaction/redact.ts";
import { HAR_FILE, PLAIN_HAR_FILE } from "../result/evidence.ts";
import type { RunResult } from "../result/model.ts";
import { exchangeOf, redactExchange } from "../transport/transport.ts";

export { HAR_FILE, PLAIN_HAR_FILE };
/** Bodies kept per entry (after redaction); the HAR says when one was cut. */
export const HAR_BODY_LIMIT = 64 * 1024;
/** How long close() waits for bodies still arriving before it writes what it has. */
const CLOSE_GRACE_MS = 2_000;

interface Indexed {
  method: string;
  url: string;
  status: number;
  /** The transport's id of the exchange (absent for a request the transport did not send). */
  exchangeId?: number;
}

type Fetch = (request: Request) => Promise<Response>;

export class HarWriter {
  private readonly fd: number;
  /** Token answers whose body is still being read: until they are, not every token issued is known. */
  private tokenAnswersPending = 0;
  /** The run obtains every token it sends within the run, so a bearer token never issued in it is one the
   *  kit made up (a check's never-issued value): its label says so, when no token answer is still being
   *  read (a token being learnt is never called never issued). */
  private readonly redactor = new Redactor({
    pseudonyms: true,
    issuedWithin: () => this.tokenAnswersPending === 0,
  });
  private readonly pending = new Set<Promise<void>>();
  /** method, redacted URL and status of each written entry, by index: for linking evidence. */
  readonly index: Indexed[] = [];
  private closed = false;

  /** Where the entries are written as they come: the file itself, or for a .gz file the plain text
   *  beside it, compressed into the file by close() (memory stays flat either way). */
  private readonly plain: string;

  constructor(
    readonly file: string,
    creator: { name: string; version: string },
    secrets: readonly (string | undefined)[],
    /** The run's clock (the embedded reference's, which a check may move on to expire a token): the
     *  entries' times and durations are the target's, so a judge of the file sees a token used past its
     *  expiry as the target saw it. */
    private readonly now: () => number = Date.now,
  ) {
    for (const s of secrets) this.redactor.addSecret(s, "secret");
    this.plain = file.endsWith(".gz") ? file.slice(0, -".gz".length) : file;
    this.fd = openSync(this.plain, "w");
    writeSync(
      this.fd,
      `{"log":{"version":"1.2","creator":${JSON.stringify(creator)},"pages":[],"entries":[\n`,
    );
  }

  /** A fetch that records every exchange it carries. The answer is handed on at once; its body is read
   *  from a clone beside the caller, capped, so a slow or endless body never holds the run up. */
  wrap(fetch: Fetch): Fetch {
    return async (request) => {
      const t0 = this.now();
      const started = new Date(t0);
      const requestBody = request.body === null ? undefined : await request.clone().text();
      try {
        const response = await fetch(request);
        const waited = this.now() - t0;
        const tokenAnswer = /\/oauth\/token$/.test(new URL(request.url).pathname);
        if (tokenAnswer) this.tokenAnswersPending += 1;
        // Counted down once its entry is written (and its tokens learnt), or its body failed.
        const job = readCapped(response.clone(), HAR_BODY_LIMIT)
          .then(({ text, truncated }) =>
            this.write(started, this.now() - t0, waited, request, requestBody, response, text, truncated),
          )
          .finally(() => {
            if (tokenAnswer) this.tokenAnswersPending -= 1;
          });
        this.track(job);
        return response;
      } catch (error) {
        this.write(started, this.now() - t0, 0, request, requestBody, undefined, "", false, error);
        throw error;
      }
    };
  }

  private track(job: Promise<void>): void {
    const settled = job.catch(() => undefined);
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
  }

  private write(
    started: Date,
    totalMs: number,
    waitMs: number,
    request: Request,
    requestBody: string | undefined,
    response: Response | undefined,
    responseBody: string,
    truncated: boolean,
    error?: unknown,
  ): void {
    if (this.closed) return;
    const raw: Exchange = {
      request: {
        method: request.method,
        url: request.url,
        headers: Object.fromEntries(request.headers),
        ...(requestBody === undefined ? {} : { body: requestBody }),
      },
      ...(response === undefined
        ? { error: error instanceof Error ? error.message : String(error) }
        : {
            response: {
              status: response.status,
              headers: Object.fromEntries(response.headers),
              body: responseBody,
              ...(truncated ? { bodyTruncated: true } : {}),
            },
          }),
      durationMs: Math.round(totalMs),
    };
    // Tokens the target hands out are secrets from now on, in this entry and every later one.
    for (const token of tokensIn(responseBody)) this.redactor.addSecret(token);
    const x = redactExchange(raw, this.redactor, HAR_BODY_LIMIT);
    const sent = exchangeOf(request);
    const exchangeId = sent?.id;
    const entry = {
      ...harEntry(started, totalMs, waitMs, x, response?.statusText ?? ""),
      ...(sent === undefined ? {} : { _exchangeId: sent.id, _check: sent.check }),
    };
    writeSync(this.fd, `${this.index.length === 0 ? "" : ",\n"}${JSON.stringify(entry)}`);
    this.index.push({
      method: x.request.method,
      url: x.request.url,
      status: x.response?.status ?? 0,
      ...(exchangeId === undefined ? {} : { exchangeId }),
    });
  }

  /** Waits briefly for bodies still arriving, then ends the file (valid JSON whatever happened). */
  async close(): Promise<void> {
    await Promise.race([
      Promise.all([...this.pending]),
      new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref()),
    ]);
    this.closed = true;
    writeSync(this.fd, "\n]}}\n");
    closeSync(this.fd);
    if (this.plain === this.file) return;
    // Repeated headers and bodies compress well (a certified run's 76 MB of text to a few MB).
    await pipeline(createReadStream(this.plain), createGzip(), createWriteStream(this.file));
    rmSync(this.plain, { force: true });
  }
}

/** Reads up to `limit` bytes of a body; a body that breaks off (reset, the run aborting it) keeps what
 *  came, marked truncated, so its entry is still written. */
async function readCapped(response: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  if (response.body === null) return { text: "", truncated: false };
  const read = await readWithinLimit(response.body, limit);
  return {
    text: new TextDecoder().decode(joinChunks(read.chunks, limit)),
    truncated: read.over || "error" in read,
  };
}

/** The tokens a token answer hands out: secrets from then on. */
export function tokensIn(body: string): string[] {
  return [...body.matchAll(/"(?:access_token|refresh_token|id_token)"\s*:\s*"([^"]+)"/g)].map(
    (m) => m[1] as string,
  );
}

function pairs(headers: Record<string, string>) {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function harEntry(started: Date, totalMs: number, waitMs: number, x: Exchange, statusText: string) {
  let query: { name: string; value: string }[] = [];
  try {
    query = [...new URL(x.request.url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    // a URL the redactor changed beyond parsing: no query list
  }
  const requestBody = x.request.body;
  return {
    startedDateTime: started.toISOString(),
    time: Math.max(0, totalMs),
    request: {
      method: x.request.method,
      url: x.request.url,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: pairs(x.request.headers),
      queryString: query,
      ...(requestBody === undefined
        ? {}
        : {
            postData: {
              mimeType: x.request.headers["content-type"] ?? "",
              text: requestBody,
              ...(x.request.bodyTruncated ? { comment: "cut by the kit" } : {}),
            },
          }),
      headersSize: -1,
      bodySize: requestBody === undefined ? 0 : Buffer.byteLength(requestBody),
    },
    response: {
      status: x.response?.status ?? 0,
      statusText: x.response === undefined ? "" : statusText,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: pairs(x.response?.headers ?? {}),
      content: {
        size: x.response === undefined ? 0 : Buffer.byteLength(x.response.body),
        mimeType: x.response?.headers["content-type"] ?? "",
        text: x.response?.body ?? "",
        ...(x.response?.bodyTruncated ? { comment: `cut at ${HAR_BODY_LIMIT} bytes by the kit` } : {}),
      },
      redirectURL: x.response?.headers.location ?? "",
      headersSize: -1,
      bodySize: -1,
      ...(x.error === undefined ? {} : { _error: x.error }),
    },
    cache: {},
    timings: { send: 0, wait: Math.max(0, waitMs), receive: Math.max(0, totalMs - waitMs) },
  };
}

/** Points each check at the HAR entries of the exchanges it used (its exchangeIds, in that order). An
 *  exchange with no entry (the run ended before its answer was written) is left out, never guessed. */
export function linkEvidence(result: RunResult, index: readonly Indexed[]): RunResult {
  const entryOf = new Map<number, number>();
  index.forEach((e, i) => {
    if (e.exchangeId !== undefined) entryOf.set(e.exchangeId, i);
  });
  return {
    ...result,
    checks: result.checks.map((c) => {
      const entries = (c.exchangeIds ?? [])
        .map((id) => entryOf.get(id))
        .filter((i): i is number => i !== undefined);
      return entries.length === 0 ? c : { ...c, harEntries: entries };
    }),
  };
}

/** The text of a HAR file as the kit writes it: gzip-compressed (a name ending .gz), or plain. */
export function readHarText(path: string): string {
  const bytes = readFileSync(path);
  return path.endsWith(".gz") ? gunzipSync(bytes).toString("utf8") : bytes.toString("utf8");
}
