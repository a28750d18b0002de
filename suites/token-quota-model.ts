// The access-token state table as a model: any sequence of token requests, uses, time passing and quota
// changes, judged against a model of the active tokens (with a drivable clock, and in real time).
import fc from "fast-check";
import { type Check, type CheckContext, type FailureDetail, fail } from "../src/check/index.ts";
import { type ApiResponse, accessTokenOf, describeResponse } from "../src/client/index.ts";
import { answerDetail, expectedIn } from "./support/answer-detail.ts";
import { defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import { measureRequestMs, type QuotaSession, validityForBurst } from "./support/quota-session.ts";
import {
  QUOTA_FACTS,
  quotaNeeds,
  quotaRecord,
  validityOf,
  withTokensOfItsOwn,
} from "./support/quota-tokens.ts";
import { judgeExpiredRefusal, judgeQuotaRefusal, judgeSuccess } from "./support/response-judges.ts";

// ---------------------------------------------------------------- model-based quota check
interface QuotaModel {
  now: number;
  max: number;
  validityMs: number;
  tokens: { expiresAt: number }[];
}
interface QuotaReal {
  session: QuotaSession;
  tokens: string[];
  /** The steps of this run so far, the one running last: a failure's detail shows where the target and
   *  the model parted. */
  steps: string[];
}
type QuotaCommand = fc.AsyncCommand<QuotaModel, QuotaReal>;

/** Longest trail of steps a failure's detail spells out; earlier steps are counted, not listed. */
const TRAIL_STEPS = 12;

/** The run's steps, compact: repeats of a step folded ("requestToken x3"), the last TRAIL_STEPS kept. */
function stepTrail(steps: readonly string[]): string {
  const folded: string[] = [];
  let count = 0;
  for (const [i, step] of steps.entries()) {
    count++;
    if (steps[i + 1] === step) continue;
    folded.push(count > 1 ? `${step} x${count}` : step);
    count = 0;
  }
  const kept = folded.slice(-TRAIL_STEPS);
  const earlier = folded.length - kept.length;
  return `${earlier > 0 ? `(${earlier} earlier) ` : ""}${kept.join(" -> ")}`;
}

/** A failure of the model run, with the trail of steps that led to it: `expected` is what the model
 *  predicted at the last step, `actual` what the target answered there. */
function modelFail(
  r: QuotaReal,
  message: string,
  predicted: string,
  response?: ApiResponse<unknown>,
  detail: FailureDetail = {},
): never {
  const answer = response ? answerDetail(response, detail) : detail;
  fail(message, {
    ...answer,
    expected: `after ${stepTrail(r.steps)}: ${predicted}`,
    ...(answer.actual !== undefined ? { actual: `after ${stepTrail(r.steps)}: ${answer.actual}` } : {}),
    record: answer.record ?? quotaRecord(r.session),
  });
}

/** As ensure(), for a step of the model run: the same sentence, the trail of steps as its detail. */
function modelEnsure(
  r: QuotaReal,
  problem: string | undefined,
  context: string | undefined,
  response: ApiResponse<unknown>,
  record?: string,
): void {
  if (problem === undefined) return;
  const predicted = expectedIn(problem) ?? "an answer as the state table says";
  modelFail(r, context ? `${context}: ${problem}` : problem, predicted, response, record ? { record } : {});
}

const activeCount = (m: QuotaModel, at = m.now) => m.tokens.filter((t) => t.expiresAt > at).length;

class RequestToken implements QuotaCommand {
  check = () => true;
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const active = activeCount(m);
    const response = await r.session.issue();
    const token = accessTokenOf(response);
    const record = quotaRecord(r.session, `token #${r.tokens.length} of the run`);
    if (active < m.max) {
      if (!token)
        modelFail(
          r,
          `with ${active} active tokens and maxActiveTokensAllowed=${m.max}, expected a new token, got ${describeResponse(response)}`,
          `a new token (${active} active, maxActiveTokensAllowed=${m.max})`,
          response,
          { record },
        );
      if (r.tokens.includes(token))
        modelFail(
          r,
          "expected a newly issued token, got one issued before",
          "a newly issued token",
          response,
          {
            actual: `${response.status}, token #${r.tokens.indexOf(token)} of the run again`,
            record,
          },
        );
      const expiresIn = validityOf(r.session, response);
      if (r.tokens.length === 0) m.validityMs = expiresIn * 1000;
      m.tokens.push({ expiresAt: m.now + expiresIn * 1000 });
      r.tokens.push(token);
    } else {
      modelEnsure(
        r,
        judgeQuotaRefusal(r.session.ctx.target.profile, response),
        `token request with ${active} active tokens and maxActiveTokensAllowed=${m.max}`,
        response,
      );
    }
  }
  toString = () => "requestToken";
}

class UseToken implements QuotaCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<QuotaModel>) => m.tokens.length > 0;
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const index = this.pick % m.tokens.length;
    const expired = (m.tokens[index]?.expiresAt ?? 0) <= m.now;
    const response = await r.session.use(r.tokens[index] ?? "");
    const record = quotaRecord(r.session, `token #${index} of the run`);
    if (expired)
      modelEnsure(
        r,
        judgeExpiredRefusal(r.session.ctx.target.profile, response),
        `use of expired token #${index}`,
        response,
        record,
      );
    else modelEnsure(r, judgeSuccess(response, `use of active token #${index}`), undefined, response, record);
  }
  toString = () => `useToken(${this.pick})`;
}

class LetTimePass implements QuotaCommand {
  constructor(readonly percentOfValidity: number) {}
  private delta(m: Readonly<QuotaModel>) {
    return Math.round((m.validityMs * this.percentOfValidity) / 100);
  }
  // Never land within 2 s of an expiry: rounding of expires_in must not decide the outcome.
  check = (m: Readonly<QuotaModel>) =>
    m.tokens.every((t) => Math.abs(t.expiresAt - (m.now + this.delta(m))) > 2000);
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const delta = this.delta(m);
    await r.session.pass(delta / 1000);
    m.now += delta;
  }
  toString = () => `letTimePass(${this.percentOfValidity}% of validity)`;
}

class ChangeQuota implements QuotaCommand {
  constructor(readonly max: number) {}
  // Lowering below the active count would leave open whether tokens are revoked: the document is silent.
  check = (m: Readonly<QuotaModel>) => activeCount(m) <= this.max;
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    await r.session.setQuota(this.max);
    m.max = this.max;
  }
  toString = () => `changeQuota(${this.max})`;
}

// Weighted towards token requests, so that runs reach the quota; time passes in steps that either keep
// tokens alive or let them expire.
const quotaCommands = [
  fc.constant(new RequestToken()),
  fc.constant(new RequestToken()),
  fc.constant(new RequestToken()),
  fc.nat(50).map((pick) => new UseToken(pick)),
  fc.nat(50).map((pick) => new UseToken(pick)),
  fc
    .oneof(fc.integer({ min: 5, max: 60 }), fc.integer({ min: 105, max: 150 }))
    .map((p) => new LetTimePass(p)),
  fc.integer({ min: 1, max: 6 }).map((max) => new ChangeQuota(max)),
];

// ---------------------------------------------------------------- the model in real time
// Where the target's clock cannot be driven, time is the wall clock's and passes during every request, and
// a target may round expires_in either way. Each token therefore carries a window for its expiry, from the
// kit's clock around the request that issued it: it expires no earlier than sent + (expires_in - 1) s and
// no later than received + (expires_in + 1) s. The model asserts only what the windows decide: "active"
// when the request that uses or counts the token was answered before its earliest expiry, "expired" when it
// was sent after its latest; in between it accepts either outcome. Time passes in steps that expire every
// token the kit holds: until the latest expiry of their windows (at most about validity + 1 s), no longer.
interface RealTimeModel {
  now: () => number;
  max: number;
  /** accessTokenValidity of the quota client during the run (seconds). */
  validitySeconds: number;
  /** Steps of time passed so far: at most maxRealTimePasses per run, which bounds the run's length. */
  passes: number;
  tokens: { earliestExpiry: number; latestExpiry: number }[];
}
type RealTimeCommand = fc.AsyncCommand<RealTimeModel, QuotaReal>;

const maxRealTimePasses = 2;

/** Tokens that surely count throughout [sent, received], and those that may count at some time in it. */
function realTimeActive(m: Readonly<RealTimeModel>, sent: number, received: number) {
  return {
    surely: m.tokens.filter((t) => t.earliestExpiry > received).length,
    maybe: m.tokens.filter((t) => t.latestExpiry > sent).length,
  };
}

class RealTimeRequestToken implements RealTimeCommand {
  check = () => true;
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const sent = m.now();
    const response = await r.session.issue();
    const received = m.now();
    const { surely, maybe } = realTimeActive(m, sent, received);
    const token = accessTokenOf(response);
    const record = quotaRecord(r.session, `token #${r.tokens.length} of the run`);
    if (!token) {
      if (maybe < m.max)
        modelFail(
          r,
          `with at most ${maybe} active tokens and maxActiveTokensAllowed=${m.max}, expected a new token, got ${describeResponse(response)}`,
          `a new token (at most ${maybe} active, maxActiveTokensAllowed=${m.max})`,
          response,
          { record },
        );
      modelEnsure(
        r,
        judgeQuotaRefusal(r.session.ctx.target.profile, response),
        `token request with ${surely === maybe ? surely : `${surely} to ${maybe}`} active tokens and maxActiveTokensAllowed=${m.max}`,
        response,
      );
      return;
    }
    if (surely >= m.max)
      modelFail(
        r,
        `with ${surely} tokens active for certain and maxActiveTokensAllowed=${m.max}, expected a limit-exceeded refusal, but a token was issued: ${describeResponse(response)}`,
        `a limit-exceeded refusal (${surely} active for certain, maxActiveTokensAllowed=${m.max})`,
        response,
        { actual: `${response.status}, a token issued`, record },
      );
    if (r.tokens.includes(token))
      modelFail(r, "expected a newly issued token, got one issued before", "a newly issued token", response, {
        actual: `${response.status}, token #${r.tokens.indexOf(token)} of the run again`,
        record,
      });
    const expiresIn = validityOf(r.session, response);
    m.tokens.push({
      earliestExpiry: sent + (expiresIn - 1) * 1000,
      latestExpiry: received + (expiresIn + 1) * 1000,
    });
    r.tokens.push(token);
  }
  toString = () => "requestToken";
}

class RealTimeUseToken implements RealTimeCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<RealTimeModel>) => m.tokens.length > 0;
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const index = this.pick % m.tokens.length;
    const window = m.tokens[index];
    const sent = m.now();
    const response = await r.session.use(r.tokens[index] ?? "");
    const received = m.now();
    if (!window) return;
    const record = quotaRecord(r.session, `token #${index} of the run`);
    if (sent >= window.latestExpiry)
      modelEnsure(
        r,
        judgeExpiredRefusal(r.session.ctx.target.profile, response),
        `use of expired token #${index}`,
        response,
        record,
      );
    else if (received < window.earliestExpiry)
      modelEnsure(r, judgeSuccess(response, `use of active token #${index}`), undefined, response, record);
    else r.session.ctx.log.debug(`token #${index} used at its expiry: either outcome is accepted`);
  }
  toString = () => `useToken(${this.pick})`;
}

class RealTimeLetTimePass implements RealTimeCommand {
  check = (m: Readonly<RealTimeModel>) => m.passes < maxRealTimePasses;
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    // Every token surely expired is all a step of time can change: a step after a step, with no token
    // issued in between, waits nothing.
    const now = m.now();
    const until = Math.max(now, ...m.tokens.map((t) => t.latestExpiry));
    if (until > now) await r.session.pass((until - now) / 1000);
    m.passes++;
  }
  toString = () => "letTimePass(until every token has expired)";
}

class RealTimeChangeQuota implements RealTimeCommand {
  constructor(readonly max: number) {}
  // As ChangeQuota: never below the tokens that may still be active (time only lowers that number).
  check = (m: Readonly<RealTimeModel>) => realTimeActive(m, m.now(), m.now()).maybe <= this.max;
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    await r.session.setQuota(this.max);
    m.max = this.max;
  }
  toString = () => `changeQuota(${this.max})`;
}

// Weighted towards token requests, so that the short runs reach their quota (of 1 to 3).
const realTimeCommand = fc.oneof(
  { arbitrary: fc.constant(new RealTimeRequestToken()), weight: 4 },
  { arbitrary: fc.nat(50).map((pick) => new RealTimeUseToken(pick)), weight: 2 },
  { arbitrary: fc.constant(new RealTimeLetTimePass()), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 3 }).map((max) => new RealTimeChangeQuota(max)), weight: 1 },
);

/** Real-time bounds of the model check: each run waits out its tokens (and at most two steps of time), so
 *  runs are few. Requests and uses cost milliseconds, so each run makes several: a plain array of commands,
 *  as fc.commands starts its first runs with the shortest sequences (often none at all). */
const realTimeRuns = 3;
const realTimeMinCommands = 6;
const realTimeMaxCommands = 10;

async function modelInRealTime(ctx: CheckContext, session: QuotaSession): Promise<void> {
  // Tokens must outlive a run's requests (commands, plus the quota changes) for "active" to be decidable.
  const validity = validityForBurst(await measureRequestMs(session), realTimeMaxCommands + 2);
  if (validity === session.validitySeconds) return modelRuns(ctx, session);
  await session.setValidity(validity);
  try {
    await modelRuns(ctx, session);
  } finally {
    // The next check's session waits out only its own short validity.
    await session.restart();
  }
}

/**
 * The runs follow one another without a clean start between them: the tokens of a run stay in the next
 * one's model with their expiry windows (the model decides every outcome from those windows, whoever issued
 * the token), so a run waits only where its quota would fall below the tokens that may still be active,
 * never a whole validity. Multi-token support stays on between runs. A run that fails leaves the model
 * unsure of what the target holds: the run after it (fast-check shrinking) starts clean.
 */
function modelRuns(ctx: CheckContext, session: QuotaSession): Promise<void> {
  let carried: { tokens: RealTimeModel["tokens"]; real: string[] } | undefined;
  return checkProperty(
    ctx,
    fc.asyncProperty(
      // Small quotas, so that a few requests reach them.
      fc.integer({ min: 1, max: 2 }),
      fc.array(realTimeCommand, { minLength: realTimeMinCommands, maxLength: realTimeMaxCommands }),
      async (max, commands) => {
        const kept = carried ?? { tokens: [], real: [] };
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
        const model: RealTimeModel = {
          now: () => ctx.clock.now(),
          max,
          validitySeconds: session.validitySeconds,
          passes: 0,
          tokens: kept.tokens,
        };
        const real: QuotaReal = { session, tokens: kept.real, steps: [`changeQuota(${max})`] };
        await fc.asyncModelRun(() => ({ model, real }), commands);
        carried = { tokens: model.tokens, real: real.tokens };
      },
    ),
    { numRuns: Math.min(ctx.runs, realTimeRuns) },
  );
}
export const tokenStateModel: Check = defineCheck({
  id: "token-quota/model",
  // A quota refusal may be a 429: this check judges 429s itself, the transport never waits them out.
  judgesRateLimits: true,
  // Seconds it is expected to wait on a live target (npm run bench:live); balances the quota lanes only.
  expectedWaitSeconds: 15,
  title:
    "MUST follow the access-token state table under any sequence of requests, uses, time and quota changes",
  requirements: [
    "TOKEN-STATE-02",
    "TOKEN-STATE-03",
    "TOKEN-STATE-04",
    "TOKEN-STATE-05",
    "TOKEN-QUOTA-02",
    "TOKEN-QUOTA-10",
  ],
  safety: "quota",
  issuesTokensFor: ["quota"],
  facts: QUOTA_FACTS,
  needs: quotaNeeds,
  async run(ctx) {
    await withTokensOfItsOwn(ctx, async (session) => {
      if (!session.drivable) return modelInRealTime(ctx, session);
      await checkProperty(
        ctx,
        fc.asyncProperty(
          fc.integer({ min: 3, max: 5 }),
          fc.commands(quotaCommands, { maxCommands: 30, size: "+1" }),
          async (max, commands) => {
            await session.restart();
            await session.setQuota(max);
            const model: QuotaModel = {
              now: ctx.clock.now(),
              max,
              validityMs: session.validitySeconds * 1000,
              tokens: [],
            };
            const real: QuotaReal = { session, tokens: [], steps: [`changeQuota(${max})`] };
            await fc.asyncModelRun(() => ({ model, real }), commands);
          },
        ),
      );
    });
  },
});
