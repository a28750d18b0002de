// Drives a plan against a target (its lanes side by side, the checks of a lane one at a time) and returns
// the run's result as data. The seams: stop control (stop-control.ts: signal, deadline, budget), the
// breaker for a target that stopped answering (breaker.ts), the lanes' services (lanes.ts), one check to
// its outcome (check-outcome.ts), and undoing what a check left changed (undo.ts).

import type { Clock, Depth, Exchange, Target } from "../check/index.ts";
import { optional } from "../optional-field.ts";
import { Redactor } from "../redaction/redact.ts";
import { assembleRunResult, newRunId } from "../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../result/catalogue-view.ts";
import { tracedElsewhere } from "../result/coverage.ts";
import type { CheckResult, Interruption, RunResult, TargetSummary } from "../result/model.ts";
import { RUN_DEFAULTS } from "../run-defaults.ts";
import { TokenCache } from "../transport/token-cache.ts";
import { TargetTransport } from "../transport/transport.ts";
import { Breaker } from "./breaker.ts";
import { notRun, runCheck, skippedResult } from "./check-outcome.ts";
import { type JournalEntry, RunJournal } from "./config-journal.ts";
import { createCheckContext, type RunServices } from "./context.ts";
import { prefetchedServices, secondQuotaServices } from "./lanes.ts";
import { inTokenLane, type Plan, type PlanEntry, schedule } from "./plan.ts";
import { FactStore } from "./run-facts.ts";
import { StopControl } from "./stop-control.ts";
import { undoPending } from "./undo.ts";

// The library's names of two of the run's defaults (src/run-defaults.ts holds them all).
export const DEFAULT_CHECK_TIMEOUT_MS = RUN_DEFAULTS.checkTimeoutMs;
export const DEFAULT_REQUEST_TIMEOUT_MS = RUN_DEFAULTS.timeoutMs;

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
  /** How far checks explore (default "default"; "deep" explores more, see src/check/exploration.ts). */
  depth?: Depth;
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
  const run = runState(plan, deps, target, deps.runId ?? newRunId(started), started);
  // Where the clock is real, the checks that wait on token validity overlap with the read checks (see
  // schedule()); a drivable clock waits for nothing, so that run stays one check at a time, deterministic.
  const { lanes, after, secondQuotaLane } = schedule(run.chosen, {
    concurrent: !run.drivable,
    secondQuotaClient: target.quotaAlt !== undefined,
  });
  const leftChanged: string[] = [];
  try {
    if (lanes.length > 0) {
      // The roles the lanes beside the token lanes need, fetched before the token checks start.
      const readRoles = lanes
        .filter((_, n) => n !== 0 && n !== secondQuotaLane)
        .flatMap((lane) => lane.flatMap((i) => run.chosen[i]?.check.needs.roles ?? []));
      const { services, redactor, breaker } = run;
      const laneServices = await prefetchedServices(services, target, readRoles, redactor, breaker);
      const secondQuota =
        secondQuotaLane === undefined || target.quotaAlt === undefined
          ? undefined
          : await secondQuotaServices(services, target.quotaAlt, redactor, breaker);
      await Promise.all(
        lanes.map(async (lane, n) => {
          if (n === 0 || n === secondQuotaLane) {
            const svc = n === 0 ? services : (secondQuota ?? services);
            for (const index of lane) await runEntry(run, index, svc, n);
            return;
          }
          await runReadsSideBySide(run, lane, laneServices, n);
        }),
      );
    }
    for (const index of after) await runEntry(run, index, run.services);
    // A last attempt at anything still changed (an undo that failed once may succeed now).
    if (run.journal.pending().length > 0) await restore(run, run.journal.pending(), []);
    for (const e of run.journal.pending())
      leftChanged.push(
        `${e.change.kind === "client" ? `client ${e.change.clientId} of ` : ""}customer ${e.change.customerId} (changed by ${e.check})`,
      );
  } finally {
    run.stopControl.dispose();
    run.journal.close();
  }
  return runResult(run, started, leftChanged);
}

/** A run under way: what it was asked, the services its checks share, and what has happened so far. */
interface RunState {
  plan: Plan;
  deps: RunDeps;
  target: Target;
  runId: string;
  /** The origin of the checks' startedMs (the report's timeline). */
  origin: number;
  redactor: Redactor;
  stopControl: StopControl;
  breaker: Breaker;
  transport: TargetTransport;
  journal: RunJournal;
  /** The replay command of the run's checks. */
  command: string;
  services: RunServices;
  checkTimeoutMs: number;
  drivable: boolean;
  /** The plan's entries the selection kept, their results by index, and which have begun. */
  chosen: PlanEntry[];
  results: (CheckResult | undefined)[];
  begun: Set<number>;
}

/** Assembles the services of a run: the redactor that knows the target's secrets, the stop control and the
 *  breaker, the transport every check's fetch goes through, the journal of configuration changes, and the
 *  services a check's context is made of. */
function runState(plan: Plan, deps: RunDeps, target: Target, runId: string, started: Date): RunState {
  const origin = performance.now();
  const redactor = new Redactor();
  for (const credential of Object.values(target.credentials)) redactor.addSecret(credential?.clientSecret);
  // The second quota client is no role of target.credentials: its every wire form is made known here.
  if (target.quotaAlt)
    redactor.addCredential(target.quotaAlt.credential.clientId, target.quotaAlt.credential.clientSecret);

  const stopControl = new StopControl(deps.signal, deps.deadlineMs ?? RUN_DEFAULTS.deadlineMs);
  const breaker = new Breaker(deps.unresponsiveAfter ?? RUN_DEFAULTS.unresponsiveAfter, (n) =>
    stopControl.stop(
      "unresponsive",
      `target unresponsive: ${n} requests in a row timed out or failed to connect (--unresponsive-after ${n})`,
    ),
  );

  const judging = new Set(
    plan.entries.filter((e) => e.check.judgesRateLimits === true).map((e) => e.check.id),
  );
  // The token checks' requests race their tokens' validity: the rate limit starts them first.
  const urgent = new Set(plan.entries.filter((e) => inTokenLane(e.check)).map((e) => e.check.id));
  const transport = new TargetTransport({
    fetch: breaker.watch(deps.fetch),
    judgesRateLimits: (checkId) => judging.has(checkId),
    urgent: (checkId) => urgent.has(checkId),
    redactor,
    rateLimit: deps.rateLimit,
    timeoutMs: deps.timeoutMs ?? RUN_DEFAULTS.timeoutMs,
    ...(deps.maxResponseBytes === undefined ? {} : { maxResponseBytes: deps.maxResponseBytes }),
    ...(deps.requestBudget === undefined
      ? {}
      : {
          requestBudget: deps.requestBudget,
          onBudgetSpent: (budget: number) =>
            stopControl.stop(
              "budget",
              `the run was cut short: its request budget of ${budget} requests is spent (--request-budget, or requestBudget: in the target file)`,
            ),
        }),
  });
  // A replay explores as far as the run did.
  const command = `${deps.command ?? "lckit run"}${deps.depth === "deep" ? " --depth deep" : ""}`;
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
    depth: deps.depth ?? "default",
    ...(deps.replayPath === undefined ? {} : { replayPath: deps.replayPath }),
    command,
    journal,
    recordings: new Map(),
    facts: new FactStore(),
  };
  const chosen = plan.entries.filter((e) => e.skipKind !== "selection");
  return {
    plan,
    deps,
    target,
    runId,
    origin,
    redactor,
    stopControl,
    breaker,
    transport,
    journal,
    command,
    services,
    checkTimeoutMs: deps.checkTimeoutMs ?? RUN_DEFAULTS.checkTimeoutMs,
    drivable: deps.clock.advance !== undefined,
    chosen,
    results: chosen.map(() => undefined),
    begun: new Set(),
  };
}

/** Undoes what the journal still holds, with the tokens of the lane that made the change (the second quota
 *  lane keeps its admin token out of reach of the first lane's quotas). */
async function restore(
  run: RunState,
  entries: JournalEntry[],
  log: string[],
  svc: RunServices = run.services,
): Promise<void> {
  const outcomes = await undoPending(entries, svc, run.breaker);
  for (const o of outcomes) {
    if (o.ok) run.journal.settle(o.entry.id, "runner");
    log.push(`${o.ok ? "info" : "error"}: undo by the runner: ${o.message}`);
    run.deps.onProgress?.({ type: "restore", ok: o.ok, message: run.redactor.text(o.message) });
  }
}

/** Runs (or skips) the chosen entry `index` with the services of its lane, and reports it. */
async function runEntry(run: RunState, index: number, svc: RunServices, lane?: number): Promise<void> {
  const { deps, chosen, results, stopControl } = run;
  const entry = chosen[index] as PlanEntry;
  run.begun.add(index);
  const interrupted = stopControl.interruption();
  if (interrupted) {
    results[index] = notRun(entry, interrupted);
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
      deadline: performance.now() + run.checkTimeoutMs,
      limitMs: run.checkTimeoutMs,
    });
    const begin = performance.now();
    result = await runCheck(
      session,
      entry,
      run.checkTimeoutMs,
      stopControl.checksEnd,
      run.breaker,
      run.drivable,
    );
    result.startedMs = Math.round(begin - run.origin);
    if (lane !== undefined) result.lane = lane;
    const waits = session.waits().map((w) => ({ atMs: Math.round(w.at - begin), ms: Math.round(w.ms) }));
    if (waits.length > 0) result.waits = waits;
    // Whatever ended the check, what it changed and did not put back is put back now.
    const pending = run.journal.pending().filter((e) => e.check === check.id);
    if (pending.length > 0) {
      const log = result.log ?? [];
      await restore(run, pending, log, svc);
      result.log = log.slice(-50);
    }
  } else result = skippedResult(entry, entry.skipKind === "safety" ? "safety" : "needs", entry.reason ?? "");
  results[index] = result;
  deps.onProgress?.({
    type: "check-finished",
    index,
    total: chosen.length,
    result: run.redactor.deep(result),
  });
  const left = chosen.filter((e, i) => e.action === "run" && !run.begun.has(i)).length;
  const stopped = stopControl.interruption();
  if (stopped && (left > 0 || stopped.cause !== "unresponsive"))
    deps.onProgress?.({ type: "run-stopping", interruption: stopped, notRun: left });
}

/** Read checks of the lane beside the token lanes that run side by side (issue 43): over a link with
 *  latency one check at a time cannot use the run's rate limit, and the run's floor is requests / rate. */
export const READS_SIDE_BY_SIDE = 3;

/**
 * Runs the lane beside the token lanes: its read checks (they change nothing, so no order among them
 * matters) up to READS_SIDE_BY_SIDE at a time, then the checks that change data one after another, once
 * every read is done. Results keep the lane's number.
 */
async function runReadsSideBySide(
  run: RunState,
  lane: readonly number[],
  svc: RunServices,
  n: number,
): Promise<void> {
  const isRead = (i: number) => run.chosen[i]?.check.safety === "read";
  const reads = lane.filter(isRead);
  const rest = lane.filter((i) => !isRead(i));
  let next = 0;
  const worker = async () => {
    while (next < reads.length) {
      const index = reads[next++] as number;
      await runEntry(run, index, svc, n);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_SIDE_BY_SIDE, reads.length) }, worker));
  for (const index of rest) await runEntry(run, index, svc, n);
}

/** The run's result from what happened: every result, the coverage, the interruption, the configuration
 *  left changed, the target's /version answer; redacted last. */
function runResult(run: RunState, started: Date, leftChanged: string[]): RunResult {
  const { plan, deps, journal } = run;
  const done = run.results.filter((r): r is CheckResult => r !== undefined);
  const resultById = new Map(done.map((r) => [r.id, r]));
  const result = assembleRunResult({
    runId: run.runId,
    checks: done,
    known: plan.entries.map((e) => {
      const ran = resultById.get(e.check.id);
      return { id: e.check.id, requirements: e.check.requirements, ...(ran ? { result: ran } : {}) };
    }),
    notSelected: plan.entries.length - run.chosen.length,
    catalogue: deps.catalogue ?? loadCatalogueView(),
    coverageScope: tracedElsewhere("lckit run"),
    ...(deps.interfaceDocument === undefined ? {} : { interfaceDocument: deps.interfaceDocument }),
    subject: { kind: "provider", target: summarise(run.target) },
    target: summarise(run.target),
    selection: {
      suites: plan.options.suites,
      checks: plan.options.ids,
      level: plan.options.level,
      allow: plan.options.allow,
      ...(plan.options.confirmTenant === undefined ? {} : { confirmTenant: plan.options.confirmTenant }),
    },
    seed: deps.seed,
    runs: deps.runs,
    depth: deps.depth ?? "default",
    ...(deps.replayPath === undefined ? {} : { replayPath: deps.replayPath }),
    command: run.command,
    startedAt: started,
    finishedAt: new Date(),
    requestsSent: run.transport.requestsSent,
    ...optionalInterruption(run.stopControl.interruption()),
    ...(deps.journalFile === undefined && journal.opened === 0
      ? {}
      : { configuration: { journal: deps.journalFile ?? null, changes: journal.opened, leftChanged } }),
  });
  const version = versionAnswer(run.transport.log, run.target.rdmUrl);
  if (version !== undefined) result.targetVersion = version;
  // Last, over everything: by now the redactor knows every token the run has seen.
  return run.redactor.deep(result);
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

function summarise(target: Target): TargetSummary {
  return {
    name: target.name,
    baseUrl: target.baseUrl,
    rdmUrl: target.rdmUrl,
    tenant: target.tenant,
    ...optional("otherTenant", target.otherTenant),
    ...optional("rdbmsTenant", target.rdbmsTenant),
    loopback: target.loopback,
    roles: Object.keys(target.credentials).sort(),
  };
}

function optionalInterruption(interruption: Interruption | undefined): { interruption?: Interruption } {
  return interruption === undefined ? {} : { interruption };
}
