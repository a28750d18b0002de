// Drives a plan against a target, one check at a time, and returns the run's result as data.
// A CheckFailure is a finding about the target; anything else thrown is a fault of the kit ("broken").
import { randomBytes } from "node:crypto";
import { computeCoverage, eventRequirementKinds } from "../report/coverage.ts";
import {
  type CheckResult,
  type RunResult,
  reportVersion,
  type SkipCause,
  type TargetSummary,
} from "../report/model.ts";
import { countResults, decideVerdict } from "../report/verdict.ts";
import { type Catalogue, loadCatalogue } from "./catalogue.ts";
import { CheckFailure, CheckSkipped, type Clock, type Counterexample, type Target } from "./check.ts";
import { type CheckSession, createCheckContext } from "./context.ts";
import { kitInfo, specHashes } from "./kit-info.ts";
import type { Plan, PlanEntry } from "./plan.ts";
import { Redactor } from "./redact.ts";
import { EVIDENCE_BODY_LIMIT, redactExchange, TargetTransport } from "./target-fetch.ts";
import { TokenCache } from "./token-cache.ts";

export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
const EVIDENCE_EXCHANGES = 5;

export type ProgressEvent =
  | { type: "check-started"; index: number; total: number; id: string; title: string }
  | { type: "check-finished"; index: number; total: number; result: CheckResult };

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
  /** Per-check time limit (default 120 s); a check over it is "broken" with "timed out". */
  checkTimeoutMs?: number;
  /** Start of a replay command line (default "lckit run"); the runner appends --check and --seed. */
  command?: string;
  /** Requirement catalogue (default: requirements/catalogue.yaml of the kit). */
  catalogue?: Catalogue;
  runId?: string;
}

export async function runPlan(plan: Plan, deps: RunDeps): Promise<RunResult> {
  const target = deps.target ?? plan.target;
  const started = new Date();
  const redactor = new Redactor();
  for (const credential of Object.values(target.credentials)) redactor.addSecret(credential?.clientSecret);
  const transport = new TargetTransport({
    fetch: deps.fetch,
    redactor,
    rateLimit: deps.rateLimit,
    timeoutMs: deps.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  });
  const command = deps.command ?? "lckit run";
  const services = {
    target,
    transport,
    tokens: new TokenCache(target, redactor),
    clock: deps.clock,
    seed: deps.seed,
    runs: deps.runs,
    ...(deps.replayPath === undefined ? {} : { replayPath: deps.replayPath }),
    command,
  };
  const checkTimeoutMs = deps.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;

  const chosen = plan.entries.filter((e) => e.skipKind !== "selection");
  const results: CheckResult[] = [];
  for (const [index, entry] of chosen.entries()) {
    const { check } = entry;
    deps.onProgress?.({
      type: "check-started",
      index,
      total: chosen.length,
      id: check.id,
      title: check.title,
    });
    const result =
      entry.action === "run"
        ? await runCheck(createCheckContext(check, services), entry, checkTimeoutMs)
        : skippedResult(entry, entry.skipKind === "safety" ? "safety" : "needs", entry.reason ?? "");
    results.push(result);
    deps.onProgress?.({ type: "check-finished", index, total: chosen.length, result: redactor.deep(result) });
  }

  const finished = new Date();
  const catalogue = deps.catalogue ?? loadCatalogue();
  const resultById = new Map(results.map((r) => [r.id, r]));
  const coverage = computeCoverage(
    catalogue.requirements,
    plan.entries.map((e) => {
      const result = resultById.get(e.check.id);
      return { id: e.check.id, requirements: e.check.requirements, ...(result ? { result } : {}) };
    }),
    catalogue.path,
    { elsewhereKinds: eventRequirementKinds, checkedBy: "lckit events check" },
  );
  const { verdict, reason } = decideVerdict(results);
  const result: RunResult = {
    reportVersion,
    runId: deps.runId ?? newRunId(started),
    kit: kitInfo(),
    spec: specHashes(),
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
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    requestsSent: transport.requestsSent,
    checks: results,
    counts: countResults(results, plan.entries.length - chosen.length),
    coverage,
    verdict,
    verdictReason: reason,
  };
  // Last, over everything: by now the redactor knows every token the run has seen.
  return redactor.deep(result);
}

class CheckTimeout extends Error {
  override name = "CheckTimeout";
}

async function runCheck(session: CheckSession, entry: PlanEntry, limitMs: number): Promise<CheckResult> {
  const { ctx, scope } = session;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CheckTimeout(`timed out: the check did not finish within ${limitMs} ms`)),
      limitMs,
    );
  });
  let outcome: Outcome;
  try {
    await Promise.race([entry.check.run(ctx), timeout]);
    outcome = { status: "passed" };
  } catch (error) {
    outcome = classify(error, session);
  } finally {
    clearTimeout(timer);
    scope.close();
  }
  const result: CheckResult = {
    ...base(entry),
    ...outcome,
    durationMs: Math.round(performance.now() - started),
    requests: scope.requests,
  };
  if (result.status === "failed" || result.status === "broken") {
    result.evidence = scope.exchanges
      .slice(-EVIDENCE_EXCHANGES)
      .map((x) => redactExchange(x, new Redactor(), EVIDENCE_BODY_LIMIT));
    if (session.log.length > 0) result.log = session.log.slice(-50);
  }
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

type Outcome = Omit<CheckResult, keyof ReturnType<typeof base>>;

function classify(error: unknown, session: CheckSession): Outcome {
  if (error instanceof CheckFailure) return failed(error);
  if (error instanceof CheckSkipped) return { status: "skipped", reason: error.message, skipCause: "check" };
  if (error instanceof CheckTimeout) return { status: "broken", message: error.message };
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
  const { expected, actual } = error.details;
  const counterexample = error.details.counterexample ?? fallback;
  return {
    status: "failed",
    message: error.message,
    ...(expected === undefined && actual === undefined
      ? {}
      : {
          details: {
            ...(expected === undefined ? {} : { expected }),
            ...(actual === undefined ? {} : { actual }),
          },
        }),
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

function newRunId(started: Date): string {
  const stamp = started
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}
