// What the token-quota checks share: the quota the seed picks, issuing and counting the quota client's
// tokens against a quota, reading the stored quota, and a session that holds no token from before the check.
import { type CheckContext, CheckFailure, fail, requestOf, skip } from "../../src/check/index.ts";
import {
  type ApiResponse,
  accessTokenOf,
  describeResponse,
  type TokenResponse,
} from "../../src/client/index.ts";
import { MAX_ACTIVE_TOKENS_ALLOWED } from "../../src/contract/index.ts";
import { answerDetail, clientRecord, ensureAnswer } from "./answer-detail.ts";
import { readCustomer } from "./customer-restore.ts";
import { noTokensFromBefore, type QuotaSession, withQuotaSession } from "./quota-session.ts";
import { judgeQuotaRefusal, judgeSuccess } from "./response-judges.ts";
import { clientOf } from "./target-client.ts";
import { announcedValidity } from "./token-lifetime.ts";

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

/** Per target, the last announcement of a quota client's token beyond its configured validity: such a
 *  token outlives the session that asked for it and holds a slot in the checks after it. */
const overlong = new WeakMap<object, string>();

/** Validity a quota client's token announces, held to the validity the session gave the client. */
export function validityOf(session: QuotaSession, response: ApiResponse<TokenResponse>): number {
  try {
    return announcedValidity(response, session.validitySeconds, "the quota client");
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    overlong.set(session.ctx.target, error.message);
    // The sentence as it was; the detail gains the token request and the client it concerns.
    throw new CheckFailure(error.message, {
      request: requestOf(response.request.method, response.request.url),
      record: quotaRecord(session),
      ...error.details,
    });
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
      if (limit && !session.drivable)
        skip(
          `with ${config}, the first token request was refused for the limit; tokens issued before the ` +
            "check may still hold the slots (the kit cannot drive this target's clock); rerun when they have expired",
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
    if (accessTokenOf(response))
      fail(
        `expected a limit-exceeded refusal with ${max} active tokens and maxActiveTokensAllowed=${max}, ` +
          `but a token was issued: ${describeResponse(response)}`,
        answerDetail(response, {
          expected: quotaExpected(max),
          actual: `token ${max + 1} issued with ${max} active (${response.status})`,
          record: quotaRecord(session, `token request ${max + 1}, with ${max} active tokens`),
        }),
      );
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
    ensureAnswer(judgeSuccess(response, `use of active token ${index + 1}`), why, response, {
      record: quotaRecord(session, `active token ${index + 1} of ${tokens.length}`),
    });
  }
}

/** Sets maxActiveTokensAllowed to `value` and returns the answer; the customer is restored by the caller. */
export async function tryQuota(ctx: CheckContext, customerId: string, value: unknown) {
  const original = await readCustomer(ctx, "admin", customerId);
  return clientOf(ctx).putCustomer(await ctx.token("admin"), customerId, {
    ...original,
    multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: value } },
  });
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
 * validity than the session gives it) that hold quota slots until they expire, and the kit cannot wait
 * them out. Once per target it asks: with maxActiveTokensAllowed=1, is one more token granted? Granted,
 * the client held none (the probe's token expires with the session's short validity); refused for the
 * limit, it holds some, and the check skips rather than judge a correct target by slots it cannot see.
 * (An earlier quota session may have asked already, while it learned how the target switches multi-token
 * support off: see QuotaSession.multiTokenOff.)
 */
export function withTokensOfItsOwn<T>(
  ctx: CheckContext,
  body: (session: QuotaSession) => Promise<T>,
): Promise<T> {
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
          answerDetail(answer, {
            expected: `no token active past the ${session.validitySeconds} s validity the kit gave it`,
            record: quotaRecord(session, "token request 1 with maxActiveTokensAllowed=1"),
          }),
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

/** Skips when a burst of requests from `started` to now outlasted the certain validity of its tokens. */
export function ensureInsideValidity(
  ctx: CheckContext,
  started: number,
  shortest: number,
  what: string,
): void {
  const took = ctx.clock.now() - started;
  if (Number.isFinite(shortest) && took >= (shortest - 1) * 1000)
    skip(
      `${what} took ${took} ms, longer than the ${shortest} s validity of its tokens allows for certain; ` +
        "the target answers too slowly for the kit to tell an expiry from a quota effect (its clock cannot be driven)",
    );
}

export const quotaNeeds = { roles: ["admin" as const, "quota" as const] };
