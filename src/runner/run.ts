// Drives a plan against a target (its lanes side by side, the checks of a lane one at a time) and returns
// the run's result as data.
// A CheckFailure is a finding about the target; anything else thrown is a fault of the kit ("broken").
// The run is bounded: a deadline, a breaker for a target that stopped answering, and an abort signal
// (SIGINT, SIGTERM) all end it with a result of what finished; configuration changes are undone first.

import {
  CheckFailure,
  CheckInconclusive,
  CheckSkipped,
  type Clock,
  type Counterexample,
  type CredentialRole,
  type Exchange,
  failureDetail,
  type Target,
} from "../check/index.ts";
import { createClient } from "../client/index.ts";
import { Redactor } from "../redaction/redact.ts";
import { assembleRunResult, newRunId } from "../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../result/catalogue-view.ts";
import { tracedElsewhere } from "../result/coverage.ts";
import { pickEvidence } from "../result/evidence.ts";
import type {
  CheckResult,
  Interruption,
  InterruptionCause,
  RunResult,
  SkipCause,
  TargetSummary,
} from "../result/model.ts";
import { MAX_TIMER_MS } from "../timer-limit.ts";
import { TokenCache } from "../transport/token-cache.ts";
import { CheckScope, EVIDENCE_BODY_LIMIT, redactExchange, TargetTransport } from "../transport/transport.ts";
import { type JournalEntry, RunJournal, undoChanges } from "./config-journal.ts";
import { CheckEnded, type CheckSession, createCheckContext, type RunServices } from "./context.ts";
import { type Plan, type PlanEntry, schedule } from "./plan.ts";

export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** The whole run's time limit: a CI job gets a report of what finished rather than being killed. */
export const DEFAULT_DEADLINE_MS = 30 * 60_000;
/** Requests in a row that time out or fail to connect before the target counts as unresponsive. */
export const DEFAULT_UNRESPONSIVE_AFTER = 2;

export type ProgressEvent =
  | { type: "check-started"; index: number; total: number; id: string; title: string }
  | { type: "check-finished"; index: number; total: number; result: CheckResult }
  | { type: "run-stopping"; interruption: Interruption; notRun: number }
  | { type: "restore"; ok: boolean; message: string };

export interface RunDeps {
  /** Defaults to plan.target. */
  target?: Target;
  /** The raw transport: global fetch for a live target, the reference's handler for the embedded one. */
  fetch: (request: Request) => Promise<Response>;
  clock: Clock;
  seed: number;
  runs: number;
  replayPath?: string;
  onProgress?: (event: ProgressEvent) => void;
  /** Requests per second (undefined or 0: unlimited). */
  rateLimit?: number;
  /** Per-request time limit (default 15 s). */
  timeoutMs?: number;
  /** Largest answer body the kit reads, in bytes (default 8 MiB); a larger answer fails its check. */
  maxResponseBytes?: number;
  /** Per-check time limit (default 120 s); a check over it is "broken" with "timed out". */
  checkTimeoutMs?: number;
  /** Start of a replay command line (default "lckit run"); the runner appends --check and --seed. */
  command?: string;
  /** Requirement catalogue (default: requirements/catalogue.yaml of the kit). */
  catalogue?: CatalogueView;
  runId?: string;
  /** Aborting it interrupts the run: the running check stops, its configuration changes are undone, the
   *  rest is reported as not run. Abort with the reason "SIGINT" or "SIGTERM" to name the signal. */
  signal?: AbortSignal;
  /** The whole run's time limit in ms (default 30 min); when it passes the run ends as on SIGINT. */
  deadlineMs?: number;
  /** Requests in a row that time out or fail to connect before the run stops with "target unresponsive"
   *  (default 2; 0: never). Only coverage is at stake: a request without an answer fails its check anyway. */
  unresponsiveAfter?: number;
  /** File the journal of configuration changes is written to (default: kept in memory only). */
  journalFile?: string;
  /** The user's copy of the interface document, hashed into the report (spec.interfaceDocument). */
  interfaceDocument?: string;
  /** Requests the whole run may send (default: no limit). When spent the run ends as at the deadline:
   *  the running and remaining checks are skipped naming the budget, the verdict INTERRUPTED. */
  requestBudget?: number;
}

export async function runPlan(plan: Plan, deps: RunDeps): Promise<RunResult> {
  const target = deps.target ?? plan.target;
  const started = new Date();
  // The origin of the checks' startedMs (the report's timeline).
  const origin = performance.now();
  const runId = deps.runId ?? newRunId(started);
  const redactor = new Redactor();
  for (const credential of Object.values(target.credentials)) redactor.addSecret(credential?.clientSecret);
  // The second quota client is no role of target.credentials: its every wire form is made known here.
  if (target.quotaAlt)
    redactor.addCredential(target.quotaAlt.credential.clientId, target.quotaAlt.credential.clientSecret);

  // Everything that ends the run early goes through stop(): the first cause wins. A signal or the
  // deadline also ends the running check; an unresponsive target lets it end with its own finding (its
  // requests are refused from then on, so it does so at once).
  const stopper = new AbortController();
  let interruption: Interruption | undefined;
  const stop = (cause: InterruptionCause, message: string) => {
    if (interruption) return;
    interruption = { cause, message, at: new Date().toISOString() };
    if (cause !== "unresponsive") stopper.abort(interruption);
  };
  const onSignal = () => {
    const reason: unknown = deps.signal?.reason;
    const cause = reason === "SIGINT" || reason === "SIGTERM" ? reason : "aborted";
    stop(cause, cause === "aborted" ? "the run was aborted" : `the run received ${cause}`);
  };
  if (deps.signal?.aborted) onSignal();
  deps.signal?.addEventListener("abort", onSignal, { once: true });
  const deadlineMs = deps.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const deadline = setTimeout(
    () =>
      stop(
        "deadline",
        `the run was cut short: its deadline of ${duration(deadlineMs)} passed (--deadline, or deadline: in the target file)`,
      ),
    Math.min(deadlineMs, MAX_TIMER_MS),
  );
  const breaker = new Breaker(deps.unresponsiveAfter ?? DEFAULT_UNRESPONSIVE_AFTER, (n) =>
    stop(
      "unresponsive",
      `target unresponsive: ${n} requests in a row timed out or failed to connect (--unresponsive-after ${n})`,
    ),
  );

  const judging = new Set(
    plan.entries.filter((e) => e.check.judgesRateLimits === true).map((e) => e.check.id),
  );
  const transport = new TargetTransport({
    fetch: breaker.watch(deps.fetch),
    judgesRateLimits: (checkId) => judging.has(checkId),
    redactor,
    rateLimit: deps.rateLimit,
    timeoutMs: deps.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(deps.maxResponseBytes === undefined ? {} : { maxResponseBytes: deps.maxResponseBytes }),
    ...(deps.requestBudget === undefined
      ? {}
      : {
          requestBudget: deps.requestBudget,
          onBudgetSpent: (budget: number) =>
            stop(
              "budget",
              `the run was cut short: its request budget of ${budget} requests is spent (--request-budget, or requestBudget: in the target file)`,
            ),
        }),
  });
  const command = deps.command ?? "lckit run";
  const journal = new RunJournal(
    deps.journalFile,
    {
      format: "lckit-config-journal",
      version: 1,
      runId,
      target: { name: target.name, baseUrl: target.baseUrl, tenant: target.tenant },
      startedAt: started.toISOString(),
    },
    (value) => redactor.deep(value),
  );
  const services: RunServices = {
    target,
    transport,
    tokens: new TokenCache(target, redactor),
    clock: deps.clock,
    seed: deps.seed,
    runs: deps.runs,
    ...(deps.replayPath === undefined ? {} : { replayPath: deps.replayPath }),
    command,
    journal,
    recordings: new Map(),
  };
  const checkTimeoutMs = deps.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const drivable = deps.clock.advance !== undefined;
  const leftChanged: string[] = [];
  // Undone with the tokens of the lane that made the change (the second quota lane keeps its admin token
  // out of reach of the first lane's quotas).
  const restore = async (entries: JournalEntry[], log: string[], svc: RunServices = services) => {
    const outcomes = await undoPending(entries, svc, breaker);
    for (const o of outcomes) {
      if (o.ok) journal.settle(o.entry.id, "runner");
      log.push(`${o.ok ? "info" : "error"}: undo by the runner: ${o.message}`);
      deps.onProgress?.({ type: "restore", ok: o.ok, message: redactor.text(o.message) });
    }
  };

  const chosen = plan.entries.filter((e) => e.skipKind !== "selection");
  const results: (CheckResult | undefined)[] = chosen.map(() => undefined);
  const begun = new Set<number>();
  const runOne = async (index: number, entry: PlanEntry, svc: RunServices, lane?: number) => {
    begun.add(index);
    if (interruption) {
      results[index] = notRun(entry, interruption);
      return;
    }
    const { check } = entry;
    deps.onProgress?.({
      type: "check-started",
      index,
      total: chosen.length,
      id: check.id,
      title: check.title,
    });
    let result: CheckResult;
    if (entry.action === "run") {
      // What the read checks recorded holds only until something may change the data.
      if (check.safety !== "read" && check.safety !== "quota") svc.recordings?.clear();
      const session = createCheckContext(check, svc, {
        deadline: performance.now() + checkTimeoutMs,
        limitMs: checkTimeoutMs,
      });
      const begin = performance.now();
      result = await runCheck(session, entry, checkTimeoutMs, stopper.signal, breaker, drivable);
      result.startedMs = Math.round(begin - origin);
      if (lane !== undefined) result.lane = lane;
      const waits = session.waits().map((w) => ({ atMs: Math.round(w.at - begin), ms: Math.round(w.ms) }));
      if (waits.length > 0) result.waits = waits;
      // Whatever ended the check, what it changed and did not put back is put back now.
      const pending = journal.pending().filter((e) => e.check === check.id);
      if (pending.length > 0) {
        const log = result.log ?? [];
        await restore(pending, log, svc);
        result.log = log.slice(-50);
      }
    } else
      result = skippedResult(entry, entry.skipKind === "safety" ? "safety" : "needs", entry.reason ?? "");
    results[index] = result;
    deps.onProgress?.({
      type: "check-finished",
      index,
      total: chosen.length,
      result: redactor.deep(result),
    });
    const left = chosen.filter((e, i) => e.action === "run" && !begun.has(i)).length;
    const stopped = interruption as Interruption | undefined; // set meanwhile by stop()
    if (stopped && (left > 0 || stopped.cause !== "unresponsive"))
      deps.onProgress?.({ type: "run-stopping", interruption: stopped, notRun: left });
  };
  // Where the clock is real, the checks that wait on token validity overlap with the read checks (see
  // schedule()); a drivable clock waits for nothing, so that run stays one check at a time, deterministic.
  const { lanes, after, secondQuotaLane } = schedule(chosen, {
    concurrent: !drivable,
    secondQuotaClient: target.quotaAlt !== undefined,
  });
  try {
    if (lanes.length > 0) {
      // The roles the lanes beside the token lanes need, fetched before the token checks start.
      const readRoles = lanes
        .filter((_, n) => n !== 0 && n !== secondQuotaLane)
        .flatMap((lane) => lane.flatMap((i) => chosen[i]?.check.needs.roles ?? []));
      const laneServices = await prefetchedServices(services, services.target, readRoles, redactor, breaker);
      const secondQuota =
        secondQuotaLane === undefined || target.quotaAlt === undefined
          ? undefined
          : await secondQuotaServices(services, target.quotaAlt, redactor, breaker);
      await Promise.all(
        lanes.map(async (lane, n) => {
          const svc = n === 0 ? services : n === secondQuotaLane && secondQuota ? secondQuota : laneServices;
          for (const index of lane) await runOne(index, chosen[index] as PlanEntry, svc, n);
        }),
      );
    }
    for (const index of after) await runOne(index, chosen[index] as PlanEntry, services);
    // A last attempt at anything still changed (an undo that failed once may succeed now).
    if (journal.pending().length > 0) await restore(journal.pending(), []);
    for (const e of journal.pending())
      leftChanged.push(
        `${e.change.kind === "client" ? `client ${e.change.clientId} of ` : ""}customer ${e.change.customerId} (changed by ${e.check})`,
      );
  } finally {
    clearTimeout(deadline);
    deps.signal?.removeEventListener("abort", onSignal);
    journal.close();
  }

  const done = results.filter((r): r is CheckResult => r !== undefined);
  const resultById = new Map(done.map((r) => [r.id, r]));
  const result = assembleRunResult({
    runId,
    checks: done,
    known: plan.entries.map((e) => {
      const ran = resultById.get(e.check.id);
      return { id: e.check.id, requirements: e.check.requirements, ...(ran ? { result: ran } : {}) };
    }),
    notSelected: plan.entries.length - chosen.length,
    catalogue: deps.catalogue ?? loadCatalogueView(),
    coverageScope: tracedElsewhere("lckit run"),
    ...(deps.interfaceDocument === undefined ? {} : { interfaceDocument: deps.interfaceDocument }),
    target: summarise(target),
    selection: {
      suites: plan.options.suites,
      checks: plan.options.ids,
      level: plan.options.level,
      allow: plan.options.allow,
      ...(plan.options.confirmTenant === undefined ? {} : { confirmTenant: plan.options.confirmTenant }),
    },
    seed: deps.seed,
    runs: deps.runs,
    ...(deps.replayPath === undefined ? {} : { replayPath: deps.replayPath }),
    command,
    startedAt: started,
    finishedAt: new Date(),
    requestsSent: transport.requestsSent,
    ...(interruption === undefined ? {} : { interruption }),
    ...(deps.journalFile === undefined && journal.opened === 0
      ? {}
      : { configuration: { journal: deps.journalFile ?? null, changes: journal.opened, leftChanged } }),
  });
  const version = versionAnswer(transport.log, target.rdmUrl);
  if (version !== undefined) result.targetVersion = version;
  // Last, over everything: by now the redactor knows every token the run has seen.
  return redactor.deep(result);
}

/** The last successful answer to GET {rdm_url}/version among the run's exchanges (checks also ask it
 *  without a token, to see it refused), else the last answer: no request of its own. */
function versionAnswer(log: readonly Exchange[], rdmUrl: string): RunResult["targetVersion"] {
  const wanted = `${rdmUrl.replace(/\/+$/, "")}/version`;
  const answers = log.filter(
    (x) => x.request.method === "GET" && x.request.url.split("?")[0] === wanted && x.response !== undefined,
  );
  const found =
    answers.findLast((x) => (x.response?.status ?? 0) >= 200 && (x.response?.status ?? 0) < 300) ??
    answers.at(-1);
  if (found?.response === undefined) return undefined;
  return { status: found.response.status, body: found.response.body.slice(0, 200) };
}

/**
 * The services of the second quota lane: the target as its checks see it, where the quota client and the
 * customer (customerId and quotaCustomerId) are the second ones, so no check needs to know about lanes and
 * nothing it changes is the first lane's. Its admin token is fetched before the lanes start and kept when
 * a check resets its tokens: the admin client may belong to the first quota client's customer, whose
 * quota the first lane sets, and could be refused a new token meanwhile. The other roles' tokens are the
 * lane's own and reset as usual.
 */
async function secondQuotaServices(
  services: RunServices,
  second: NonNullable<Target["quotaAlt"]>,
  redactor: Redactor,
  breaker: Breaker,
): Promise<RunServices> {
  // quotaAlt stays in the view, equal to its quota client: the failure details name the client by the key
  // the user wrote for it (credentials.quotaAlt); nothing else reads it in a lane.
  const view: Target = {
    ...services.target,
    customerId: second.customerId,
    quotaCustomerId: second.customerId,
    credentials: { ...services.target.credentials, quota: second.credential },
  };
  const admin = await prefetchedServices(services, view, ["admin"], redactor, breaker);
  const kept = admin.tokens;
  const own = new TokenCache(view, redactor);
  const tokens: LaneTokens = {
    token: (role, fetch, clock, checkId) =>
      role === "admin" ? kept.token(role, fetch, clock, checkId) : own.token(role, fetch, clock, checkId),
    reset: () => own.reset(),
  };
  return { ...services, target: view, tokens };
}

/**
 * The services of a lane beside the first token lane: the run's, with a token cache of its own whose
 * tokens are fetched before the lanes start. The token lane resets the run's cache and shortens the validity of the clients it
 * works with; tokens fetched beforehand keep the validity they were issued with, so the reads are not
 * caught by an expiry or a quota meant for the token checks. A role whose token cannot be had here is
 * left to the check that asks for it (which then reports why): so these requests are no check's and do not
 * count toward the breaker, and the first that fails ends the fetching (a target that does not answer
 * costs one request timeout here, not one per role).
 */
async function prefetchedServices(
  services: RunServices,
  target: Target,
  needed: readonly CredentialRole[],
  redactor: Redactor,
  breaker: Breaker,
): Promise<RunServices> {
  const tokens = new TokenCache(target, redactor);
  const roles = new Set(needed);
  const scope = new CheckScope("lckit/tokens", "read");
  const fetch = services.transport.bind(scope);
  breaker.pause();
  try {
    for (const role of roles) {
      if (!target.credentials[role]) continue;
      const got = await tokens.token(role, fetch, services.clock, "lckit/tokens").then(
        () => true,
        () => false,
      );
      if (!got) break;
    }
  } finally {
    breaker.resume();
    scope.close();
  }
  return { ...services, target, tokens };
}

/** What a lane's checks get their tokens from. */
type LaneTokens = RunServices["tokens"];

/** Undoes journal entries through a scope of their own (the check's scope is closed by now), with the
 *  run's tokens; each request keeps the per-request time limit, so a dead target cannot hold the run. */
async function undoPending(entries: JournalEntry[], services: RunServices, breaker: Breaker) {
  const scope = new CheckScope("lckit/restore", "write");
  const fetch = services.transport.bind(scope);
  const client = createClient({ fetch, baseUrl: services.target.baseUrl, rdmUrl: services.target.rdmUrl });
  // The run may have given up on the target; undoing is worth the attempt all the same.
  breaker.pause();
  try {
    return await undoChanges(entries, {
      putCustomer: (token, id, customer) => client.putCustomer(token, id, customer),
      putClients: (token, id, clients) => client.putClients(token, id, clients),
      token: (role: CredentialRole) => services.tokens.token(role, fetch, services.clock, "lckit/restore"),
    });
  } finally {
    breaker.resume();
    scope.close();
  }
}

/**
 * Counts requests in a row that got no answer (timed out, refused, reset) and trips once there are
 * `threshold` of them. An answer of any status resets the count: a target that answers is responsive,
 * however wrong the answer. The count is taken on the raw transport, under the runner's time limits.
 */
class Breaker {
  private consecutive = 0;
  private paused = 0;
  private tripped = false;
  /** True while the runner itself ends requests (a check's scope closing): those aborts are no failure. */
  ending = false;
  private lastAnswered: Request | undefined;

  constructor(
    private readonly threshold: number,
    private readonly trip: (threshold: number) => void,
  ) {}

  pause(): void {
    this.paused += 1;
  }

  resume(): void {
    this.paused -= 1;
  }

  watch(fetch: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
    if (this.threshold <= 0) return fetch;
    return async (request) => {
      // Once tripped, only the runner's own undo requests still go out (they run paused).
      if (this.tripped && this.paused === 0)
        throw new Error(
          `not sent: the target stopped answering (${this.threshold} requests in a row got no answer)`,
        );
      // The previous answer counts as an answer once its body was read without a time-out: by the next
      // request its signal would have been aborted otherwise.
      if (this.lastAnswered && !this.lastAnswered.signal.aborted) this.consecutive = 0;
      this.lastAnswered = undefined;
      let counted = false;
      const failure = () => {
        if (counted || this.ending) return;
        counted = true;
        this.failure();
      };
      request.signal.addEventListener("abort", failure, { once: true });
      try {
        const response = await fetch(request);
        this.lastAnswered = request;
        return response;
      } catch (error) {
        failure();
        throw error;
      }
    };
  }

  private failure(): void {
    this.consecutive += 1;
    if (this.paused === 0 && this.consecutive >= this.threshold && !this.tripped) {
      this.tripped = true;
      this.trip(this.threshold);
    }
  }
}

class CheckTimeout extends Error {
  override name = "CheckTimeout";
  constructor(
    message: string,
    /** What the check was waiting for when its time ran out (a sleep, an answer), if anything. */
    readonly waitingFor: string | undefined,
  ) {
    super(message);
  }
}

/** The run stopped (signal, deadline, unresponsive target) while the check ran. */
class RunStopped extends Error {
  override name = "RunStopped";
  constructor(readonly interruption: Interruption) {
    super(interruption.message);
  }
}

async function runCheck(
  session: CheckSession,
  entry: PlanEntry,
  limitMs: number,
  stopped: AbortSignal,
  breaker: Breaker,
  drivable: boolean,
): Promise<CheckResult> {
  const { ctx, scope } = session;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CheckTimeout(`timed out: the check did not finish within ${limitMs} ms`, session.waitingFor()),
        ),
      Math.min(limitMs, MAX_TIMER_MS),
    );
  });
  let onStop: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onStop = () => reject(new RunStopped(stopped.reason as Interruption));
    if (stopped.aborted) onStop();
    else stopped.addEventListener("abort", onStop, { once: true });
  });
  let outcome: Outcome = { status: "passed" };
  try {
    await Promise.race([entry.check.run(ctx), timeout, interrupted]);
  } catch (error) {
    outcome = classify(error, session, drivable);
  } finally {
    clearTimeout(timer);
    if (onStop) stopped.removeEventListener("abort", onStop);
    // Ending the check aborts its requests: the breaker must not count those as the target's silence.
    breaker.ending = true;
    try {
      session.end(outcome.status === "passed" ? "finished" : "stopped by the runner");
    } finally {
      breaker.ending = false;
    }
  }
  const result: CheckResult = {
    ...base(entry),
    ...outcome,
    durationMs: Math.round(performance.now() - started),
    requests: scope.requests,
    // Every exchange the result rests on, the recordings of other checks it judged included.
    ...(scope.citations().length > 0 ? { exchangeIds: scope.citations() } : {}),
    ...(scope.retries.length > 0 ? { retries: [...scope.retries] } : {}),
    ...(session.waitedMs() > 0 ? { waitMs: session.waitedMs() } : {}),
  };
  if (result.status === "failed" || result.status === "broken" || result.status === "inconclusive") {
    // The last exchanges, and before them the ones the failure's detail cites (the pages of a scan that hold
    // the record at fault).
    result.evidence = pickEvidence(scope.exchanges, result.details).map((x) =>
      redactExchange(x, new Redactor(), EVIDENCE_BODY_LIMIT),
    );
  }
  if (session.log.length > 0 && result.status !== "passed") result.log = session.log.slice(-50);
  return result;
}

function base(entry: PlanEntry) {
  const { check } = entry;
  return {
    id: check.id,
    suite: check.suite,
    title: check.title,
    level: check.level,
    requirements: [...check.requirements],
    safety: check.safety,
    durationMs: 0,
    requests: 0,
  };
}

function skippedResult(entry: PlanEntry, cause: SkipCause, reason: string): CheckResult {
  return { ...base(entry), status: "skipped", reason, skipCause: cause };
}

/** A check the run did not get to (or skipped anyway: its own skip reason stands). */
function notRun(entry: PlanEntry, interruption: Interruption): CheckResult {
  if (entry.action === "skip")
    return skippedResult(entry, entry.skipKind === "safety" ? "safety" : "needs", entry.reason ?? "");
  return skippedResult(
    entry,
    interruption.cause === "unresponsive" ? "unresponsive" : "interrupted",
    `not run: ${interruption.message}`,
  );
}

type Outcome = Omit<CheckResult, keyof ReturnType<typeof base>>;

function classify(error: unknown, session: CheckSession, drivable: boolean): Outcome {
  if (error instanceof RunStopped) {
    const { interruption } = error;
    return {
      status: "skipped",
      reason: `interrupted while running: ${interruption.message}`,
      skipCause: "interrupted",
    };
  }
  if (error instanceof CheckFailure) return failed(error);
  if (error instanceof CheckSkipped) return { status: "skipped", reason: error.message, skipCause: "check" };
  if (error instanceof CheckInconclusive) {
    const { saw, readings, decideBy } = error.undecided;
    const details = failureDetail(new CheckFailure(error.message, error.details));
    return {
      status: "inconclusive",
      reason: error.message,
      undecided: { saw, readings: [readings[0], readings[1]], decideBy },
      ...(details === undefined ? {} : { details }),
    };
  }
  if (error instanceof CheckTimeout) {
    // Against a live target a check runs out of time while the target makes it wait (an announced
    // validity, a slow answer): the target's doing, shown by the evidence. Where the kit drives the
    // clock nothing real is waited for, so running out of time is the kit's fault.
    if (!drivable && error.waitingFor !== undefined)
      return {
        status: "failed",
        message:
          `${error.message}; it was waiting for ${error.waitingFor}, which the target's answers asked for ` +
          "(see the evidence for what the target announced)",
        details: {
          expected: "a check that can finish within its time limit",
          actual: `waiting for ${error.waitingFor}`,
        },
      };
    return { status: "broken", message: error.message };
  }
  // What a check awaited when it ended rejects; a check that still threw it is an ended check, no finding.
  if (error instanceof CheckEnded) return { status: "broken", message: error.message };
  // fast-check wraps what a property threw; a CheckFailure inside still is a finding about the target.
  if (error instanceof Error && error.cause instanceof CheckFailure)
    return failed(error.cause, propertyReport(error, session.ctx.replayCommand));
  // A check that chokes on a body the target garbled found a fault of the target, not of the kit.
  if (error instanceof SyntaxError) {
    const garbled = session.scope.exchanges.findLast((x) => x.response && !isJson(x.response.body));
    if (garbled?.response)
      return {
        status: "failed",
        message:
          `${garbled.request.method} ${garbled.request.url} answered ${garbled.response.status} with a body ` +
          `that is not valid JSON (${error.message})`,
        details: { expected: "a JSON body", actual: garbled.response.body.slice(0, 200) },
      };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  return {
    status: "broken",
    message: `${err.name}: ${err.message}`,
    ...(err.stack === undefined ? {} : { details: { stack: err.stack } }),
  };
}

function failed(error: CheckFailure, fallback?: Counterexample): Outcome {
  const details = failureDetail(error);
  const counterexample = error.details.counterexample ?? fallback;
  return {
    status: "failed",
    message: error.message,
    ...(details === undefined ? {} : { details }),
    ...(counterexample === undefined ? {} : { counterexample }),
  };
}

/** Reads seed, path and counterexample out of fast-check's failure text (a safety net for checks that let
 *  fc.assert throw instead of reporting the counterexample themselves). */
function propertyReport(error: Error, replayCommand: string): Counterexample | undefined {
  const m = /seed:\s*(-?\d+),\s*path:\s*"([^"]*)"/.exec(error.message);
  if (!m?.[1] || m[2] === undefined) return undefined;
  const value = /Counterexample:\s*(.*)/.exec(error.message)?.[1] ?? "";
  return {
    seed: Number(m[1]),
    path: m[2],
    value,
    replay: `${replayCommand.replace(/--seed \S+/, `--seed ${m[1]}`)} --path ${m[2]}`,
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function summarise(target: Target): TargetSummary {
  return {
    name: target.name,
    baseUrl: target.baseUrl,
    rdmUrl: target.rdmUrl,
    tenant: target.tenant,
    ...(target.otherTenant === undefined ? {} : { otherTenant: target.otherTenant }),
    ...(target.rdbmsTenant === undefined ? {} : { rdbmsTenant: target.rdbmsTenant }),
    loopback: target.loopback,
    roles: Object.keys(target.credentials).sort(),
  };
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
