// The access-token state table as a model: any sequence of token requests, uses, time passing, quota
// changes by PUT and by POST and multi-token support switched off and on again, judged against a model of
// the active tokens (with a drivable clock, and in real time), and a walk through every transition.
import fc from "fast-check";
import { type Check, type CheckContext, CheckFailure, depthOf, fail } from "../src/check/index.ts";
import { defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import { type QuotaReal, quotaCommands, quotaModel, quotaWalk } from "./support/quota-model.ts";
import {
  type RealTimeCommand,
  type RealTimeModel,
  realTimeCommand,
  realTimeModel,
  realTimeWalk,
} from "./support/quota-model-real-time.ts";
import { measureRequestMs, type QuotaSession, validityForBurst } from "./support/quota-session.ts";
import { QUOTA_TOKEN_CHECK, withTokensOfItsOwn } from "./support/quota-tokens.ts";

/**
 * Runs a fixed sequence of commands (a walk) as one more model run: a failure names the walk and the
 * command that replays it (the walk is the same on every run, so the seed alone replays it).
 */
async function runWalk<M extends object>(
  ctx: CheckContext,
  setup: () => { model: M; real: QuotaReal },
  walk: readonly fc.AsyncCommand<M, QuotaReal>[],
): Promise<void> {
  try {
    await fc.asyncModelRun(setup, walk);
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    fail(error.message, {
      ...error.details,
      counterexample: {
        seed: ctx.seed,
        path: "",
        value: `the walk through the state table: ${walk.map(String).join(", ")}`,
        replay: ctx.replayCommand,
      },
    });
  }
}

/** Real-time bounds of the model check: each run waits out its tokens (and at most two steps of time), so
 *  runs are few: one at the default depth, which keeps a loopback run within its 30 s (the fixed walk
 *  judges every transition anyway), more at "deep". Requests and uses cost milliseconds, so each run makes several: a plain
 *  array of commands, as fc.commands starts its first runs with the shortest sequences (often none). */
const realTimeRuns = { default: 1, deep: 6 };
const realTimeMinCommands = 6;
const realTimeMaxCommands = 10;

/** What the runs left: their tokens with their expiry windows, and the quota they ended with. */
interface Carried {
  tokens: RealTimeModel["tokens"];
  real: string[];
  max: number;
}

async function modelInRealTime(ctx: CheckContext, session: QuotaSession): Promise<void> {
  // Tokens must outlive a run's requests (commands or the walk's, plus the quota changes) for "active" to
  // be decidable.
  const walk = realTimeWalk(depthOf(ctx) === "deep");
  const longest = Math.max(realTimeMaxCommands, walk.length);
  const validity = validityForBurst(await measureRequestMs(session), longest + 2);
  if (validity === session.validitySeconds) return modelRunsThenWalk(ctx, session, walk);
  await session.setValidity(validity);
  try {
    await modelRunsThenWalk(ctx, session, walk);
  } finally {
    // The next check's session waits out only its own short validity.
    await session.restart();
  }
}

/** The random runs, then the walk from the tokens they left: no wait of its own before it, and the next
 *  check's clean start waits its tokens out with the runs'. */
async function modelRunsThenWalk(
  ctx: CheckContext,
  session: QuotaSession,
  walk: readonly RealTimeCommand[],
): Promise<void> {
  const carried = await modelRuns(ctx, session);
  const start = carried ?? { tokens: [], real: [], max: 1 };
  if (carried === undefined) {
    await session.restart();
    await session.setQuota(start.max);
  }
  const model = realTimeModel(() => ctx.clock.now(), start.max, session.validitySeconds, start.tokens);
  const real: QuotaReal = { session, tokens: start.real, steps: [`(the runs' tokens, quota ${start.max})`] };
  await runWalk(ctx, () => ({ model, real }), walk);
}

/**
 * The runs follow one another without a clean start between them: the tokens of a run stay in the next
 * one's model with their expiry windows (the model decides every outcome from those windows, whoever issued
 * the token), so a run waits only where its quota would fall below the tokens that may still be active,
 * never a whole validity. Each run starts with multi-token support on. A run that fails leaves the model
 * unsure of what the target holds: the run after it (fast-check shrinking) starts clean. Returns what the
 * last run left.
 */
async function modelRuns(ctx: CheckContext, session: QuotaSession): Promise<Carried | undefined> {
  let carried: Carried | undefined;
  await checkProperty(
    ctx,
    fc.asyncProperty(
      // Small quotas, so that a few requests reach them.
      fc.integer({ min: 1, max: 2 }),
      fc.array(realTimeCommand, { minLength: realTimeMinCommands, maxLength: realTimeMaxCommands }),
      async (max, commands) => {
        const kept = carried ?? { tokens: [], real: [], max };
        carried = undefined;
        if (kept.tokens.length === 0) await session.restart();
        else {
          // As ChangeQuota: never a quota below the tokens that may still be active; the (max + 1)th latest
          // expiry is when no more than `max` may be.
          const until = kept.tokens.map((t) => t.latestExpiry).sort((a, b) => b - a)[max];
          const now = ctx.clock.now();
          if (until !== undefined && until > now) await session.pass((until - now) / 1000);
        }
        await session.setQuota(max);
        const model = realTimeModel(() => ctx.clock.now(), max, session.validitySeconds, kept.tokens);
        const real: QuotaReal = { session, tokens: kept.real, steps: [`changeQuota(${max})`] };
        await fc.asyncModelRun(() => ({ model, real }), commands);
        // A run that ends with multi-token support off leaves it so: the next run's quota switches it on.
        carried = { tokens: model.tokens, real: real.tokens, max: model.max };
      },
    ),
    { numRuns: Math.min(ctx.runs, realTimeRuns[depthOf(ctx)]) },
  );
  return carried;
}

/** Longest drivable run: the walk goes through every transition first, the runs add orders of their own
 *  (about one request per command and three per clean start, so at the default depth ten runs of at most
 *  10 stay under 100 requests with the walk). */
const drivenMaxCommands = { default: 10, deep: 60 };

/** Drivable runs (as many as the depth allows: runsAtDepth), each from a clean start, after the walk. */
async function modelOnDrivenClock(ctx: CheckContext, session: QuotaSession): Promise<void> {
  await session.restart();
  await session.setQuota(3);
  const walkModel = quotaModel(ctx.clock.now(), 3, session.validitySeconds);
  const walkReal: QuotaReal = { session, tokens: [], steps: ["changeQuota(3)"] };
  await runWalk(ctx, () => ({ model: walkModel, real: walkReal }), quotaWalk);
  await checkProperty(
    ctx,
    fc.asyncProperty(
      fc.integer({ min: 3, max: 5 }),
      fc.commands(quotaCommands, { maxCommands: drivenMaxCommands[depthOf(ctx)], size: "+1" }),
      async (max, commands) => {
        // A clean start: every token of the previous run waited out, then the run's quota written (which
        // switches multi-token support on whatever the run left): switching it off first would add a
        // request and a fresh admin token per run and change nothing the run starts from.
        await session.settle();
        await session.setQuota(max);
        const model = quotaModel(ctx.clock.now(), max, session.validitySeconds);
        const real: QuotaReal = { session, tokens: [], steps: [`changeQuota(${max})`] };
        await fc.asyncModelRun(() => ({ model, real }), commands);
      },
    ),
  );
}

export const tokenStateModel: Check = defineCheck({
  id: "token-quota/model",
  ...QUOTA_TOKEN_CHECK,
  // Two random runs of up to two steps of time each, and the walk (about 9 s on loopback).
  expectedWaitSeconds: 10,
  title:
    "MUST follow the access-token state table under any sequence of requests, uses, time, quota changes by PUT or POST and multi-token support off and on",
  requirements: [
    "TOKEN-STATE-01",
    "TOKEN-STATE-02",
    "TOKEN-STATE-03",
    "TOKEN-STATE-04",
    "TOKEN-STATE-05",
    "TOKEN-QUOTA-01",
    "TOKEN-QUOTA-02",
    "TOKEN-QUOTA-10",
    "TOKEN-VALIDITY-02",
  ],
  async run(ctx) {
    await withTokensOfItsOwn(ctx, (session) =>
      session.drivable ? modelOnDrivenClock(ctx, session) : modelInRealTime(ctx, session),
    );
  },
});
