// The fetch a check sees: bound to the target, rate limited, time limited, size limited, recorded as
// redacted evidence. A misbehaving target (hang, reset, garbage, endless or huge answers) becomes a
// CheckFailure naming the request, never a hang or an exhausted heap. Redirects are never followed.
import {
  CheckFailure,
  type Exchange,
  type HarmlessCall,
  MAY_CALL,
  type RetryCause,
  type Safety,
  type TransportRetry,
} from "../check/index.ts";
import { operationCalled } from "../contract/index.ts";
import { announcedBeyond, joinChunks, readWithinLimit, retryAfterMs } from "../http/index.ts";
import { type Redactor, secretFieldValues } from "../redaction/redact.ts";
import { RUN_DEFAULTS } from "../run-defaults.ts";

import { ExchangeLog } from "./exchange-log.ts";
import { RateLimiter } from "./rate-limit.ts";
import { type TokenDeclaration, tokenRequestClient, undeclaredTokenRequest } from "./token-requests.ts";

/** Evidence keeps short excerpts; the run's exchange log keeps bodies whole up to this size so the schema
 *  suite can validate them. */
export const EVIDENCE_BODY_LIMIT = 4096;
export const LOG_BODY_LIMIT = 256 * 1024;
/** Shortest secret-field value learned from a body as a secret (tokens are long; the field itself is
 *  redacted wherever it appears, whatever its length). */
const LEARNED_SECRET_MIN = 8;
/** Largest answer the kit reads (a target file may raise it with maxResponseBytes): the run's default. */
export const DEFAULT_MAX_RESPONSE_BYTES = RUN_DEFAULTS.maxResponseBytes;
/** Exchanges a check keeps for its evidence (the newest; the runner reports the last few). */
export const SCOPE_EXCHANGES = 8;
/** A request body above this goes on a connection of its own, closed afterwards: a target that stops
 *  reading an oversized body leaves that connection broken, and no later check may inherit it. */
export const ISOLATE_BODY_BYTES = 64 * 1024;
/** Longest single wait for a 429's Retry-After, and the wait budget of one check for all of them. */
export const MAX_RETRY_AFTER_MS = 10_000;
export const RATE_LIMIT_WAIT_BUDGET_MS = 30_000;
/** Retries of one request answered 429. */
export const MAX_RATE_LIMIT_RETRIES = 3;
/** Backoff before retrying an idempotent request after a reset or a 502/503/504. */
export const RETRY_BACKOFF_MS = 250;

/** Request headers a check may set to steer the transport; the transport strips them before sending.
 *  `x-lckit-no-retry: 1`: answer a 429 or 5xx as it came (checks that judge 429s themselves);
 *  `x-lckit-isolate: 1`: send on a connection of its own, closed afterwards (deliberately malformed
 *  requests the size and JSON heuristics do not catch). */
export const NO_RETRY_HEADER = "x-lckit-no-retry";
export const ISOLATE_HEADER = "x-lckit-isolate";

export interface TransportOptions {
  fetch: (request: Request) => Promise<Response>;
  redactor: Redactor;
  /** Requests per second; undefined or 0: unlimited. */
  rateLimit?: number;
  /** Per-request limit, covering the answer's headers and body. */
  timeoutMs: number;
  /** Largest answer body read, in bytes (default 8 MiB); a larger one fails the check. */
  maxResponseBytes?: number;
  /** Byte budget of the run's exchange log (the schema suite's input); default 16 MiB. */
  logBytes?: number;
  /** Checks whose 429s are findings, never waited out (the runner asks each check's declaration,
   *  Check.judgesRateLimits); default: none. */
  judgesRateLimits?: (checkId: string) => boolean;
  /** Checks whose requests start before the others' when the rate limit queues them: those that wait on
   *  tokens, whose requests race their tokens' short validity. Default: none. */
  urgent?: (checkId: string) => boolean;
  /** Waits before retries (tests inject a fast one). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Requests the whole run may send (retries included; undefined: no limit). Once spent, every further
   *  request of a check is refused with RequestBudgetSpent; the runner's undo requests still go out (a
   *  budget must never leave a target changed). */
  requestBudget?: number;
  /** Called once, before the first refused request: the runner ends the run there. */
  onBudgetSpent?: (budget: number) => void;
}

/** Refuses, before it is sent, a request to an operation the scope's safety class may not call (the
 *  contract's x-kit-safety, MAY_CALL): a check that does more than it declares is a kit bug, and must not
 *  change a live system on its way to being found. */
function refuseBeyondSafety(scope: CheckScope, request: Request): void {
  if (scope.safety === undefined) return;
  const operation = operationCalled(request.method, request.url);
  if (operation === undefined || MAY_CALL[scope.safety].includes(operation.safety)) return;
  if (scope.harmlessCalls.some((call) => call.operation === operation.operationId)) return;
  throw new Error(
    `${scope.checkId} (safety: ${scope.safety}) tried ${request.method} ${new URL(request.url).pathname} (${operation.operationId}), which the contract marks x-kit-safety: ${operation.safety}; the kit refused to send it. A ${scope.safety} check may call only ${MAY_CALL[scope.safety].join(" and ")} operations: declare the check's safety "${operation.safety}", or list ${operation.operationId} in its harmlessCalls with the reason its requests change nothing`,
  );
}

/** The scope of the kit's own requests that put configuration back (after a check, or lckit restore after a
 *  kill -9): named in the HAR and in the journal as the sender. */
export const RESTORE_SCOPE = "lckit/restore";

/** Scopes whose requests the request budget never refuses: putting configuration back. */
export const BUDGET_EXEMPT_SCOPES: ReadonlySet<string> = new Set([RESTORE_SCOPE]);

/** A request the run's request budget did not allow; the runner turns it into an interruption (the
 *  remaining checks are skipped, naming the budget), never into a finding about the target. */
export class RequestBudgetSpent extends Error {
  override name = "RequestBudgetSpent";
  constructor(readonly budget: number) {
    super(
      `not sent: the run's request budget of ${budget} requests is spent ` +
        "(--request-budget, or requestBudget: in the target file)",
    );
  }
}

/** A request the run's breaker did not send: the target had stopped answering others before it. The
 *  runner reports the check as not run for that cause, never as a finding: nothing was asked of the target. */
export class RequestNotSent extends Error {
  override name = "RequestNotSent";
}

/** Retries a check lists at most (each is in the exchange log and evidence.har anyway). */
const MAX_RETRY_NOTES = 50;
/** Exchange ids a check cites at most (a property check may send thousands of requests). */
export const CITED_EXCHANGES = 10_000;

/** The run-wide id the transport gave the request it sent, and the check that sent it (evidence.har
 *  reads them to mark its entries). */
const sentBy = new WeakMap<Request, { id: number; check: string }>();
export function exchangeOf(request: Request): { id: number; check: string } | undefined {
  return sentBy.get(request);
}

/** One check's window on the transport: its newest exchanges, the ids of every exchange it used, and a
 *  switch that stops its requests once the check is over (a check that outlived its time limit must not
 *  keep talking to the target). */
export class CheckScope {
  /** The newest SCOPE_EXCHANGES exchanges of the check (evidence), oldest first: its own and those of
   *  recordings it judged. */
  readonly exchanges: Exchange[] = [];
  requests = 0;
  /** Ids of the exchanges the check used, in the order it used them (see cite()). */
  private readonly used: number[] = [];
  private readonly usedSet = new Set<number>();
  /** Lists that collect the check's exchanges while a recording of it is being made. */
  private readonly watchers = new Set<Exchange[]>();
  /** Time spent waiting out 429s, against RATE_LIMIT_WAIT_BUDGET_MS. */
  rateLimitWaitMs = 0;
  private closed = false;
  private readonly controllers = new Set<AbortController>();

  /** `safety`: the check's safety class; the transport then sends only the operations it may call
   *  (MAY_CALL) and those it declares harmless calls of (Check.harmlessCalls). Without one nothing is
   *  refused (the transport's own tests). */
  constructor(
    readonly checkId: string,
    readonly safety?: Safety,
    readonly harmlessCalls: readonly HarmlessCall[] = [],
    /** The check's own token requests are held to it (see token-requests.ts); without one none are. */
    readonly tokenDeclaration?: TokenDeclaration,
  ) {}

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

  /** An exchange the check sent: evidence, cited, and part of any recording the check is making. */
  remember(exchange: Exchange): void {
    this.keep(exchange);
    for (const list of this.watchers) list.push(exchange);
  }

  /** Exchanges another check sent that this one judges (a shared recording): evidence and cited too. */
  adopt(exchanges: readonly Exchange[]): void {
    for (const x of exchanges)
      if (!this.exchanges.some((held) => held === x || (x.id !== undefined && held.id === x.id)))
        this.keep(x);
  }

  /** Ids of exchanges this check judged without holding them (a recording's pages beyond its newest). */
  cite(ids: readonly number[]): void {
    for (const id of ids) this.use(id);
  }

  /** Requests the transport sent again (a reset, a 502/503/504, a 429 waited out): which, and why. */
  readonly retries: TransportRetry[] = [];

  retried(exchange: Exchange, cause: RetryCause, waitMs: number, note: string): void {
    if (this.retries.length >= MAX_RETRY_NOTES) return;
    const request = `${exchange.request.method} ${exchange.request.url}`;
    const status = exchange.response?.status;
    this.retries.push({
      exchange: exchange.id ?? -1,
      cause,
      request,
      ...(status === undefined ? {} : { status }),
      ...(exchange.error === undefined ? {} : { error: exchange.error }),
      waitMs,
      note: `${request} -> ${status ?? exchange.error ?? "no answer"}: ${note}`,
    });
  }

  /** Collects the check's exchanges into `list` until stop() is called. */
  watch(list: Exchange[]): () => void {
    this.watchers.add(list);
    return () => this.watchers.delete(list);
  }

  /** Ids of every exchange the check used, in the order it used them (past CITED_EXCHANGES, the ones it
   *  still holds as evidence are added, so its evidence is always cited). */
  citations(): number[] {
    const held = this.exchanges.flatMap((x) => (x.id === undefined || this.usedSet.has(x.id) ? [] : [x.id]));
    return [...this.used, ...held];
  }

  private keep(exchange: Exchange): void {
    this.exchanges.push(exchange);
    if (this.exchanges.length > SCOPE_EXCHANGES) this.exchanges.shift();
    if (exchange.id !== undefined) this.use(exchange.id);
  }

  private use(id: number): void {
    if (this.usedSet.has(id) || this.used.length >= CITED_EXCHANGES) return;
    this.usedSet.add(id);
    this.used.push(id);
  }
}

/** How one attempt ended. */
type Attempt =
  | { kind: "response"; response: Response; body: Uint8Array; exchange: Exchange }
  | { kind: "error"; error: unknown; exchange: Exchange; retryable: boolean };

interface Outgoing {
  url: string;
  method: string;
  headers: Headers;
  body: Uint8Array | undefined;
  bodyText: string | undefined;
}

export class TargetTransport {
  requestsSent = 0;
  /** Id of the next exchange (Exchange.id): every attempt, retries included, gets its own. */
  private nextExchangeId = 0;
  /** Requests the budget refused (0 while it holds). */
  requestsRefused = 0;
  /** Requests counted against the budget (all but the exempt scopes'). */
  private budgetUsed = 0;
  private readonly limiter: RateLimiter;
  private readonly exchangeLog: ExchangeLog;
  private readonly maxResponseBytes: number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly options: TransportOptions) {
    this.limiter = new RateLimiter(options.rateLimit);
    this.exchangeLog = new ExchangeLog(options.logBytes);
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.sleep = options.sleep ?? abortableSleep;
  }

  /** The run's exchanges the log still holds (bounded: see ExchangeLog), oldest first. */
  get log(): readonly Exchange[] {
    return this.exchangeLog.all();
  }

  /** `via: "token-cache"`: the runner's token cache asking for the check (ctx.token), whose tokens the
   *  declaration does not cover. */
  bind(scope: CheckScope, via: "check" | "token-cache" = "check"): typeof fetch {
    return (input, init) => this.send(scope, new Request(input, init), via);
  }

  private async send(scope: CheckScope, original: Request, via: "check" | "token-cache"): Promise<Response> {
    if (scope.isClosed())
      throw new Error(`check ${scope.checkId} sent ${original.method} ${original.url} after it finished`);
    refuseBeyondSafety(scope, original);
    const body = original.body === null ? undefined : new Uint8Array(await original.arrayBuffer());
    const headers = new Headers(original.headers);
    // A check that judges 429s judges the token endpoint's (a quota refusal is one); a 429 on any other
    // request is a rate limit, waited out for it as for every check.
    const noRetry =
      headers.has(NO_RETRY_HEADER) ||
      (this.judgesRateLimits(scope.checkId) && isTokenEndpoint(original.method, original.url));
    const isolate = headers.has(ISOLATE_HEADER) || isMalformedOrLarge(headers, body);
    headers.delete(NO_RETRY_HEADER);
    headers.delete(ISOLATE_HEADER);
    if (isolate) headers.set("connection", "close");
    const outgoing: Outgoing = {
      url: original.url,
      method: original.method,
      headers,
      body,
      bodyText: body === undefined ? undefined : new TextDecoder().decode(body),
    };
    if (scope.tokenDeclaration !== undefined && via === "check") {
      const client = tokenRequestClient(outgoing.method, outgoing.url, headers, outgoing.bodyText);
      const refusal = undeclaredTokenRequest(scope.checkId, scope.tokenDeclaration, client);
      if (refusal !== undefined) throw new Error(refusal);
    }
    const idempotent = ["GET", "HEAD", "OPTIONS"].includes(original.method.toUpperCase());

    let note: string | undefined;
    let rateLimitRetries = 0;
    let transportRetried = false;
    for (;;) {
      const attempt = await this.attempt(scope, outgoing, note);
      note = undefined;
      if (attempt.kind === "error") {
        if (idempotent && !transportRetried && attempt.retryable && !scope.isClosed()) {
          transportRetried = true;
          note = `retry of an idempotent request after: ${attempt.exchange.error}`;
          const error = attempt.exchange.error ?? "";
          this.annotate(attempt.exchange, "retried once (a connection-level failure before any answer)", {
            scope,
            cause: /reset|hang up|EPIPE/i.test(error) ? "reset" : "connection",
            waitMs: RETRY_BACKOFF_MS,
          });
          await this.wait(scope, RETRY_BACKOFF_MS);
          continue;
        }
        if (scope.isClosed()) throw attempt.error;
        const size = attempt.error instanceof ResponseTooLarge;
        throw new CheckFailure(
          `${outgoing.method} ${outgoing.url} failed: ${attempt.exchange.error}; ${
            size
              ? "the kit reads answers up to maxResponseBytes (target file) and reports larger ones"
              : "the target must answer every request"
          }`,
          {
            expected: size ? `an answer of at most ${this.maxResponseBytes} bytes` : "an HTTP response",
            actual: attempt.exchange.error ?? "no answer",
          },
        );
      }
      const { response, exchange } = attempt;
      const status = response.status;
      if (
        idempotent &&
        !transportRetried &&
        !noRetry &&
        (status === 502 || status === 503 || status === 504)
      ) {
        transportRetried = true;
        note = `retry of an idempotent request after ${status}`;
        this.annotate(exchange, "retried once", { scope, cause: "status", waitMs: RETRY_BACKOFF_MS });
        await this.wait(scope, RETRY_BACKOFF_MS);
        continue;
      }
      if (status === 429 && !noRetry && rateLimitRetries < MAX_RATE_LIMIT_RETRIES) {
        const waitMs = retryAfterMs(response.headers.get("retry-after"));
        const left = RATE_LIMIT_WAIT_BUDGET_MS - scope.rateLimitWaitMs;
        if (waitMs <= Math.min(MAX_RETRY_AFTER_MS, left)) {
          rateLimitRetries += 1;
          scope.rateLimitWaitMs += waitMs;
          note = `retry ${rateLimitRetries} after 429 (waited ${waitMs} ms)`;
          this.annotate(exchange, `waited ${waitMs} ms, then retried`, {
            scope,
            cause: "rate-limit",
            waitMs,
          });
          await this.wait(scope, waitMs);
          continue;
        }
        this.annotate(
          exchange,
          `429 with Retry-After ${response.headers.get("retry-after") ?? "(none)"}: not retried, the wait ` +
            `is beyond the kit's budget (${MAX_RETRY_AFTER_MS} ms a wait, ${RATE_LIMIT_WAIT_BUDGET_MS} ms a check)`,
        );
      }
      if (status >= 300 && status < 400 && response.headers.has("location")) {
        this.annotate(exchange, redirectNote(outgoing.url, response.headers.get("location") ?? ""));
      }
      return rebuild(response, attempt.body, outgoing.url);
    }
  }

  private judgesRateLimits(checkId: string): boolean {
    return this.options.judgesRateLimits?.(checkId) ?? false;
  }

  private async wait(scope: CheckScope, ms: number): Promise<void> {
    const controller = new AbortController();
    const untrack = scope.track(controller);
    try {
      await this.sleep(ms, controller.signal);
    } finally {
      untrack();
    }
  }

  /** Adds a note to an exchange already stored (the log and the scope hold the same object); a retry is
   *  also listed on the check's scope, so a passed check shows it too. */
  private annotate(
    exchange: Exchange,
    note: string,
    retry?: { scope: CheckScope; cause: RetryCause; waitMs: number },
  ): void {
    exchange.note = exchange.note ? `${exchange.note}; ${note}` : note;
    retry?.scope.retried(exchange, retry.cause, retry.waitMs, note);
  }

  private async attempt(scope: CheckScope, outgoing: Outgoing, note: string | undefined): Promise<Attempt> {
    await this.limiter.acquire(this.options.urgent?.(scope.checkId) ?? false);
    if (scope.isClosed())
      throw new Error(`check ${scope.checkId} sent ${outgoing.method} ${outgoing.url} after it finished`);
    this.spendBudget(scope);
    const controller = new AbortController();
    const untrack = scope.track(controller);
    const { timeoutMs } = this.options;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        const error = new Error(`no complete answer within ${timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    // An injected fetch may ignore the signal: the race makes the limit hold regardless.
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    });
    deadline.catch(() => {});
    aborted.catch(() => {});
    const request = new Request(outgoing.url, {
      method: outgoing.method,
      headers: outgoing.headers,
      body: outgoing.body,
      // A redirect is the target's answer: shown, never followed (and never with credentials).
      redirect: "manual",
      signal: controller.signal,
    });
    const id = this.nextExchangeId++;
    sentBy.set(request, { id, check: scope.checkId });

    const started = performance.now();
    this.requestsSent += 1;
    scope.requests += 1;
    const exchange: Exchange = {
      check: scope.checkId,
      id,
      request: {
        method: outgoing.method,
        url: outgoing.url,
        headers: headersOf(outgoing.headers),
        ...(outgoing.bodyText === undefined ? {} : { body: outgoing.bodyText }),
      },
      durationMs: 0,
      ...(note === undefined ? {} : { note }),
    };
    let response: Response | undefined;
    try {
      response = await Promise.race([this.options.fetch(request), deadline, aborted]);
      const head = response;
      const body = await Promise.race([this.readBody(head), deadline, aborted]);
      exchange.response = {
        status: head.status,
        headers: headersOf(head.headers),
        body: new TextDecoder().decode(body),
      };
      exchange.durationMs = Math.round(performance.now() - started);
      return { kind: "response", response: head, body, exchange: this.store(scope, exchange) };
    } catch (error) {
      if (error instanceof RequestNotSent) {
        this.requestsSent -= 1;
        scope.requests -= 1;
        throw error;
      }
      exchange.durationMs = Math.round(performance.now() - started);
      exchange.error = describe(error);
      if (response && error instanceof ResponseTooLarge) {
        exchange.response = {
          status: response.status,
          headers: headersOf(response.headers),
          body: new TextDecoder().decode(error.excerpt),
          bodyTruncated: true,
        };
      }
      // A reset or refused connection before any answer may be a stale pooled connection: worth one
      // retry for an idempotent request. A timeout is not (it would double the wait on a hanging target).
      const retryable = response === undefined && !timedOut && !controller.signal.aborted;
      return { kind: "error", error, exchange: this.store(scope, exchange), retryable };
    } finally {
      clearTimeout(timer);
      untrack();
    }
  }

  /** Counts a request against the run's budget, or refuses it (telling the runner the first time). */
  private spendBudget(scope: CheckScope): void {
    const budget = this.options.requestBudget;
    if (budget === undefined || BUDGET_EXEMPT_SCOPES.has(scope.checkId)) return;
    if (this.budgetUsed < budget) {
      this.budgetUsed += 1;
      return;
    }
    this.requestsRefused += 1;
    if (this.requestsRefused === 1) this.options.onBudgetSpent?.(budget);
    throw new RequestBudgetSpent(budget);
  }

  /** Reads the body as it streams, stopping at the size limit (announced or actual). */
  private async readBody(response: Response): Promise<Uint8Array> {
    const limit = this.maxResponseBytes;
    const announced = announcedBeyond(response.headers, limit);
    // Cancelling the body closes the connection; the request's signal is left alone, as the target did
    // answer (a too-large answer is no sign of an unresponsive target).
    if (announced !== undefined) {
      await response.body?.cancel().catch(() => {});
      throw new ResponseTooLarge(limit, new Uint8Array(), `announced Content-Length ${Number(announced)}`);
    }
    if (response.body === null) return new Uint8Array();
    const read = await readWithinLimit(response.body, limit);
    if ("error" in read) throw read.error;
    if (read.over)
      throw new ResponseTooLarge(
        limit,
        joinChunks(read.chunks, EVIDENCE_BODY_LIMIT),
        `more than ${limit} bytes arrived`,
      );
    return joinChunks(read.chunks);
  }

  private store(scope: CheckScope, exchange: Exchange): Exchange {
    // Tokens a check obtains by itself are secrets too: remember them so a later echo (an error message,
    // a failure text) is redacted as well.
    for (const body of [exchange.response?.body, exchange.request.body]) {
      if (body)
        // A short value ("none", "null") learned from a target's body would blank it all over the report.
        for (const secret of secretFieldValues(body))
          if (secret.length >= LEARNED_SECRET_MIN) this.options.redactor.addSecret(secret);
    }
    const redacted = redactExchange(exchange, this.options.redactor, LOG_BODY_LIMIT, true);
    // The log reads kind and size from the answer as it came, cut as the log keeps it: reading the
    // redacted one would redact it now.
    const answer = exchange.response;
    this.exchangeLog.add(redacted, {
      request: redacted.request,
      durationMs: redacted.durationMs,
      ...(answer ? { response: { ...answer, body: answer.body.slice(0, LOG_BODY_LIMIT) } } : {}),
    });
    scope.remember(redacted);
    return redacted;
  }
}

/** The answer was larger than the kit reads. */
export class ResponseTooLarge extends Error {
  override name = "ResponseTooLarge";
  constructor(
    readonly limit: number,
    readonly excerpt: Uint8Array,
    how: string,
  ) {
    super(
      `the answer exceeded the kit's size limit of ${limit} bytes (maxResponseBytes; ${how}); stopped reading`,
    );
  }
}

/** Bodies that may leave a connection in a state the target no longer reads: large ones, and JSON that
 *  does not parse (the kit sends those only on purpose). */
function isMalformedOrLarge(headers: Headers, body: Uint8Array | undefined): boolean {
  if (body === undefined) return false;
  if (body.byteLength > ISOLATE_BODY_BYTES) return true;
  if (!/json/i.test(headers.get("content-type") ?? "") || body.byteLength === 0) return false;
  try {
    JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
    return false;
  } catch {
    return true;
  }
}

/** True for a POST to the token endpoint ({base_url}/oauth/token), the only answer a quota refusal comes in. */
function isTokenEndpoint(method: string, url: string): boolean {
  if (method.toUpperCase() !== "POST") return false;
  try {
    return /\/oauth\/token\/*$/.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

function redirectNote(from: string, location: string): string {
  let target: URL | undefined;
  try {
    target = new URL(location, from);
  } catch {
    return `redirect to an unreadable Location (${location}): not followed`;
  }
  const cross = target.origin !== new URL(from).origin;
  return `redirect to ${cross ? "another origin" : "the same origin"} (${target.origin}${target.pathname}): not followed; the kit never follows redirects${cross ? ", and never sends credentials to another origin" : ""}`;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Redacts then caps bodies. The body is first cut with a margin (redacting 8 MB would cost more than
 *  it shows), redacted, then cut to the limit: a secret cut by the first cut lies past the second.
 *  `lazily`: the answer (status, headers, body) is redacted when it is first read, by the redactor as it
 *  is then (it knows every secret it knew now, and perhaps more). Until then the exchange holds the answer
 *  as the first cut left it, which nothing can read unredacted. Most answers a run records are never
 *  read: the run's log keeps a few of each kind, a check's evidence its last few, and redacting every
 *  page of every scan was a fifth of an embedded run's CPU. */
export function redactExchange(
  exchange: Exchange,
  redactor: Redactor,
  limit: number,
  lazily = false,
): Exchange {
  const out: Exchange = {
    ...(exchange.check === undefined ? {} : { check: exchange.check }),
    ...(exchange.id === undefined ? {} : { id: exchange.id }),
    request: {
      method: exchange.request.method,
      url: redactor.text(exchange.request.url),
      headers: redactor.headers(exchange.request.headers),
    },
    durationMs: exchange.durationMs,
  };
  if (exchange.request.body !== undefined) {
    const body = cap(
      redactor.text(precut(exchange.request.body, limit)),
      limit,
      exchange.request.body.length,
    );
    out.request.body = body.text;
    if (body.truncated || exchange.request.bodyTruncated) out.request.bodyTruncated = true;
  }
  const response = exchange.response;
  if (response) {
    const length = response.body.length;
    const cut = { ...response, body: precut(response.body, limit) };
    if (!lazily) out.response = redactResponse(cut, length, redactor, limit);
    else {
      const settle = (value: Exchange["response"]) =>
        Object.defineProperty(out, "response", {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      Object.defineProperty(out, "response", {
        enumerable: true,
        configurable: true,
        get: () => {
          const value = redactResponse(cut, length, redactor, limit);
          settle(value);
          return value;
        },
        set: settle,
      });
    }
  }
  if (exchange.error !== undefined) out.error = redactor.text(exchange.error);
  if (exchange.note !== undefined) out.note = redactor.text(exchange.note);
  return out;
}

/** An answer redacted, its body (cut to the limit and a margin, from `length` characters) capped. */
function redactResponse(
  response: NonNullable<Exchange["response"]>,
  length: number,
  redactor: Redactor,
  limit: number,
): NonNullable<Exchange["response"]> {
  const body = cap(redactor.text(response.body), limit, length);
  const out: NonNullable<Exchange["response"]> = {
    status: response.status,
    headers: redactor.headers(response.headers),
    body: body.text,
  };
  if (body.truncated || response.bodyTruncated) out.bodyTruncated = true;
  return out;
}

/** Room past the limit for the longest encoded secret, so the second cut removes any half-secret. */
const REDACTION_MARGIN = 16 * 1024;

function precut(text: string, limit: number): string {
  return text.length > limit + REDACTION_MARGIN ? text.slice(0, limit + REDACTION_MARGIN) : text;
}

function cap(text: string, limit: number, originalLength: number): { text: string; truncated: boolean } {
  if (text.length <= limit && originalLength <= limit + REDACTION_MARGIN) return { text, truncated: false };
  if (text.length <= limit) return { text, truncated: true };
  const more = Math.max(text.length, originalLength) - limit;
  return { text: `${text.slice(0, limit)}… [${more} more characters]`, truncated: true };
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
