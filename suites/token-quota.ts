// Multi-token support: one token per client while it is off; with it on, a new token per request up to
// maxActiveTokensAllowed, a limit-exceeded refusal beyond, and expired tokens freeing their slots.
import fc from "fast-check";
import { type Check, type CheckContext, CheckFailure, fail, skip } from "../src/check/index.ts";
import {
  type ApiResponse,
  accessTokenOf,
  type Customer,
  describeResponse,
  multiTokenConfig,
  type TokenResponse,
} from "../src/client/index.ts";
import { readCustomer, withCustomerRestored } from "./support/customer-restore.ts";
import { defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import {
  measureRequestMs,
  type QuotaSession,
  upsertClient,
  validityForBurst,
  withQuotaSession,
} from "./support/quota-session.ts";
import {
  ensure,
  judgeExpiredRefusal,
  judgeKitErrorBody,
  judgeQuotaRefusal,
  judgeSuccess,
  judgeValidationError,
  limitWording,
} from "./support/response-judges.ts";
import { clientOf, credentialOf, quotaCustomerIdOf } from "./support/target-client.ts";
import { announcedValidity, defaultValiditySeconds } from "./support/token-lifetime.ts";

/** Small quotas keep runs fast; the seed picks one of 3..5. */
function quotaFor(ctx: CheckContext): number {
  return 3 + (Math.abs(ctx.seed) % 3);
}

interface Issued {
  token: string;
  expiresIn: number;
}

/** Per target, the last announcement of a quota client's token beyond its configured validity: such a
 *  token outlives the session that asked for it and holds a slot in the checks after it. */
const overlong = new WeakMap<object, string>();

/** Validity a quota client's token announces, held to the validity the session gave the client. */
function validityOf(session: QuotaSession, response: ApiResponse<TokenResponse>): number {
  try {
    return announcedValidity(response, session.validitySeconds, "the quota client");
  } catch (error) {
    if (error instanceof CheckFailure) overlong.set(session.ctx.target, error.message);
    throw error;
  }
}

/** Issues `count` tokens that must all be new and distinct; returns them. `why` names the situation. */
async function issueDistinct(
  session: QuotaSession,
  count: number,
  seen: Set<string>,
  why: string,
): Promise<Issued[]> {
  const issued: Issued[] = [];
  for (let i = 0; i < count; i++) {
    const response = await session.issue();
    const token = accessTokenOf(response);
    if (!token) {
      // In real time, tokens issued before the check (with their old validity) may still hold slots: a
      // limit-exceeded refusal then cannot be told from a quota applied too early.
      if (!session.drivable && judgeQuotaRefusal(session.ctx.target.profile, response) === undefined)
        skip(
          `the quota client got ${i} of ${count} tokens before a limit-exceeded refusal; tokens issued before ` +
            "the check may still be active and hold slots (the kit cannot drive this target's clock); rerun " +
            `when they have expired (${describeResponse(response)})`,
        );
      fail(`${why}: token request ${i + 1} of ${count} was not granted: ${describeResponse(response)}`);
    }
    if (seen.has(token))
      fail(
        `${why}: token request ${i + 1} returned a token issued before; expected a newly issued token ` +
          "(a repeated token is not a granted one)",
      );
    seen.add(token);
    issued.push({ token, expiresIn: validityOf(session, response) });
  }
  return issued;
}

/**
 * `count` token requests one after another each get a newly issued token: multi-token support is on. The
 * default quota when no value is given is not shown, so a limit-exceeded refusal after the first new token
 * ends the run as well; a token returned again never does.
 */
async function expectNewTokens(session: QuotaSession, count: number, config: string): Promise<void> {
  const seen: string[] = [];
  for (let i = 1; i <= count; i++) {
    const answer = await session.issue();
    const token = accessTokenOf(answer);
    if (token === undefined) {
      const limit = judgeQuotaRefusal(session.ctx.target.profile, answer) === undefined;
      if (limit && seen.length > 0) return;
      if (limit && !session.drivable)
        skip(
          `with ${config}, the first token request was refused for the limit; tokens issued before the ` +
            "check may still hold the slots (the kit cannot drive this target's clock); rerun when they have expired",
        );
      fail(
        `with ${config}, expected token request ${i} to issue a new token, got ${describeResponse(answer)}`,
      );
    }
    const again = seen.indexOf(token);
    if (again >= 0)
      fail(
        `with ${config}, token request ${i} returned the token of request ${again + 1} again: multitokenConfig ` +
          "activates multi-token support, under which every token request returns a newly issued token",
      );
    seen.push(token);
    validityOf(session, answer);
  }
}

/** Distinct new tokens among simultaneous answers; a token answered twice, or one issued before, fails. */
function newTokens(answers: ApiResponse<TokenResponse>[], seen: Set<string>, why: string): string[] {
  const granted: string[] = [];
  for (const answer of answers) {
    const token = accessTokenOf(answer);
    if (token === undefined) continue;
    if (seen.has(token))
      fail(`${why}: a token came twice or was issued before; each granted request must get a new one`);
    seen.add(token);
    granted.push(token);
  }
  return granted;
}

/** One token request after another until a refusal (at most max + 1): the tokens issued; more than
 *  `max` fails. Tokens held from before the check make the count smaller, never larger. */
async function fillSequentially(
  session: QuotaSession,
  max: number,
  seen: Set<string>,
  why: string,
): Promise<number> {
  for (let issued = 0; issued <= max; issued++) {
    const response = await session.issue();
    const token = accessTokenOf(response);
    if (!token) {
      ensure(
        judgeQuotaRefusal(session.ctx.target.profile, response),
        `${why}: token request ${issued + 1} with maxActiveTokensAllowed=${max}`,
      );
      return issued;
    }
    if (seen.has(token))
      fail(`${why}: token request ${issued + 1} returned a token issued before; expected a new one`);
    seen.add(token);
    validityOf(session, response);
  }
  fail(
    `${why}: ${max + 1} token requests one after another got ${max + 1} new tokens; maxActiveTokensAllowed=${max}`,
  );
}

async function fillQuota(session: QuotaSession, max: number): Promise<Issued[]> {
  await session.setQuota(max);
  return issueDistinct(session, max, new Set(), `multi-token on, maxActiveTokensAllowed=${max}`);
}

async function atLimitRefusal(session: QuotaSession, max: number): Promise<ApiResponse<unknown>> {
  return session.issue().then((response) => {
    if (accessTokenOf(response))
      fail(
        `expected a limit-exceeded refusal with ${max} active tokens and maxActiveTokensAllowed=${max}, ` +
          `but a token was issued: ${describeResponse(response)}`,
      );
    return response;
  });
}

/** One token over the quota is refused as the profile accepts it (tolerant: any 4xx stating the limit). */
async function expectQuotaRefusal(session: QuotaSession, max: number, why: string): Promise<void> {
  ensure(judgeQuotaRefusal(session.ctx.target.profile, await atLimitRefusal(session, max)), why);
}

async function allUsable(session: QuotaSession, tokens: Issued[], why: string): Promise<void> {
  for (const [index, { token }] of tokens.entries())
    ensure(judgeSuccess(await session.use(token), `use of active token ${index + 1}`), why);
}

/** Sets maxActiveTokensAllowed to `value` and returns the answer; the customer is restored by the caller. */
async function tryQuota(ctx: CheckContext, customerId: string, value: unknown) {
  const original = await readCustomer(ctx, "admin", customerId);
  return clientOf(ctx).putCustomer(await ctx.token("admin"), customerId, {
    ...original,
    multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: value } },
  });
}

/** The stored maxActiveTokensAllowed, read back without changing anything. */
async function storedQuota(ctx: CheckContext, customerId: string): Promise<unknown> {
  const customer = await readCustomer(ctx, "admin", customerId);
  return customer.multitokenConfig?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed;
}

// ---------------------------------------------------------------- tokens from before the check
/** maxActiveTokensAllowed: "at most 200, a hard platform limit". */
const MAX_QUOTA = 200;

/** Targets on which the quota client was found holding no token from before the run's quota checks. */
const noTokensFromBefore = new WeakSet<object>();

/**
 * A quota session for checks that count every active token of the quota client as their own. Where the
 * kit cannot drive the target's clock, the client may hold tokens issued before the run (with a longer
 * validity than the session gives it) that hold quota slots until they expire, and the kit cannot wait
 * them out. Once per target it asks: with maxActiveTokensAllowed=1, is one more token granted? Granted,
 * the client held none (the probe's token expires with the session's short validity); refused for the
 * limit, it holds some, and the check skips rather than judge a correct target by slots it cannot see.
 */
function withTokensOfItsOwn<T>(ctx: CheckContext, body: (session: QuotaSession) => Promise<T>): Promise<T> {
  return withQuotaSession(ctx, async (session) => {
    if (!session.drivable && !noTokensFromBefore.has(ctx.target)) {
      await session.setQuota(1);
      const answer = await session.issue();
      const refused = !accessTokenOf(answer) && judgeQuotaRefusal(ctx.target.profile, answer) === undefined;
      const earlier = overlong.get(ctx.target);
      if (refused && earlier !== undefined)
        fail(
          "the quota client still holds tokens the kit was issued earlier in this run, past the validity it " +
            `gave them (with maxActiveTokensAllowed=1 a token request was refused for the limit): ${earlier}`,
        );
      if (refused) {
        // Held tokens from before the run, or the kit's own tokens of this run that outlive the validity it
        // gave the client (a target that ignores accessTokenValidity): the interface shows no difference
        // between the two. A new token does: with room under the platform's limit a token request issues a
        // new token whose validity starts at issue time, so its expires_in must not exceed the session's.
        await session.setQuota(MAX_QUOTA);
        const roomy = await session.issue();
        if (accessTokenOf(roomy)) validityOf(session, roomy);
      }
      if (refused)
        skip(
          "the quota client holds active tokens from before the run (with maxActiveTokensAllowed=1 a token " +
            "request was refused for the limit); they hold quota slots until they expire, and the kit cannot " +
            `drive this target's clock: rerun when they have expired (${describeResponse(answer)})`,
        );
      if (accessTokenOf(answer)) {
        validityOf(session, answer);
        noTokensFromBefore.add(ctx.target);
      }
      await session.restart();
    }
    return body(session);
  });
}

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
}
type QuotaCommand = fc.AsyncCommand<QuotaModel, QuotaReal>;

const activeCount = (m: QuotaModel, at = m.now) => m.tokens.filter((t) => t.expiresAt > at).length;

class RequestToken implements QuotaCommand {
  check = () => true;
  async run(m: QuotaModel, r: QuotaReal) {
    const active = activeCount(m);
    const response = await r.session.issue();
    const token = accessTokenOf(response);
    if (active < m.max) {
      if (!token)
        fail(
          `with ${active} active tokens and maxActiveTokensAllowed=${m.max}, expected a new token, got ${describeResponse(response)}`,
        );
      if (r.tokens.includes(token)) fail("expected a newly issued token, got one issued before");
      const expiresIn = validityOf(r.session, response);
      if (r.tokens.length === 0) m.validityMs = expiresIn * 1000;
      m.tokens.push({ expiresAt: m.now + expiresIn * 1000 });
      r.tokens.push(token);
    } else {
      ensure(
        judgeQuotaRefusal(r.session.ctx.target.profile, response),
        `token request with ${active} active tokens and maxActiveTokensAllowed=${m.max}`,
      );
    }
  }
  toString = () => "requestToken";
}

class UseToken implements QuotaCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<QuotaModel>) => m.tokens.length > 0;
  async run(m: QuotaModel, r: QuotaReal) {
    const index = this.pick % m.tokens.length;
    const expired = (m.tokens[index]?.expiresAt ?? 0) <= m.now;
    const response = await r.session.use(r.tokens[index] ?? "");
    if (expired)
      ensure(judgeExpiredRefusal(r.session.ctx.target.profile, response), `use of expired token #${index}`);
    else ensure(judgeSuccess(response, `use of active token #${index}`));
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
// was sent after its latest; in between it accepts either outcome. Time passes in whole steps of
// validity + 1 s, which expire every token the kit holds.
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
    const sent = m.now();
    const response = await r.session.issue();
    const received = m.now();
    const { surely, maybe } = realTimeActive(m, sent, received);
    const token = accessTokenOf(response);
    if (!token) {
      if (maybe < m.max)
        fail(
          `with at most ${maybe} active tokens and maxActiveTokensAllowed=${m.max}, expected a new token, got ${describeResponse(response)}`,
        );
      ensure(
        judgeQuotaRefusal(r.session.ctx.target.profile, response),
        `token request with ${surely === maybe ? surely : `${surely} to ${maybe}`} active tokens and maxActiveTokensAllowed=${m.max}`,
      );
      return;
    }
    if (surely >= m.max)
      fail(
        `with ${surely} tokens active for certain and maxActiveTokensAllowed=${m.max}, expected a limit-exceeded refusal, but a token was issued: ${describeResponse(response)}`,
      );
    if (r.tokens.includes(token)) fail("expected a newly issued token, got one issued before");
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
    const index = this.pick % m.tokens.length;
    const window = m.tokens[index];
    const sent = m.now();
    const response = await r.session.use(r.tokens[index] ?? "");
    const received = m.now();
    if (!window) return;
    if (sent >= window.latestExpiry)
      ensure(judgeExpiredRefusal(r.session.ctx.target.profile, response), `use of expired token #${index}`);
    else if (received < window.earliestExpiry)
      ensure(judgeSuccess(response, `use of active token #${index}`));
    else r.session.ctx.log.debug(`token #${index} used at its expiry: either outcome is accepted`);
  }
  toString = () => `useToken(${this.pick})`;
}

class RealTimeLetTimePass implements RealTimeCommand {
  check = (m: Readonly<RealTimeModel>) => m.passes < maxRealTimePasses;
  async run(m: RealTimeModel, r: QuotaReal) {
    await r.session.pass(m.validitySeconds + 1);
    m.passes++;
  }
  toString = () => "letTimePass(validity + 1 s)";
}

class RealTimeChangeQuota implements RealTimeCommand {
  constructor(readonly max: number) {}
  // As ChangeQuota: never below the tokens that may still be active (time only lowers that number).
  check = (m: Readonly<RealTimeModel>) => realTimeActive(m, m.now(), m.now()).maybe <= this.max;
  async run(m: RealTimeModel, r: QuotaReal) {
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

function modelRuns(ctx: CheckContext, session: QuotaSession): Promise<void> {
  return checkProperty(
    ctx,
    fc.asyncProperty(
      // Small quotas, so that a few requests reach them.
      fc.integer({ min: 1, max: 2 }),
      fc.array(realTimeCommand, { minLength: realTimeMinCommands, maxLength: realTimeMaxCommands }),
      async (max, commands) => {
        await session.restart();
        await session.setQuota(max);
        const model: RealTimeModel = {
          now: () => ctx.clock.now(),
          max,
          validitySeconds: session.validitySeconds,
          passes: 0,
          tokens: [],
        };
        await fc.asyncModelRun(() => ({ model, real: { session, tokens: [] } }), commands);
      },
    ),
    { numRuns: Math.min(ctx.runs, realTimeRuns) },
  );
}

// ---------------------------------------------------------------- one client per quota, in real time
/** Token requests of the viewer until a refusal, at most max + 1. */
interface ViewerBurst {
  tokens: string[];
  /** The answer that ended the burst: a refusal, or the (max + 1)th token. */
  last: ApiResponse<TokenResponse>;
  refused: boolean;
  /** Shortest and longest expires_in of the granted tokens (seconds). */
  shortest: number;
  longest: number;
}

async function viewerBurst(
  ctx: CheckContext,
  max: number,
  seen: Set<string>,
  why: string,
  validitySeconds: number,
) {
  const viewer = credentialOf(ctx, "viewer");
  const burst: ViewerBurst = {
    tokens: [],
    last: await clientOf(ctx).token(viewer),
    refused: false,
    shortest: Number.POSITIVE_INFINITY,
    longest: 0,
  };
  for (let i = 0; ; i++) {
    const token = accessTokenOf(burst.last);
    if (!token) {
      burst.refused = true;
      return burst;
    }
    if (seen.has(token))
      fail(`${why}: viewer token request ${i + 1} returned a token issued before; expected a new one`);
    seen.add(token);
    burst.tokens.push(token);
    const expiresIn = announcedValidity(burst.last, validitySeconds, "the viewer client");
    burst.shortest = Math.min(burst.shortest, expiresIn);
    burst.longest = Math.max(burst.longest, expiresIn);
    if (i >= max) return burst;
    burst.last = await clientOf(ctx).token(viewer);
  }
}

/** Skips when a burst of requests from `started` to now outlasted the certain validity of its tokens. */
function ensureInsideValidity(ctx: CheckContext, started: number, shortest: number, what: string): void {
  const took = ctx.clock.now() - started;
  if (Number.isFinite(shortest) && took >= (shortest - 1) * 1000)
    skip(
      `${what} took ${took} ms, longer than the ${shortest} s validity of its tokens allows for certain; ` +
        "the target answers too slowly for the kit to tell an expiry from a quota effect (its clock cannot be driven)",
    );
}

/**
 * The viewer and the quota client are clients of one customer. The viewer may hold tokens from before the
 * check (the runner's, valid for an hour), which count toward its own quota and cannot be made to expire:
 * so the kit first measures the viewer's allowance alone, then fills the quota client's quota and asks
 * again. A quota applied per client leaves the viewer at least the allowance it had alone (more, if a token
 * from before expired meanwhile); one applied to the customer leaves it none. Both clients get a validity
 * that outlives a burst, and everything the check issued has expired when it ends.
 */
async function quotaPerClientInRealTime(ctx: CheckContext, session: QuotaSession, max: number) {
  const customerId = session.customerId;
  const validity = validityForBurst(await measureRequestMs(session), 2 * max + 3);
  const previous = (await upsertClient(ctx, customerId, "viewer", {})) ?? defaultValiditySeconds;
  await upsertClient(ctx, customerId, "viewer", { accessTokenValidity: validity });
  try {
    if (validity !== session.validitySeconds) await session.setValidity(validity);
    await session.setQuota(max);
    const seen = new Set<string>();
    const aloneStarted = ctx.clock.now();
    const alone = await viewerBurst(ctx, max, seen, "the viewer alone", validity);
    ensureInsideValidity(ctx, aloneStarted, alone.shortest, "the viewer's token requests");
    if (!alone.refused)
      fail(
        `the viewer client got ${alone.tokens.length} tokens with maxActiveTokensAllowed=${max}: the quota is not applied to it`,
      );
    ensure(judgeQuotaRefusal(ctx.target.profile, alone.last), "the viewer alone over its quota");
    if (alone.tokens.length === 0)
      skip(
        `the viewer client already holds ${max} or more active tokens from before the check ` +
          `(maxActiveTokensAllowed=${max}), and the target's clock cannot be driven; rerun when they have expired`,
      );
    await session.pass(alone.longest + 1);

    const started = ctx.clock.now();
    const quotaTokens = await issueDistinct(
      session,
      max,
      new Set(),
      `multi-token on, maxActiveTokensAllowed=${max}`,
    );
    const atLimit = await session.issue();
    const beside = await viewerBurst(
      ctx,
      max,
      seen,
      "the viewer beside the quota client at its limit",
      validity,
    );
    const stillAtLimit = await session.issue();
    ensureInsideValidity(
      ctx,
      started,
      Math.min(beside.shortest, ...quotaTokens.map((t) => t.expiresIn)),
      "filling the quota client's quota and the viewer's token requests",
    );
    ensure(judgeQuotaRefusal(ctx.target.profile, atLimit), "the quota client over its quota");
    if (beside.tokens.length < alone.tokens.length)
      fail(
        `with the quota client at its limit, the viewer client (same customer) got ${beside.tokens.length} new tokens, ` +
          `${alone.tokens.length} before with the quota client holding none: the quota client's tokens count against the viewer; ` +
          `maxActiveTokensAllowed=${max} applies to every client individually (last answer: ${describeResponse(beside.last)})`,
      );
    if (!beside.refused)
      fail(`the viewer client got ${beside.tokens.length} tokens with maxActiveTokensAllowed=${max}`);
    ensure(judgeQuotaRefusal(ctx.target.profile, beside.last), "viewer over its own quota");
    ensure(
      judgeQuotaRefusal(ctx.target.profile, stillAtLimit),
      "the quota client, still at its limit after the viewer's requests",
    );
  } finally {
    // Everything issued with `validity` expires before the next check (its session waits out only 2 s).
    await session.restart();
    await upsertClient(ctx, customerId, "viewer", { accessTokenValidity: previous });
  }
}

// ---------------------------------------------------------------- the default quota
/** Token requests until one is not granted, at most 201: a token issued before ends the count with a
 *  failure (it is not granted, and multi-token support is not on), so it is never counted as a new one. */
async function countUpTo201(session: QuotaSession): Promise<{ granted: number; shortest: number }> {
  const seen = new Set<string>();
  let shortest = Number.POSITIVE_INFINITY;
  while (seen.size <= 200) {
    const answer = await session.issue();
    const token = accessTokenOf(answer);
    if (!token) break;
    if (seen.has(token))
      fail(
        `with multitokenConfig {"clientCredentialsMultiTokenConfig": {}}, token request ${seen.size + 1} ` +
          `returned a token issued before (after ${seen.size} distinct tokens): multi-token support is not on`,
      );
    seen.add(token);
    shortest = Math.min(shortest, validityOf(session, answer));
  }
  return { granted: seen.size, shortest };
}

// ---------------------------------------------------------------- the default quota, in real time
/** Longest token validity the real-time default-quota check accepts: it waits that long for them to expire. */
const longestBurstValiditySeconds = 45;

/** 200 tokens must all be active at the 201st request: their validity outlives the burst, then expires. */
async function defaultQuotaInRealTime(ctx: CheckContext, session: QuotaSession): Promise<void> {
  const requestMs = await measureRequestMs(session);
  const validity = validityForBurst(requestMs, 201);
  if (validity > longestBurstValiditySeconds)
    skip(
      `201 token requests take about ${Math.round((201 * requestMs) / 1000)} s on this target ` +
        `(${Math.round(requestMs)} ms a request, rate limit included): the tokens would need an ` +
        `accessTokenValidity of ${validity} s and the check would wait as long again for them to expire ` +
        `(over ${longestBurstValiditySeconds} s); the target's clock cannot be driven`,
    );
  await session.setValidity(validity);
  try {
    const response = await clientOf(ctx).putCustomer(await ctx.token("admin"), session.customerId, {
      ...session.original,
      multitokenConfig: { clientCredentialsMultiTokenConfig: {} },
    });
    ensure(judgeSuccess(response, "multitokenConfig without maxActiveTokensAllowed"));
    const started = ctx.clock.now();
    const { granted, shortest } = await countUpTo201(session);
    ensureInsideValidity(ctx, started, shortest, `${granted + 1} token requests`);
    if (granted !== 200) fail(`expected exactly 200 tokens before the refusal, got ${granted}`);
  } finally {
    await session.restart();
  }
}

// ---------------------------------------------------------------- checks
const quotaNeeds = { roles: ["admin" as const, "quota" as const] };

export const tokenQuotaChecks: Check[] = [
  defineCheck({
    id: "token-quota/single-token-reused",
    title: "MUST return the same token again while multi-token support is off",
    requirements: ["TOKEN-STATE-01"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      await withQuotaSession(ctx, async (session) => {
        await session.multiTokenOff();
        const first = accessTokenOf(await session.issue());
        const second = await session.issue();
        if (!first || accessTokenOf(second) !== first)
          fail(
            `expected the second token request to return the first token again (multi-token support off), got ${describeResponse(second)}`,
          );
      });
    },
  }),
  defineCheck({
    id: "token-quota/multitoken-config-activates",
    title:
      "MUST switch multi-token support on with multitokenConfig present, with or without maxActiveTokensAllowed",
    requirements: ["TOKEN-QUOTA-01", "CONFIG-CUSTOMER-05"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      const max = quotaFor(ctx);
      await withQuotaSession(ctx, async (session) => {
        const settings: [string, Customer["multitokenConfig"]][] = [
          [`{"maxActiveTokensAllowed": ${max}}`, multiTokenConfig(max)],
          ["{} (no maxActiveTokensAllowed)", { clientCredentialsMultiTokenConfig: {} }],
        ];
        for (const [what, multitokenConfig] of settings) {
          await session.restart();
          const config = `multitokenConfig.clientCredentialsMultiTokenConfig ${what}`;
          ensure(
            judgeSuccess(
              await clientOf(ctx).putCustomer(await ctx.token("admin"), session.customerId, {
                ...session.original,
                multitokenConfig,
              }),
              `PUT of customer ${session.customerId} with ${config}`,
            ),
          );
          await expectNewTokens(session, 3, config);
        }
      });
    },
  }),
  defineCheck({
    id: "token-quota/distinct-tokens-up-to-max",
    title:
      "MUST issue a new token per request up to maxActiveTokensAllowed and decline one more without issuing",
    requirements: [
      "TOKEN-QUOTA-01",
      "TOKEN-QUOTA-02",
      "TOKEN-STATE-02",
      "TOKEN-STATE-03",
      "CONFIG-CUSTOMER-05",
      "CONFIG-CUSTOMER-01",
    ],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      const max = quotaFor(ctx);
      await withTokensOfItsOwn(ctx, async (session) => {
        const tokens = await fillQuota(session, max);
        await expectQuotaRefusal(session, max, "one token over the quota");
        await allUsable(session, tokens, "after the refusal, the active tokens stay usable");
      });
    },
  }),
  defineCheck({
    id: "token-quota/refusal-429",
    title: "SHOULD decline a token request over the quota with 429 and a JSON error stating the limit",
    requirements: ["TOKEN-QUOTA-07", "ERRORS-01"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      const max = quotaFor(ctx);
      await withTokensOfItsOwn(ctx, async (session) => {
        await fillQuota(session, max);
        const response = await atLimitRefusal(session, max);
        if (response.status !== 429 || !limitWording.test(response.text))
          fail(`expected 429 with a body stating the limit was exceeded, got ${describeResponse(response)}`);
        ensure(judgeKitErrorBody(response));
      });
    },
  }),
  defineCheck({
    id: "token-quota/expired-token-frees-slot",
    title: "MUST refuse an expired token as expired and no longer count it toward the quota",
    requirements: ["TOKEN-STATE-04", "TOKEN-STATE-05", "TOKEN-QUOTA-10", "TOKEN-VALIDITY-02", "AUTH-04"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      const max = quotaFor(ctx);
      await withTokensOfItsOwn(ctx, async (session) => {
        const tokens = await fillQuota(session, max);
        await atLimitRefusal(session, max);
        const longest = Math.max(...tokens.map((t) => t.expiresIn));
        await session.pass(longest + 1);
        ensure(
          judgeExpiredRefusal(ctx.target.profile, await session.use(tokens[0]?.token ?? "")),
          "use of a token after its accessTokenValidity elapsed",
        );
        const seen = new Set(tokens.map((t) => t.token));
        const fresh = await issueDistinct(
          session,
          max,
          seen,
          "after every active token expired, the slots are free",
        );
        await expectQuotaRefusal(session, max, "the quota holds again");
        await allUsable(session, fresh, "tokens issued after the expiry");
      });
    },
  }),
  defineCheck({
    id: "token-quota/raised-quota-applies",
    title: "MUST issue tokens again at the limit once maxActiveTokensAllowed is raised",
    requirements: ["TOKEN-QUOTA-10", "TOKEN-QUOTA-02"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      const max = quotaFor(ctx);
      await withTokensOfItsOwn(ctx, async (session) => {
        const tokens = await fillQuota(session, max);
        await atLimitRefusal(session, max);
        await session.setQuota(max + 1);
        const seen = new Set(tokens.map((t) => t.token));
        await issueDistinct(session, 1, seen, `after raising maxActiveTokensAllowed to ${max + 1}`);
        ensure(
          judgeQuotaRefusal(ctx.target.profile, await atLimitRefusal(session, max + 1)),
          "at the raised limit",
        );
      });
    },
  }),
  defineCheck({
    id: "token-quota/parallel-requests-never-exceed",
    title: "MUST never issue more than maxActiveTokensAllowed tokens to simultaneous requests",
    requirements: ["TOKEN-QUOTA-06", "TOKEN-QUOTA-02"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      const max = quotaFor(ctx);
      await withQuotaSession(ctx, async (session) => {
        for (let round = 1; round <= 2; round++) {
          await session.restart();
          // Tokens issued before the check (in real time, with an older validity) may still hold slots, and
          // their number is unknown: fill the quota one request at a time first, so that every slot is held,
          // then raise it by `free`: exactly `free` slots are open, however many tokens were held before.
          await session.setQuota(max);
          const seen = new Set<string>();
          const before = await fillSequentially(session, max, seen, `round ${round}`);
          const free = max;
          await session.setQuota(max + free);
          const answers = await Promise.all(Array.from({ length: free + 4 }, () => session.issue()));
          const granted = newTokens(answers, seen, `round ${round}: simultaneous requests`);
          if (granted.length > free)
            fail(
              `round ${round}: with the quota full (${before} tokens issued one by one before a refusal at ` +
                `maxActiveTokensAllowed=${max}) and then raised to ${max + free}, ${free + 4} simultaneous ` +
                `token requests got ${granted.length} new tokens; the raise opened ${free} slots`,
            );
          // A rate limiter may have refused some; the rest of the raised quota must still be there, no more.
          const rest = await issueDistinct(session, free - granted.length, seen, `round ${round}`);
          ensure(
            judgeQuotaRefusal(ctx.target.profile, await atLimitRefusal(session, max + free)),
            `round ${round}: after ${granted.length + rest.length} tokens at the raised limit`,
          );
        }
      });
    },
  }),
  defineCheck({
    id: "token-quota/model",
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
              await fc.asyncModelRun(() => ({ model, real: { session, tokens: [] } }), commands);
            },
          ),
        );
      });
    },
  }),
  defineCheck({
    id: "token-quota/quota-per-client",
    title: "MUST apply maxActiveTokensAllowed to every client of the customer individually",
    requirements: ["TOKEN-QUOTA-04"],
    safety: "quota",
    needs: { roles: ["admin", "quota", "viewer"] },
    async run(ctx) {
      if ((ctx.target.customerId ?? "") !== quotaCustomerIdOf(ctx))
        skip("needs the viewer client in the quota client's customer (customerId equal to quotaCustomerId)");
      const max = quotaFor(ctx);
      const viewer = credentialOf(ctx, "viewer");
      await withTokensOfItsOwn(ctx, async (session) => {
        if (!session.drivable) return quotaPerClientInRealTime(ctx, session, max);
        await fillQuota(session, max);
        await atLimitRefusal(session, max);
        const seen = new Set<string>();
        for (let i = 0; i < max; i++) {
          const response = await clientOf(ctx).token(viewer);
          const token = accessTokenOf(response);
          if (!token || seen.has(token))
            fail(
              `with the quota client at its limit, the viewer client (same customer) must still get ${max} new tokens; ` +
                `request ${i + 1} got ${describeResponse(response)}`,
            );
          seen.add(token);
        }
        ensure(
          judgeQuotaRefusal(ctx.target.profile, await clientOf(ctx).token(viewer)),
          "viewer over its own quota",
        );
      });
    },
  }),
  defineCheck({
    id: "token-quota/default-quota-200",
    title: "SHOULD cap at 200 active tokens when multitokenConfig has no maxActiveTokensAllowed",
    requirements: ["TOKEN-QUOTA-08"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      await withTokensOfItsOwn(ctx, async (session) => {
        if (!session.drivable) return defaultQuotaInRealTime(ctx, session);
        const response = await clientOf(ctx).putCustomer(await ctx.token("admin"), session.customerId, {
          ...session.original,
          multitokenConfig: { clientCredentialsMultiTokenConfig: {} },
        });
        ensure(judgeSuccess(response, "multitokenConfig without maxActiveTokensAllowed"));
        const { granted } = await countUpTo201(session);
        if (granted !== 200) fail(`expected exactly 200 tokens before the refusal, got ${granted}`);
      });
    },
  }),
  defineCheck({
    id: "token-quota/max-above-200-refused",
    title: "MUST refuse maxActiveTokensAllowed above 200 with a validation error and accept 200",
    requirements: ["TOKEN-QUOTA-03", "CONFIG-CUSTOMER-05"],
    safety: "quota",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const customerId = quotaCustomerIdOf(ctx);
      await withCustomerRestored(ctx, "admin", customerId, async () => {
        ensure(
          judgeSuccess(await tryQuota(ctx, customerId, 200), "maxActiveTokensAllowed=200 (the limit itself)"),
        );
        const above = fc.oneof(fc.constant(201), fc.integer({ min: 201, max: 2 ** 31 - 1 }));
        // A value drawn again that passed already is not sent again: the same request, the same judgement.
        const judged = new Set<number>();
        await checkProperty(
          ctx,
          fc.asyncProperty(above, async (value) => {
            if (judged.has(value)) return;
            const response = await tryQuota(ctx, customerId, value);
            ensure(judgeValidationError(ctx.target.profile, response), `maxActiveTokensAllowed=${value}`);
            const stored = await storedQuota(ctx, customerId);
            if (stored === value) fail(`maxActiveTokensAllowed=${value} was refused but stored anyway`);
            judged.add(value);
          }),
        );
      });
    },
  }),
  defineCheck({
    id: "token-quota/max-below-1-refused",
    title: "SHOULD refuse maxActiveTokensAllowed below 1 with a validation error",
    requirements: ["TOKEN-QUOTA-09"],
    safety: "quota",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const customerId = quotaCustomerIdOf(ctx);
      await withCustomerRestored(ctx, "admin", customerId, async () => {
        for (const value of [0, -1]) {
          const response = await tryQuota(ctx, customerId, value);
          ensure(judgeValidationError(ctx.target.profile, response), `maxActiveTokensAllowed=${value}`);
        }
      });
    },
  }),
  defineCheck({
    id: "token-quota/validation-error-names-field",
    title: "SHOULD answer a quota validation error with 400 naming maxActiveTokensAllowed, storing nothing",
    requirements: ["CONFIG-05", "ERRORS-01"],
    safety: "quota",
    needs: { roles: ["admin"] },
    async run(ctx) {
      const customerId = quotaCustomerIdOf(ctx);
      await withCustomerRestored(ctx, "admin", customerId, async (original) => {
        const response = await tryQuota(ctx, customerId, 201);
        if (response.status !== 400 || !/maxActiveTokensAllowed/.test(response.text))
          fail(
            `expected 400 whose description names maxActiveTokensAllowed, got ${describeResponse(response)}`,
          );
        ensure(judgeKitErrorBody(response));
        const stored = await storedQuota(ctx, customerId);
        const before = original.multitokenConfig?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed;
        if (stored !== before) fail(`the refused value changed the stored quota from ${before} to ${stored}`);
      });
    },
  }),
  defineCheck({
    id: "token-quota/rdbms-multitoken-refused",
    title: "MUST refuse multitokenConfig for a customer whose tenant uses rdbms authorization",
    requirements: ["CONFIG-CUSTOMER-04"],
    safety: "write",
    needs: { roles: ["rdbmsAdmin"], rdbmsTenant: true },
    async run(ctx) {
      const customerId = ctx.target.rdbmsCustomerId ?? skip("the target file names no rdbmsCustomerId");
      await withCustomerRestored(ctx, "rdbmsAdmin", customerId, async (original) => {
        const token = await ctx.token("rdbmsAdmin");
        const client = clientOf(ctx);
        for (const [method, send] of [
          [
            "PUT",
            () =>
              client.putCustomer(token, customerId, { ...original, multitokenConfig: multiTokenConfig(5) }),
          ],
          ["POST", () => client.postCustomer(token, customerId, { multitokenConfig: multiTokenConfig(5) })],
        ] as const) {
          ensure(
            judgeValidationError(ctx.target.profile, await send()),
            `${method} with multitokenConfig (rdbms tenant)`,
          );
        }
      });
    },
  }),
];

tokenQuotaChecks.push(
  defineCheck({
    id: "token-quota/validity-from-client-configuration",
    title: "MUST give tokens the accessTokenValidity set through the clients endpoint, from their issue time",
    requirements: ["TOKEN-VALIDITY-01", "TOKEN-VALIDITY-02", "CONFIG-CLIENT-02", "CONFIG-CLIENT-01"],
    safety: "quota",
    needs: quotaNeeds,
    async run(ctx) {
      await withTokensOfItsOwn(ctx, async (session) => {
        // The session puts the client's previous validity back when it ends.
        const validity = session.drivable ? 120 : 3;
        await session.setValidity(validity);
        // Multi-token on: the request issues a fresh token, whose validity starts now.
        await session.setQuota(quotaFor(ctx));
        const [issued] = await issueDistinct(session, 1, new Set(), `accessTokenValidity=${validity}`);
        const token = issued?.token ?? "";
        await session.pass(validity - 2);
        ensure(
          judgeSuccess(
            await session.use(token),
            `use ${validity - 2} s after issue (validity ${validity} s)`,
          ),
        );
        await session.pass(3);
        ensure(
          judgeExpiredRefusal(ctx.target.profile, await session.use(token)),
          `use ${validity + 1} s after issue (validity ${validity} s)`,
        );
      });
    },
  }),
);
