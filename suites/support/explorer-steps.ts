// What the explorer's sequences share: the trail of steps and exchanges a failure shows, the request
// budget every command draws from, and failing a step with the rule's requirement id.
import fc from "fast-check";
import {
  type CheckContext,
  explore,
  type FailureDetail,
  fail,
  inconclusive,
  requestOf,
} from "../../src/check/index.ts";
import type { ApiResponse, InterfaceClient } from "../../src/client/index.ts";

/** The run-wide side of a sequence: the target, the steps so far, the requests left. */
export interface ExplorerReal {
  ctx: CheckContext;
  client: InterfaceClient;
  /** Each step (a command) and the exchanges it made, the one running last. */
  steps: string[];
  /** Shared by every sequence of the check: commands are drawn only while it lasts. */
  budget: Budget;
}

export interface Budget {
  /** Requests the running sequence may still send. */
  left: number;
  spent: number;
  /** Requests each sequence may send, and all sequences together (shrinking a failure included: past
   *  the cap, a sequence sends nothing and shrinking ends with the shortest failure found so far). */
  perSequence: number;
  cap: number;
  /** What the sequences did, for the report: sequences, operations, judgements per invariant. */
  sequences: number;
  operations: number;
  /** Judgements made, per requirement and invariant. */
  judged: Map<string, Map<string, number>>;
}

export function newBudget(perSequence: number, cap: number): Budget {
  return { left: perSequence, spent: 0, perSequence, cap, sequences: 0, operations: 0, judged: new Map() };
}

/** A sequence starts: its whole allowance (perSequence, or `allowance` for a fixed walk), or nothing once
 *  the cap cannot cover it. Never a part of it: the allowance shapes what a sequence does (reads to the
 *  end, commands drawn), so a counterexample replayed with --path must get the allowance it failed with. */
export function startSequence(budget: Budget, allowance = budget.perSequence): void {
  budget.sequences++;
  budget.left = budget.cap - budget.spent >= allowance ? allowance : 0;
}

/** Longest trail a failure spells out; earlier steps are counted. */
const TRAIL = 14;

function trail(steps: readonly string[]): string {
  const kept = steps.slice(-TRAIL);
  const earlier = steps.length - kept.length;
  return `${earlier > 0 ? `(${earlier} earlier steps) ` : ""}${kept.join(" | ")}`;
}

/** Starts a step: its name in the trail (exchanges are added to it as they are made). */
export function step(r: ExplorerReal, name: string): void {
  r.steps.push(name);
  r.budget.operations++;
}

/** Sends one request of the current step, counted against the budget and kept in the trail. */
export async function exchange<T>(
  r: ExplorerReal,
  what: string,
  send: () => Promise<ApiResponse<T>>,
): Promise<ApiResponse<T>> {
  r.budget.left--;
  r.budget.spent++;
  const response = await send();
  const { path } = requestOf(response.request.method, response.request.url);
  const body = response.body as { values?: unknown[]; scrollId?: unknown } | unknown[] | undefined;
  const records = Array.isArray(body)
    ? body.length
    : Array.isArray(body?.values)
      ? body.values.length
      : undefined;
  const scroll = !Array.isArray(body) && typeof body?.scrollId === "string" ? ", scrollId" : "";
  const shown = records === undefined ? "" : `, ${records} records${scroll}`;
  r.steps[r.steps.length - 1] +=
    ` [${what}: ${response.request.method} ${path} -> ${response.status}${shown}]`;
  return response;
}

/** Counts one judgement of an invariant of a requirement (the report says how often each was judged). */
export function judged(r: ExplorerReal, requirement: string, invariant: string): void {
  const of = r.budget.judged.get(requirement) ?? new Map<string, number>();
  r.budget.judged.set(requirement, of);
  of.set(invariant, (of.get(invariant) ?? 0) + 1);
}

/** Fails the sequence at this step: the requirement id leads the sentence, the trail is the detail. */
export function stepFail(
  r: ExplorerReal,
  requirement: string,
  message: string,
  detail: FailureDetail & { response?: ApiResponse<unknown> } = {},
): never {
  const { response, ...rest } = detail;
  fail(`${requirement}: ${message}`, {
    ...rest,
    expected: `after the steps ${trail(r.steps)}: ${rest.expected ?? "an answer as the model says"}`,
    ...(response
      ? {
          request: requestOf(response.request.method, response.request.url),
          actual: rest.actual ?? `${response.status} ${response.text.slice(0, 200)}`,
        }
      : {}),
  });
}

/** A sequence that cannot tell: what it saw and what would decide it. */
export function stepUndecided(
  r: ExplorerReal,
  saw: string,
  readings: [string, string],
  decideBy: string,
): never {
  inconclusive({ saw: `${saw} (after ${trail(r.steps)})`, readings, decideBy });
}

/** A sequence of commands of the alphabet, of any length up to the longest (size "max": fc.commands
 *  starts with the shortest sequences, often none, where a sequence needs several steps to open scrolls
 *  and interleave them). Shrinking drops steps down to the few that still fail, and simplifies them. */
export function sequence<C>(
  alphabet: fc.WeightedArbitrary<C>[],
  longest: number,
  shortest = 2,
): fc.Arbitrary<C[]> {
  return fc.array(fc.oneof(...alphabet), { minLength: shortest, maxLength: longest, size: "max" });
}

/** The report's summary of what the sequences did (explore notes, per check). */
export function noteBudget(ctx: CheckContext, budget: Budget, check: string): void {
  explore(
    ctx,
    "explorer sequences",
    `${check}: ${budget.sequences} sequence${budget.sequences === 1 ? "" : "s"}, ${budget.operations} operations, ${budget.spent} requests`,
  );
  // One dimension per requirement (requirements/exploration.yaml names it "invariants judged: <id>"), so
  // that each requirement's coverage shows its own invariants.
  for (const [requirement, invariants] of budget.judged)
    for (const [invariant, count] of invariants)
      explore(ctx, `invariants judged: ${requirement}`, `${invariant} (x${count})`);
}
