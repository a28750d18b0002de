// What the token-quota checks share: the quota the seed picks, issuing and counting the quota client's
// tokens against a quota, reading the stored quota, and a session that holds no token from before the check.
import {
  type CheckContext,
  CheckFailure,
  CheckInconclusive,
  defineFact,
  explore,
  type Fact,
  type FailureDetail,
  fail,
  inconclusive,
  requestOf,
} from "../../src/check/index.ts";
import {
  type ApiResponse,
  accessTokenOf,
  describeResponse,
  type TokenResponse,
} from "../../src/client/index.ts";
import { MAX_ACTIVE_TOKENS_ALLOWED } from "../../src/contract/index.ts";
import { retryAfterMs } from "../../src/http/index.ts";
import { answerDetail, clientRecord, ensureAnswer } from "./answer-detail.ts";
import { readCustomer } from "./customer-restore.ts";
import type { CheckDefinition } from "./define.ts";
import { type CustomerMethod, DIMENSION, writeCustomer } from "./quota-methods.ts";
import {
  noTokensFromBefore,
  QUOTA_SESSION_FACTS,
  type QuotaSession,
  slotsHeldFromBefore,
  tokensFromBefore,
  validityForBurst,
  withQuotaSession,
} from "./quota-session.ts";
import { judgeQuotaRefusal, judgeSuccess } from "./response-judges.ts";
import { announcedValidity, expiresInOf, letTimePass, VALIDITY_SKEW_MS } from "./token-lifetime.ts";

/** Small quotas keep runs fast; the seed picks one of 3..5. */
export function quotaFor(ctx: CheckContext): number {
  return 3 + (Math.abs(ctx.seed) % 3);
}

export interface Issued {
  token: string;
  expiresIn: number;
}

/** The quota client as a failure's record names it, with the position of the token request at fault. */
export function quotaRecord(session: QuotaSession, position?: number | string): string {
  return clientRecord(
    session.ctx,
    "quota",
    typeof position === "number" ? `token request ${position}` : position,
  );
}

/** What a quota of `max` lets through, as a failure's detail expects it. */
export function quotaExpected(max: number): string {
  return `at most ${max} active tokens (maxActiveTokensAllowed=${max}); a limit-exceeded refusal beyond`;
}

// ---------------------------------------------------------------- what real time decides
/**
 * A real-time observation that the windows of the tokens it rests on do not decide: a token the judgment
 * counts as active may have expired by then (its issue lies `spanMs` before the answer judged), which a
 * slow link or a loaded machine makes likely. Undecided, never a failure; a check that planned its
 * tokens' validity too short may size it from `spanMs` and ask once more (see decideInTime).
 */
export class ExpiryAmbiguous extends CheckInconclusive {
  constructor(
    readonly spanMs: number,
    saw: string,
    details?: FailureDetail,
  ) {
    super(
      {
        saw,
        readings: [
          "a token counted as active had expired by then (its validity ran out while the kit's requests were slow)",
          "the target broke the quota or the token's validity",
        ],
        decideBy:
          "a faster link to the target or a less loaded machine (the kit sizes its tokens' validity from the " +
          "round trips it sees), or a target whose clock the kit can drive",
      },
      details,
    );
  }
}

/** Tokens the session holds that are active for certain for a request answered at `at` (`except` left out). */
export function surelyHeld(session: QuotaSession, at: number, except?: string): number {
  let count = 0;
  for (const [token, window] of session.held) if (token !== except && window.earliestExpiry > at) count++;
  return count;
}

/** Milliseconds from the issue of the oldest token the session holds to `at`. */
function spanOf(session: QuotaSession, at: number): number {
  const sent = [...session.held.values()].map((w) => w.sent);
  return sent.length === 0 ? 0 : at - Math.min(...sent);
}

/**
 * A token granted where `max` were counted active: in real time a failure only where `max` tokens of the
 * session were active for certain when it was answered; otherwise undecided (ExpiryAmbiguous), with `saw`.
 */
export function ensureGrantBeyond(
  session: QuotaSession,
  response: ApiResponse<TokenResponse>,
  max: number,
  saw: string,
): void {
  if (session.drivable) return;
  const token = accessTokenOf(response);
  const at = (token === undefined ? undefined : session.held.get(token)?.received) ?? session.ctx.clock.now();
  const surely = surelyHeld(session, at, token);
  if (surely >= max) return;
  throw new ExpiryAmbiguous(
    spanOf(session, at),
    `${saw}, but only ${surely} of the tokens counted were active for certain when it was answered ` +
      `(the oldest issued ${spanOf(session, at)} ms before, with a ${session.validitySeconds} s validity)`,
    answerDetail(response, { record: quotaRecord(session) }),
  );
}

/**
 * Runs a real-time quota judgment with tokens whose validity outlives the burst it needs: planned from the
 * longest round trip the session saw for `requests` requests, and where the observation still came out
 * ambiguous, asked once more from a clean start with a validity sized from the span it took (at most
 * `longestPlannedSeconds`). Where the clock is driven, `body` runs as it is.
 */
export async function decideInTime(
  session: QuotaSession,
  requests: number,
  body: () => Promise<void>,
): Promise<void> {
  if (session.drivable) return body();
  const planned = validityForBurst(session.roundTripMs(), requests);
  if (planned > session.validitySeconds) await session.setValidity(Math.min(planned, longestPlannedSeconds));
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof ExpiryAmbiguous)) throw error;
    const sized = Math.max(session.validitySeconds * 2, Math.ceil((2 * error.spanMs) / 1000) + 2);
    if (session.validitySeconds >= longestPlannedSeconds) throw error;
    session.ctx.log.info(
      `undecided with a ${session.validitySeconds} s validity (${error.spanMs} ms from the first token to the ` +
        `answer judged); asking again with ${Math.min(sized, longestPlannedSeconds)} s`,
    );
    await session.setValidity(Math.min(sized, longestPlannedSeconds));
    await session.restart();
    return body();
  }
}

/** The longest validity decideInTime gives the quota client: the next clean start waits it out. */
const longestPlannedSeconds = 20;

/** Per target, the last announcement of a quota client's token beyond its configured validity: such a
 *  token outlives the session that asked for it and holds a slot in the checks after it. */
const overlong = defineFact<string>(
  "overlong-quota-token",
  "the last announcement of a quota client's token beyond its configured validity",
);

/** Validity a quota client's token announces, held to the validity the session gave the client. */
export function validityOf(session: QuotaSession, response: ApiResponse<TokenResponse>): number {
  try {
    return announcedValidity(response, session.validitySeconds, "the quota client");
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    session.ctx.facts.set(overlong, error.message);
    // The sentence as it was; the detail gains the token request and the client it concerns.
    throw new CheckFailure(error.message, {
      request: requestOf(response.request.method, response.request.url),
      record: quotaRecord(session),
      ...error.details,
    });
  }
}

/** Times one token request is asked again after a 429 with Retry-After that the wait may answer. */
const RATE_LIMIT_RETRIES = 3;

/**
 * A token request of the quota session, asked again after a 429 with Retry-After (a rate limiter: the
 * document shows no rate limit, so a target may have one) when waiting the Retry-After out lets none of the
 * tokens the session holds expire: the count a limit-exceeded refusal would judge is then the same after
 * the wait, so the answer after it decides. A refusal whose wait would let a held token expire (a quota
 * refusal's Retry-After is the time until one expires) is returned as it came and judged as before, so a
 * refusal below the quota still fails.
 */
export async function issuePastRateLimit(session: QuotaSession): Promise<ApiResponse<TokenResponse>> {
  for (let retry = 0; ; retry++) {
    const response = await session.issue();
    const retryAfter = response.status === 429 ? response.headers.get("retry-after") : null;
    if (retryAfter === null || retry >= RATE_LIMIT_RETRIES || accessTokenOf(response) !== undefined)
      return response;
    const now = session.ctx.clock.now();
    const wait = retryAfterMs(retryAfter, now);
    const expiries = [...session.held.values()].map((w) => w.earliestExpiry);
    if (expiries.some((at) => at <= now + wait)) return response;
    session.ctx.log.info(
      `token request answered 429 with Retry-After ${retryAfter}; waited ${wait} ms (no held token expires meanwhile) and asked again`,
    );
    await letTimePass(session.ctx, wait);
  }
}

/** Issues `count` tokens that must all be new and distinct; returns them. `why` names the situation. */
export async function issueDistinct(
  session: QuotaSession,
  count: number,
  seen: Set<string>,
  why: string,
): Promise<Issued[]> {
  const issued: Issued[] = [];
  for (let i = 0; i < count; i++) {
    const response = await issuePastRateLimit(session);
    const token = accessTokenOf(response);
    if (!token) {
      // In real time, tokens issued before the check (with their old validity) may still hold slots: a
      // limit-exceeded refusal then cannot be told from a quota applied too early.
      // Where the kit found the client holding no token from before the run, the refusal is the target's.
      if (
        !session.drivable &&
        !session.ctx.facts.get(noTokensFromBefore) &&
        judgeQuotaRefusal(session.ctx.target.profile, response) === undefined
      )
        inconclusive(
          {
            saw: `the quota client got ${i} of ${count} tokens before a limit-exceeded refusal (${describeResponse(response)})`,
            readings: [
              "tokens issued before the check are still active and hold slots",
              "the target refuses tokens below its quota",
            ],
            decideBy:
              "rerun when the quota client's tokens from before the run have expired (the kit cannot drive " +
              "this target's clock)",
          },
          answerDetail(response, { record: quotaRecord(session, `token request ${i + 1} of ${count}`) }),
        );
      fail(
        `${why}: token request ${i + 1} of ${count} was not granted: ${describeResponse(response)}`,
        answerDetail(response, {
          expected: `a new token for each of ${count} token requests`,
          record: quotaRecord(session, `token request ${i + 1} of ${count}`),
        }),
      );
    }
    if (seen.has(token))
      fail(
        `${why}: token request ${i + 1} returned a token issued before; expected a newly issued token ` +
          "(a repeated token is not a granted one)",
        answerDetail(response, {
          expected: "a newly issued token",
          actual: `${response.status}, a token issued before returned again`,
          record: quotaRecord(session, `token request ${i + 1} of ${count}`),
        }),
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
export async function expectNewTokens(
  session: QuotaSession,
  count: number,
  config: string,
  options: { settleOnRefusal?: boolean } = {},
): Promise<void> {
  const seen: string[] = [];
  let settled = options.settleOnRefusal !== true;
  for (let i = 1; i <= count; i++) {
    const answer = await session.issue();
    const token = accessTokenOf(answer);
    if (token === undefined) {
      const limit = judgeQuotaRefusal(session.ctx.target.profile, answer) === undefined;
      if (limit && seen.length > 0) return;
      // The caller started without a clean start: the kit's own earlier tokens may hold the slots. Once they
      // have expired, the first request is asked again.
      if (limit && !settled) {
        settled = true;
        await session.settle();
        i = 0;
        continue;
      }
      if (limit && !session.drivable && !session.ctx.facts.get(noTokensFromBefore))
        inconclusive(
          {
            saw: `with ${config}, the first token request was refused for the limit`,
            readings: [
              "tokens issued before the check still hold the slots",
              "the target refuses tokens below its quota",
            ],
            decideBy:
              "rerun when the quota client's tokens from before the run have expired (the kit cannot drive " +
              "this target's clock)",
          },
          answerDetail(answer, { record: quotaRecord(session, i) }),
        );
      fail(
        `with ${config}, expected token request ${i} to issue a new token, got ${describeResponse(answer)}`,
        answerDetail(answer, {
          expected: `a new token for token request ${i} (multi-token support on)`,
          record: quotaRecord(session, i),
        }),
      );
    }
    const again = seen.indexOf(token);
    if (again >= 0)
      fail(
        `with ${config}, token request ${i} returned the token of request ${again + 1} again: multitokenConfig ` +
          "activates multi-token support, under which every token request returns a newly issued token",
        answerDetail(answer, {
          expected: `a new token for token request ${i} (multi-token support on)`,
          actual: `${answer.status}, the token of token request ${again + 1} again`,
          record: quotaRecord(session, i),
        }),
      );
    seen.push(token);
    validityOf(session, answer);
  }
}

/** Distinct new tokens among simultaneous answers; a token answered twice, or one issued before, fails. */
export function newTokens(
  answers: ApiResponse<TokenResponse>[],
  seen: Set<string>,
  why: string,
  record?: string,
): string[] {
  const granted: string[] = [];
  for (const [index, answer] of answers.entries()) {
    const token = accessTokenOf(answer);
    if (token === undefined) continue;
    if (seen.has(token))
      fail(
        `${why}: a token came twice or was issued before; each granted request must get a new one`,
        answerDetail(answer, {
          expected: "a new token for each granted request",
          actual: `${answer.status}, a token issued before (or to another of the requests) returned again`,
          record: `${record ?? "the quota client"}, simultaneous request ${index + 1} of ${answers.length}`,
        }),
      );
    seen.add(token);
    granted.push(token);
  }
  return granted;
}

/** One token request after another until a refusal (at most max + 1): the tokens issued; more than
 *  `max` fails. Tokens held from before the check make the count smaller, never larger. */
export async function fillSequentially(
  session: QuotaSession,
  max: number,
  seen: Set<string>,
  why: string,
): Promise<number> {
  let last: ApiResponse<TokenResponse> | undefined;
  for (let issued = 0; issued <= max; issued++) {
    const response = await session.issue();
    const token = accessTokenOf(response);
    if (!token) {
      ensureAnswer(
        judgeQuotaRefusal(session.ctx.target.profile, response),
        `${why}: token request ${issued + 1} with maxActiveTokensAllowed=${max}`,
        response,
        { record: quotaRecord(session, issued + 1) },
      );
      return issued;
    }
    if (seen.has(token))
      fail(
        `${why}: token request ${issued + 1} returned a token issued before; expected a new one`,
        answerDetail(response, {
          expected: "a newly issued token, or a limit-exceeded refusal",
          actual: `${response.status}, a token issued before returned again`,
          record: quotaRecord(session, issued + 1),
        }),
      );
    seen.add(token);
    last = response;
    validityOf(session, response);
  }
  if (last)
    ensureGrantBeyond(
      session,
      last,
      max,
      `${why}: ${max + 1} token requests one after another got ${max + 1} new tokens`,
    );
  fail(
    `${why}: ${max + 1} token requests one after another got ${max + 1} new tokens; maxActiveTokensAllowed=${max}`,
    {
      expected: quotaExpected(max),
      actual: `token ${max + 1} issued (${max + 1} new tokens, one request after another)`,
      ...(last ? { request: requestOf(last.request.method, last.request.url) } : {}),
      record: quotaRecord(session, max + 1),
    },
  );
}

export async function fillQuota(session: QuotaSession, max: number): Promise<Issued[]> {
  await session.setQuota(max);
  return issueDistinct(session, max, new Set(), `multi-token on, maxActiveTokensAllowed=${max}`);
}

export async function atLimitRefusal(session: QuotaSession, max: number): Promise<ApiResponse<unknown>> {
  return session.issue().then((response) => {
    if (accessTokenOf(response)) {
      ensureGrantBeyond(
        session,
        response,
        max,
        `a token was granted with ${max} counted active at maxActiveTokensAllowed=${max}`,
      );
      fail(
        `expected a limit-exceeded refusal with ${max} active tokens and maxActiveTokensAllowed=${max}, ` +
          `but a token was issued: ${describeResponse(response)}`,
        answerDetail(response, {
          expected: quotaExpected(max),
          actual: `token ${max + 1} issued with ${max} active (${response.status})`,
          record: quotaRecord(session, `token request ${max + 1}, with ${max} active tokens`),
        }),
      );
    }
    return response;
  });
}

/** One token over the quota is refused as the profile accepts it (tolerant: any 4xx stating the limit). */
export async function expectQuotaRefusal(session: QuotaSession, max: number, why: string): Promise<void> {
  const response = await atLimitRefusal(session, max);
  ensureAnswer(judgeQuotaRefusal(session.ctx.target.profile, response), why, response, {
    record: quotaRecord(session, `token request ${max + 1}, with ${max} active tokens`),
  });
}

export async function allUsable(session: QuotaSession, tokens: Issued[], why: string): Promise<void> {
  for (const [index, { token }] of tokens.entries()) {
    const response = await session.use(token);
    const judged = judgeSuccess(response, `use of active token ${index + 1}`);
    const record = quotaRecord(session, `active token ${index + 1} of ${tokens.length}`);
    // In real time a token may have run out its validity while the kit's requests were slow.
    const window = session.held.get(token);
    const at = session.ctx.clock.now();
    if (judged !== undefined && !session.drivable && window !== undefined && window.earliestExpiry <= at)
      throw new ExpiryAmbiguous(
        at - window.sent,
        `${why}: active token ${index + 1} was refused (${describeResponse(response)}) ${at - window.sent} ms ` +
          `after it was requested, with a ${session.validitySeconds} s validity`,
        answerDetail(response, { record }),
      );
    ensureAnswer(judged, why, response, { record });
  }
}

/** Sets maxActiveTokensAllowed to `value` by `method` and returns the answer; the customer is restored by
 *  the caller. */
export async function tryQuota(
  ctx: CheckContext,
  customerId: string,
  value: unknown,
  method: CustomerMethod = "PUT",
) {
  const original = await readCustomer(ctx, "admin", customerId);
  if (typeof value === "number") explore(ctx, DIMENSION.quota, value);
  return writeCustomer(
    ctx,
    "admin",
    customerId,
    {
      ...original,
      multitokenConfig: {
        clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: value as number },
      },
    },
    method,
  );
}

/** The stored maxActiveTokensAllowed, read back without changing anything. */
export async function storedQuota(ctx: CheckContext, customerId: string): Promise<unknown> {
  const customer = await readCustomer(ctx, "admin", customerId);
  return customer.multitokenConfig?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed;
}
// ---------------------------------------------------------------- tokens from before the check
/** maxActiveTokensAllowed: "at most 200, a hard platform limit". */
export const MAX_QUOTA = MAX_ACTIVE_TOKENS_ALLOWED;

/**
 * A quota session for checks that count every active token of the quota client as their own. Where the
 * kit cannot drive the target's clock, the client may hold tokens issued before the run (with a longer
 * validity than the session gives it) that hold quota slots until they expire. Once per target it asks:
 * with maxActiveTokensAllowed=1, is one more token granted? Granted, the client held none (the probe's token
 * expires with the session's short validity). Refused for the limit, the kit asks the target which token
 * holds the slot (see decideTokensFromBefore): a token from before the run is waited out or named, and a
 * refusal with no token to explain it is a failure. (An earlier quota session may have asked already, while
 * it learned how the target switches multi-token support off: see QuotaSession.multiTokenOff.)
 */
export function withTokensOfItsOwn<T>(
  ctx: CheckContext,
  body: (session: QuotaSession) => Promise<T>,
): Promise<T> {
  return withQuotaSession(ctx, async (session) => {
    if (!session.drivable && !ctx.facts.get(noTokensFromBefore) && slotsHeldFromBefore(ctx) === 0) {
      await session.setQuota(1);
      const answer = await session.issue();
      const refused = !accessTokenOf(answer) && judgeQuotaRefusal(ctx.target.profile, answer) === undefined;
      const earlier = ctx.facts.get(overlong);
      if (refused && earlier !== undefined)
        fail(
          "the quota client still holds tokens the kit was issued earlier in this run, past the validity it " +
            `gave them (with maxActiveTokensAllowed=1 a token request was refused for the limit): ${earlier}`,
          answerDetail(answer, {
            expected: `no token active past the ${session.validitySeconds} s validity the kit gave it`,
            record: quotaRecord(session, "token request 1 with maxActiveTokensAllowed=1"),
          }),
        );
      if (refused) {
        // Held tokens from before the run, or the kit's own tokens of this run that outlive the validity it
        // gave the client (a target that ignores accessTokenValidity). A new token tells the second apart:
        // with room under the platform's limit a token request issues a new token whose validity starts at
        // issue time, so its expires_in must not exceed the session's.
        await session.setQuota(MAX_QUOTA);
        const roomy = await session.issue();
        if (accessTokenOf(roomy)) validityOf(session, roomy);
        await decideTokensFromBefore(session, answer);
      } else if (accessTokenOf(answer)) {
        validityOf(session, answer);
        ctx.facts.set(noTokensFromBefore, true);
      }
      await session.restart();
    }
    return body(session);
  });
}

/** Rounds of "show the token that holds the slot, wait it out, ask again" before a refusal that no token
 *  explains is judged: a correct target shows a token of the client while any is valid, so a second round
 *  that again shows only a token of the session's own short validity leaves no token to hold the slot. */
const showRounds = 2;

/** Seconds a check keeps for itself after waiting out a token from before the run (the check's own work). */
const afterWaitSeconds = 30;

/**
 * The quota client was refused a token for the limit under maxActiveTokensAllowed=1 in real time, with
 * every token the kit was issued expired. Either a token from before the run holds the slot (correct), or
 * the target refuses below its quota (a failure). The document tells them apart: with multi-token support
 * off, a token request returns the same token again while it is valid, and its expires_in says how long
 * it has left. So the kit switches multi-token support off and asks: a token announced to live longer than
 * the session's validity is one from before the run, waited out within the check's time limit or named
 * (inconclusive, with when to rerun); a token within the session's validity is waited out and the
 * question asked again; refused again with nothing left to hold the slot, the refusal is the failure.
 * Returns when the client holds no token from before the run (noted for the target).
 */
export async function decideTokensFromBefore(
  session: QuotaSession,
  refusal: ApiResponse<TokenResponse>,
): Promise<void> {
  const { ctx } = session;
  let last = refusal;
  const shown: string[] = [];
  for (let round = 1; round <= showRounds + 1; round++) {
    await session.multiTokenOff();
    const answer = await session.issue();
    const token = accessTokenOf(answer);
    if (!token)
      inconclusive(
        {
          saw:
            "with maxActiveTokensAllowed=1 the quota client's first token request was refused for the limit, " +
            `and with multi-token support off its token request got no token either (${describeResponse(answer)})`,
          readings: [
            "tokens from before the run hold the slot and the target does not return them with multi-token support off",
            "the target refuses tokens below the quota",
          ],
          decideBy: "rerun once the quota client's tokens from before the run have expired",
        },
        answerDetail(answer, { record: quotaRecord(session, "token request with multi-token support off") }),
      );
    const left = expiresInOf(answer);
    shown.push(`${left} s`);
    if (left > session.validitySeconds + 1) {
      const remainingMs = ctx.clock.remainingMs?.() ?? 0;
      const affordMs = remainingMs - afterWaitSeconds * 1000;
      // Active for certain to the end of the check: the known token holds one slot throughout, and the
      // check can count its own tokens above it (see countTokensFromBefore).
      const until = ctx.clock.now() + left * 1000 - VALIDITY_SKEW_MS;
      if ((left + 1) * 1000 > affordMs && until > ctx.clock.now() + remainingMs + 1000) {
        if (await countTokensFromBefore(session, token, until, left)) return;
      }
      if ((left + 1) * 1000 > affordMs) {
        const until = new Date(Date.now() + (left + 1) * 1000).toISOString();
        inconclusive(
          {
            saw:
              "with maxActiveTokensAllowed=1 the quota client's first token request was refused for the limit; " +
              `with multi-token support off the target returned a token valid for ${left} s more, longer than ` +
              `the ${session.validitySeconds} s accessTokenValidity the kit gave the client: a token issued before ` +
              `the run, which outlasts what this check can wait (${Math.round(affordMs / 1000)} s)`,
            readings: [
              "that token (and any other from before the run) holds the quota's one slot",
              "the target refuses a token below its quota",
            ],
            decideBy:
              `rerun after ${until}, when that token has expired, or give the quota client no long-lived ` +
              "tokens before the run (a client of its own for the kit: credentials.quota)",
          },
          answerDetail(last, {
            record: quotaRecord(session, "token request 1 with maxActiveTokensAllowed=1"),
          }),
        );
      }
      ctx.log.info(
        `the quota client holds a token from before the run valid for ${left} s more (shown with multi-token ` +
          "support off); waiting it out",
      );
    }
    await letTimePass(ctx, (left + 1) * 1000);
    await session.setQuota(1);
    const again = await session.issue();
    if (accessTokenOf(again)) {
      validityOf(session, again);
      ctx.facts.set(noTokensFromBefore, true);
      return;
    }
    if (judgeQuotaRefusal(ctx.target.profile, again) !== undefined) return;
    last = again;
    if (round >= showRounds && left <= session.validitySeconds + 1)
      return refusedBelowQuota(session, last, shown);
  }
  inconclusive(
    {
      saw:
        "with maxActiveTokensAllowed=1 the quota client's token request was refused for the limit again after " +
        `the kit waited out each token multi-token support off showed (${shown.join(", ")} left)`,
      readings: [
        "more tokens from before the run than the check could wait out hold the slot",
        "the target refuses a token below its quota",
      ],
      decideBy: "rerun once the quota client's tokens from before the run have expired",
    },
    answerDetail(last, { record: quotaRecord(session, "token request 1 with maxActiveTokensAllowed=1") }),
  );
}

/**
 * One token from before the run, `known`, active for certain until `until` (its announced expires_in), was
 * shown with multi-token support off. With maxActiveTokensAllowed=2 the client must then get exactly one new
 * token and be refused the next for the limit: the known token holds the other slot, and nothing else does.
 * Then it is noted for the target (tokensFromBefore), every later quota is set one slot higher, and true is
 * returned. Refused at once, more tokens from before than the one shown, or a refusal below the quota, is
 * still open (false: the caller says so). Granted twice while the known token is still accepted, the
 * client holds three active tokens under a quota of two: a failure.
 */
async function countTokensFromBefore(
  session: QuotaSession,
  known: string,
  until: number,
  left: number,
): Promise<boolean> {
  const { ctx } = session;
  await session.setQuota(2);
  const first = await session.issue();
  const own = accessTokenOf(first);
  if (!own || own === known) {
    await session.multiTokenOff();
    return false;
  }
  const second = await session.issue();
  if (accessTokenOf(second) && accessTokenOf(second) !== known) {
    // Not accepted, the token from before was not active after all: its expires_in is left to the
    // checks that judge it, and the question stays open.
    if (!(await session.use(known)).ok) {
      await session.multiTokenOff();
      return false;
    }
    fail(
      "with maxActiveTokensAllowed=2 and a token from before the run still active (shown with multi-token " +
        `support off, ${left} s left, and accepted after), the quota client got two new tokens`,
      answerDetail(second, {
        expected: "one new token, then a limit-exceeded refusal: the token from before holds one slot",
        actual: "a second new token: three active tokens under a quota of two",
        record: quotaRecord(session, "token request 2 with maxActiveTokensAllowed=2"),
      }),
    );
  }
  ensureAnswer(
    judgeQuotaRefusal(ctx.target.profile, second),
    "with maxActiveTokensAllowed=2, one new token and one token from before the run active",
    second,
    { record: quotaRecord(session, "token request 2 with maxActiveTokensAllowed=2") },
  );
  ctx.facts.set(tokensFromBefore, { count: 1, until });
  ctx.log.info(
    `the quota client holds one token from before the run, active for ${left} s more (shown with multi-token ` +
      "support off); every quota of the check is set one slot higher",
  );
  return true;
}

function refusedBelowQuota(session: QuotaSession, last: ApiResponse<TokenResponse>, shown: string[]): never {
  fail(
    "with maxActiveTokensAllowed=1 the quota client's first token request was refused for the limit, with " +
      "no token left to hold the slot: every token the kit was issued had expired, and with multi-token " +
      `support off the target showed only tokens within the session's ${session.validitySeconds} s validity ` +
      `(${shown.join(", ")} left), each waited out before asking again`,
    answerDetail(last, {
      expected: "a new token: no active token of the client counts toward maxActiveTokensAllowed=1",
      record: quotaRecord(session, "token request 1 with maxActiveTokensAllowed=1"),
    }),
  );
}

/** Whether `took` ms of requests outlast tokens of `shortest` seconds for certain (1 s kept for a rounded
 *  expires_in). */
export function outlastsValidity(took: number, shortest: number): boolean {
  return Number.isFinite(shortest) && took >= (shortest - 1) * 1000;
}

/** Undecided when a burst of requests from `started` to now outlasted the certain validity of its tokens. */
export function ensureInsideValidity(
  ctx: CheckContext,
  started: number,
  shortest: number,
  what: string,
): void {
  const took = ctx.clock.now() - started;
  if (outlastsValidity(took, shortest))
    inconclusive({
      saw: `${what} took ${took} ms, longer than the ${shortest} s validity of its tokens allows for certain`,
      readings: [
        "the first tokens had expired by the end, and what looks like a quota effect is an expiry",
        "the quota was applied wrongly",
      ],
      decideBy:
        "a faster link to the target (fewer hops, no rate limit on the token endpoint) or a target whose " +
        "clients take a longer accessTokenValidity; the kit cannot drive this target's clock",
    });
}

export const quotaNeeds = { roles: ["admin" as const, "quota" as const] };

/** The run facts the token-quota checks read and write: a quota session's, and the overlong token. */
export const QUOTA_FACTS: readonly Fact<unknown>[] = [...QUOTA_SESSION_FACTS, overlong];

/** What every token-quota check declares: quota safety, and 429s judged by the check itself (a quota
 *  refusal may be a 429: the transport never waits them out). Each adds its own expectedWaitSeconds: the
 *  seconds it is expected to wait on a live target (npm run bench:live), which balance the quota lanes. */
export const QUOTA_CHECK = { judgesRateLimits: true, safety: "quota" } satisfies Partial<CheckDefinition>;

/** ... and a check that asks the token endpoint for the quota client's tokens itself: that role, the quota
 *  run facts, and the admin and quota credentials it needs. */
export const QUOTA_TOKEN_CHECK = {
  ...QUOTA_CHECK,
  issuesTokensFor: ["quota"],
  facts: QUOTA_FACTS,
  needs: quotaNeeds,
} satisfies Partial<CheckDefinition>;
