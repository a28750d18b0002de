// One check run to its outcome: its time limit, the run stopping meanwhile, and what it threw mapped to a
// status. A CheckFailure is a finding about the target: made the one Finding of the kit (check-finding.ts)
// and judged into the check's result by the one engine of every rule (src/rules/judge.ts). Anything else
// thrown is a fault of the kit ("broken").
import {
  CheckFailure,
  CheckInconclusive,
  CheckSkipped,
  type Counterexample,
  type FailureDetail,
  failureDetail,
  type Undecided,
} from "../check/index.ts";
import { Redactor } from "../redaction/redact.ts";
import { pickEvidence } from "../result/evidence.ts";
import type { CheckResult, Interruption, SkipCause } from "../result/model.ts";
import type { Found } from "../rules/finding.ts";
import { type Outcome, ruleCheckResult, verdictOf } from "../rules/judge.ts";
import { MAX_TIMER_MS } from "../timer-limit.ts";
import { EVIDENCE_BODY_LIMIT, RequestNotSent, redactExchange } from "../transport/transport.ts";
import type { Breaker } from "./breaker.ts";
import { foundOf, foundOfFailure, type HttpEvidence, httpFailure } from "./check-finding.ts";
import { CheckEnded, type CheckSession } from "./context.ts";
import type { PlanEntry } from "./plan.ts";

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

export async function runCheck(
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
  let ending: Ending = { status: "passed" };
  try {
    await Promise.race([entry.check.run(ctx), timeout, interrupted]);
  } catch (error) {
    ending = classify(error, session, drivable);
  } finally {
    clearTimeout(timer);
    if (onStop) stopped.removeEventListener("abort", onStop);
    // Ending the check aborts its requests: the breaker must not count those as the target's silence.
    breaker.ending = true;
    try {
      session.end(ending.status === "passed" ? "finished" : "stopped by the runner");
    } finally {
      breaker.ending = false;
    }
  }
  const result: CheckResult = {
    ...resultOf(entry, ending, scope.requests, performance.now() - started),
    // Every exchange the result rests on, the recordings of other checks it judged included.
    ...(scope.citations().length > 0 ? { exchangeIds: scope.citations() } : {}),
    ...(scope.retries.length > 0 ? { retries: [...scope.retries] } : {}),
    ...(session.waitedMs() > 0 ? { waitMs: session.waitedMs() } : {}),
  };
  const explored = session.exploration.snapshot();
  if (explored) result.explored = explored;
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

export function base(entry: PlanEntry) {
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

export function skippedResult(entry: PlanEntry, cause: SkipCause, reason: string): CheckResult {
  return { ...base(entry), status: "skipped", reason, skipCause: cause };
}

/** A check the run did not get to (or skipped anyway: its own skip reason stands). */
export function notRun(entry: PlanEntry, interruption: Interruption): CheckResult {
  if (entry.action === "skip")
    return skippedResult(entry, entry.skipKind === "safety" ? "safety" : "needs", entry.reason ?? "");
  return skippedResult(
    entry,
    interruption.cause === "unresponsive" ? "unresponsive" : "interrupted",
    `not run: ${interruption.message}`,
  );
}

/** How a check's run ended: judged (passed, failed with its finding, undecided), its verdict and result
 *  the engine's once its requests are counted; or not judged at all: skipped (not allowed or not
 *  possible) or broken (a fault of the kit). */
type Ending =
  | { status: "passed" }
  | { status: "failed"; found: Found<HttpEvidence> }
  | { status: "inconclusive"; reason: string; undecided: Undecided; details?: FailureDetail }
  | { status: "skipped"; reason: string; skipCause: SkipCause }
  | { status: "broken"; message: string; details?: { stack: string } };

/** The result of a check that ended so, after `ms` and `requests` (an HTTP check's opportunities: the
 *  requests it sent). */
function resultOf(entry: PlanEntry, ending: Ending, requests: number, ms: number): CheckResult {
  if (ending.status === "skipped" || ending.status === "broken")
    return { ...base(entry), ...ending, durationMs: Math.round(ms), requests };
  const outcome: Outcome<HttpEvidence> =
    ending.status === "failed"
      ? { status: "failed", opportunities: requests, found: [ending.found] }
      : { ...ending, opportunities: requests };
  const { check } = entry;
  return ruleCheckResult(
    { ...verdictOf(check, outcome), rule: check, ms },
    { suite: check.suite, failed: httpFailure, opportunitiesAreRequests: true },
  );
}

/** How CheckSession.waitingFor() names a request in flight. */
const ANSWER_WAIT = "the answer to ";

function classify(error: unknown, session: CheckSession, drivable: boolean): Ending {
  const { exchanges } = session.scope;
  if (error instanceof RunStopped) {
    const { interruption } = error;
    return {
      status: "skipped",
      reason: `interrupted while running: ${interruption.message}`,
      skipCause: "interrupted",
    };
  }
  // A request the breaker held back asked nothing of the target: the check was cut short, not failed.
  const notSent = error instanceof RequestNotSent ? error : error instanceof Error ? error.cause : undefined;
  if (notSent instanceof RequestNotSent)
    return {
      status: "skipped",
      reason: `interrupted while running: ${notSent.message}`,
      skipCause: "unresponsive",
    };
  if (error instanceof CheckFailure) return { status: "failed", found: foundOfFailure(error, exchanges) };
  if (error instanceof CheckSkipped) return { status: "skipped", reason: error.message, skipCause: "check" };
  if (error instanceof CheckInconclusive) {
    const { saw, readings, decideBy } = error.undecided;
    const details = failureDetail(new CheckFailure(error.message, error.details));
    return {
      status: "inconclusive",
      reason: error.message,
      undecided: { saw, readings, decideBy },
      ...(details === undefined ? {} : { details }),
    };
  }
  if (error instanceof CheckTimeout) {
    // Against a live target a check runs out of time while the target makes it wait. Waiting for an
    // answer that has not come within the request's own time limit is a slow answer, not a wrong one (a
    // loaded machine or link makes it, and the document sets no response time): undecided; an answer
    // that never comes fails by that request time limit. A wait the target asked for (an announced
    // validity) is the target's doing, shown by the evidence. Where the kit drives the clock nothing
    // real is waited for, so running out of time is the kit's fault.
    if (!drivable && error.waitingFor?.startsWith(ANSWER_WAIT) === true)
      return {
        status: "inconclusive",
        reason: `${error.message}; it was waiting for ${error.waitingFor}`,
        undecided: {
          saw: `the check's time ran out while it was waiting for ${error.waitingFor}, within that request's time limit`,
          readings: [
            "a slow answer (a loaded target, machine or link): nothing wrong with what it answers",
            "a target that never answers that request",
          ],
          decideBy: "a rerun at a lower load, or a longer per-check time limit",
        },
      };
    if (!drivable && error.waitingFor !== undefined)
      return {
        status: "failed",
        found: foundOf(
          `${error.message}; it was waiting for ${error.waitingFor}, which the target's answers asked for ` +
            "(see the evidence for what the target announced)",
          {
            expected: "a check that can finish within its time limit",
            actual: `waiting for ${error.waitingFor}`,
          },
          exchanges,
        ),
      };
    return { status: "broken", message: error.message };
  }
  // What a check awaited when it ended rejects; a check that still threw it is an ended check, no finding.
  if (error instanceof CheckEnded) return { status: "broken", message: error.message };
  // fast-check wraps what a property threw; a CheckFailure inside still is a finding about the target.
  if (error instanceof Error && error.cause instanceof CheckFailure)
    return {
      status: "failed",
      found: foundOfFailure(error.cause, exchanges, propertyReport(error, session.ctx.replayCommand)),
    };
  // A check that chokes on a body the target garbled found a fault of the target, not of the kit.
  if (error instanceof SyntaxError) {
    const garbled = exchanges.findLast((x) => x.response && !isJson(x.response.body));
    if (garbled?.response)
      return {
        status: "failed",
        found: foundOf(
          `${garbled.request.method} ${garbled.request.url} answered ${garbled.response.status} with a body ` +
            `that is not valid JSON (${error.message})`,
          { expected: "a JSON body", actual: garbled.response.body.slice(0, 200) },
          exchanges,
          { about: garbled },
        ),
      };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  return {
    status: "broken",
    message: `${err.name}: ${err.message}`,
    ...(err.stack === undefined ? {} : { details: { stack: err.stack } }),
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
