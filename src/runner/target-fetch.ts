// The fetch a check sees: bound to the target, rate limited, time limited, recorded as redacted evidence.
// A misbehaving target (hang, reset, garbage) becomes a CheckFailure naming the request, never a hang.
import { CheckFailure, type Exchange } from "./check.ts";
import { RateLimiter } from "./rate-limit.ts";
import type { Redactor } from "./redact.ts";

/** Evidence keeps short excerpts; the run's exchange log keeps bodies whole up to this size so the schema
 *  suite can validate them. */
export const EVIDENCE_BODY_LIMIT = 4096;
export const LOG_BODY_LIMIT = 256 * 1024;

export interface TransportOptions {
  fetch: (request: Request) => Promise<Response>;
  redactor: Redactor;
  /** Requests per second; undefined or 0: unlimited. */
  rateLimit?: number;
  /** Per-request limit, covering the answer's headers and body. */
  timeoutMs: number;
}

/** One check's window on the transport: its exchanges, and a switch that stops its requests once the
 *  check is over (a check that outlived its time limit must not keep talking to the target). */
export class CheckScope {
  readonly exchanges: Exchange[] = [];
  requests = 0;
  private closed = false;
  private readonly controllers = new Set<AbortController>();

  constructor(readonly checkId: string) {}

  close(): void {
    this.closed = true;
    for (const c of this.controllers) c.abort(new Error(`check ${this.checkId} has finished`));
  }

  isClosed(): boolean {
    return this.closed;
  }

  track(controller: AbortController): () => void {
    this.controllers.add(controller);
    return () => this.controllers.delete(controller);
  }
}

export class TargetTransport {
  readonly log: Exchange[] = [];
  requestsSent = 0;
  private readonly limiter: RateLimiter;

  constructor(private readonly options: TransportOptions) {
    this.limiter = new RateLimiter(options.rateLimit);
  }

  bind(scope: CheckScope): typeof fetch {
    return (input, init) => this.send(scope, new Request(input, init));
  }

  private async send(scope: CheckScope, original: Request): Promise<Response> {
    if (scope.isClosed())
      throw new Error(`check ${scope.checkId} sent ${original.method} ${original.url} after it finished`);
    const requestBytes = original.body === null ? undefined : new Uint8Array(await original.arrayBuffer());
    const requestText = requestBytes === undefined ? undefined : new TextDecoder().decode(requestBytes);
    await this.limiter.acquire();

    const controller = new AbortController();
    const untrack = scope.track(controller);
    const { timeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`no complete answer within ${timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    // An injected fetch may ignore the signal: the race makes the limit hold regardless.
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    });
    const request = new Request(original.url, {
      method: original.method,
      headers: original.headers,
      body: requestBytes,
      redirect: original.redirect,
      signal: controller.signal,
    });

    const started = performance.now();
    this.requestsSent += 1;
    scope.requests += 1;
    const exchange: Exchange = {
      check: scope.checkId,
      request: {
        method: original.method,
        url: original.url,
        headers: headersOf(original.headers),
        ...(requestText === undefined ? {} : { body: requestText }),
      },
      durationMs: 0,
    };
    try {
      const response = await Promise.race([this.options.fetch(request), deadline, aborted]);
      const body = new Uint8Array(await Promise.race([response.arrayBuffer(), deadline, aborted]));
      exchange.response = {
        status: response.status,
        headers: headersOf(response.headers),
        body: new TextDecoder().decode(body),
      };
      exchange.durationMs = Math.round(performance.now() - started);
      this.store(scope, exchange);
      return rebuild(response, body, original.url);
    } catch (error) {
      exchange.durationMs = Math.round(performance.now() - started);
      exchange.error = describe(error);
      this.store(scope, exchange);
      if (scope.isClosed()) throw error;
      throw new CheckFailure(
        `${original.method} ${original.url} failed: ${exchange.error}; the target must answer every request`,
        { expected: "an HTTP response", actual: exchange.error },
      );
    } finally {
      clearTimeout(timer);
      untrack();
    }
  }

  private store(scope: CheckScope, exchange: Exchange): void {
    // Tokens a check obtains by itself are secrets too: remember them so a later echo (an error message,
    // a failure text) is redacted as well.
    for (const body of [exchange.response?.body, exchange.request.body]) {
      if (body) for (const secret of secretValues(body)) this.options.redactor.addSecret(secret);
    }
    const redacted = redactExchange(exchange, this.options.redactor, LOG_BODY_LIMIT);
    this.log.push(redacted);
    scope.exchanges.push(redacted);
  }
}

/** Redacts then caps bodies (redacting first, so a cut never leaves half a secret). */
export function redactExchange(exchange: Exchange, redactor: Redactor, limit: number): Exchange {
  const out: Exchange = {
    ...(exchange.check === undefined ? {} : { check: exchange.check }),
    request: {
      method: exchange.request.method,
      url: redactor.text(exchange.request.url),
      headers: redactor.headers(exchange.request.headers),
    },
    durationMs: exchange.durationMs,
  };
  if (exchange.request.body !== undefined) {
    const body = cap(redactor.text(exchange.request.body), limit);
    out.request.body = body.text;
    if (body.truncated || exchange.request.bodyTruncated) out.request.bodyTruncated = true;
  }
  if (exchange.response) {
    const body = cap(redactor.text(exchange.response.body), limit);
    out.response = {
      status: exchange.response.status,
      headers: redactor.headers(exchange.response.headers),
      body: body.text,
    };
    if (body.truncated || exchange.response.bodyTruncated) out.response.bodyTruncated = true;
  }
  if (exchange.error !== undefined) out.error = redactor.text(exchange.error);
  return out;
}

const secretValue =
  /"(?:access_token|refresh_token|client_secret|clientSecret)"\s*:\s*"((?:[^"\\]|\\.)*)"|(?:^|&)(?:client_secret|access_token)=([^&]*)/g;

function secretValues(body: string): string[] {
  const out: string[] = [];
  for (const m of body.matchAll(secretValue)) {
    const raw = m[1] ?? m[2];
    if (raw === undefined) continue;
    out.push(raw);
    if (m[2] !== undefined) {
      try {
        out.push(decodeURIComponent(raw.replace(/\+/g, " ")));
      } catch {
        // a malformed escape: the raw value is remembered already
      }
    }
  }
  return out;
}

function cap(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  return { text: `${text.slice(0, limit)}… [${text.length - limit} more characters]`, truncated: true };
}

function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

const nullBodyStatus = new Set([101, 204, 205, 304]);

/** A fresh Response over the bytes already read, so the check can read the body as it likes. */
function rebuild(response: Response, body: Uint8Array, url: string): Response {
  const rebuilt = new Response(nullBodyStatus.has(response.status) ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(rebuilt, "url", { value: response.url || url });
  return rebuilt;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  const causeText =
    cause instanceof Error ? `${cause.message}${"code" in cause ? ` (${String(cause.code)})` : ""}` : "";
  return causeText && !error.message.includes(causeText) ? `${error.message}: ${causeText}` : error.message;
}
