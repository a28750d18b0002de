// The setting of every token-quota check: the quota client's customer with multi-token support switched
// as the check needs, the quota client's tokens all expired at the start, everything restored at the end.

import {
  type CheckContext,
  type CredentialRole,
  defineFact,
  depthOf,
  type Fact,
  fail,
} from "../../src/check/index.ts";
import {
  type ApiResponse,
  accessTokenOf,
  type Customer,
  describeResponse,
  multiTokenConfig,
  type TokenResponse,
} from "../../src/client/index.ts";
import { putCustomerOrFail, withCustomerRestored, withoutMultiToken } from "./customer-restore.ts";
import { CUSTOMER_METHODS, type CustomerMethod, writeCustomer } from "./quota-methods.ts";
import { clientOf, credentialOf, quotaCustomerIdOf } from "./target-client.ts";
import {
  canDriveClock,
  defaultValiditySeconds,
  expireEverythingMs,
  letTimePass,
  VALIDITY_SKEW_MS,
} from "./token-lifetime.ts";

/** accessTokenValidity the kit gives the quota client: in real time, and where it drives the clock. */
export const shortValiditySeconds = 2;
export const drivenValiditySeconds = 60;

export interface QuotaSession {
  ctx: CheckContext;
  customerId: string;
  original: Customer;
  /** False where the kit must sleep instead of driving the target's clock. */
  drivable: boolean;
  /** Writes the customer with maxActiveTokensAllowed by `method` (unless given: PUT, at "deep" PUT and POST
   *  in turn); fails unless accepted. */
  setQuota(maxActiveTokensAllowed: number, method?: CustomerMethod): Promise<void>;
  /** Writes the customer with `multitokenConfig` by `method` (as setQuota) and returns the answer, for the
   *  check to judge. */
  putMultiTokenConfig(
    multitokenConfig: Customer["multitokenConfig"],
    method?: CustomerMethod,
  ): Promise<ApiResponse<Customer>>;
  multiTokenOff(): Promise<void>;
  /** Switches multi-token support off with no token request of its own (a check that counts every token
   *  the quota client is issued): a PUT without multitokenConfig, and with multitokenConfig null where the
   *  kit has not seen the first one do it (best effort: the answer is not judged). */
  switchOffQuietly(): Promise<void>;
  /** accessTokenValidity of the quota client during the session. */
  validitySeconds: number;
  /** Gives the quota client another accessTokenValidity for the rest of the session (real-time checks
   *  that need tokens to outlive a burst of requests); restart() then waits out the longest one used. */
  setValidity(seconds: number): Promise<void>;
  /** Multi-token off, every token of the quota client expired, a fresh admin token: a clean start. */
  restart(): Promise<void>;
  /** Waits until every token of the quota client has expired, the setting left as it is: after restart()'s
   *  wait where the clock is driven; in real time only as long as the noted tokens need. */
  settle(): Promise<void>;
  /** Lets `seconds` pass on the target. */
  pass(seconds: number): Promise<void>;
  issue(): Promise<ApiResponse<TokenResponse>>;
  /** A data request (one lookup) with the token. */
  use(token: string): Promise<ApiResponse<unknown>>;
  /** The tokens issued to the quota client while the kit had multi-token support on, since the last clean
   *  start or switch-off, each with the window of its expiry on the kit's clock (see TokenWindow). */
  held: Map<string, TokenWindow>;
  /** The longest round trip of the session's own requests so far (ms, 0 where the clock is driven): what a
   *  real-time check plans its tokens' validity from. */
  roundTripMs(): number;
}

/**
 * Where a token's expiry lies on the kit's clock, from the request that issued it: it lives the validity it
 * was issued with from its issue time, which lies between `sent` and `received`, give or take the rounding
 * a correct target may take (VALIDITY_SKEW_MS). Active for certain while a request is answered before
 * `earliestExpiry`; expired for certain for one sent after `latestExpiry`; in between, either.
 */
export interface TokenWindow {
  sent: number;
  received: number;
  earliestExpiry: number;
  latestExpiry: number;
}

/** The expiry window of a token issued between `sent` and `received` under `validitySeconds`, shortened
 *  to the expires_in the answer announces where that is shorter. */
export function tokenWindow(
  sent: number,
  received: number,
  validitySeconds: number,
  response?: ApiResponse<TokenResponse>,
): TokenWindow {
  const announced = response?.data?.expires_in;
  const shortest =
    typeof announced === "number" && Number.isFinite(announced) && announced > 0
      ? Math.min(announced, validitySeconds)
      : validitySeconds;
  return {
    sent,
    received,
    earliestExpiry: sent + shortest * 1000 - VALIDITY_SKEW_MS,
    latestExpiry: received + validitySeconds * 1000 + VALIDITY_SKEW_MS,
  };
}

/** The answer to a check's last upsert of a clientId alone (a read of the client), for its next upsert
 *  only: a change right after it journals the same values, so it does not read them again. */
const lastRead = new WeakMap<CheckContext, { client: string; answer: Record<string, unknown> | undefined }>();

/** Upserts the client of `role` in `customerId` with `fields` (nothing else changes under upsert
 *  semantics); returns the stored accessTokenValidity the answer shows, if it shows one. The first change
 *  of a client in a check journals its previous values first (read with an upsert of the clientId alone,
 *  unless the check's previous upsert was that read); an upsert that puts those values back settles the
 *  journal entry. */
export async function upsertClient(
  ctx: CheckContext,
  customerId: string,
  role: CredentialRole,
  fields: Record<string, unknown>,
): Promise<number | undefined> {
  const clientId = credentialOf(ctx, role).clientId;
  const send = async (body: Record<string, unknown>) => {
    const response = await clientOf(ctx).putClients(await ctx.token("admin"), customerId, [
      { clientId, ...body },
    ]);
    if (!response.ok)
      fail(`expected PUT .../clients to upsert client ${clientId}, got ${describeResponse(response)}`);
    return Array.isArray(response.body)
      ? (response.body as Record<string, unknown>[]).find((c) => c.clientId === clientId)
      : undefined;
  };
  const keys = Object.keys(fields);
  const client = `${customerId}\n${clientId}`;
  const read = lastRead.get(ctx);
  lastRead.delete(ctx);
  const journalled = () =>
    ctx.journal
      .pending()
      .filter(
        (e) =>
          e.change.kind === "client" && e.change.customerId === customerId && e.change.clientId === clientId,
      );
  if (keys.length > 0 && journalled().length === 0) {
    const before = (read?.client === client ? read.answer : await send({})) ?? {};
    const restore: Record<string, unknown> = {};
    for (const key of keys) if (before[key] !== undefined) restore[key] = before[key];
    // The interface cannot read a client: where the answer does not show the validity, the documented
    // default is what the kit puts back (as the checks themselves do).
    if (keys.includes("accessTokenValidity") && restore.accessTokenValidity === undefined)
      restore.accessTokenValidity = defaultValiditySeconds;
    ctx.journal.open({ kind: "client", customerId, clientId, role: "admin", restore });
  }
  const stored = await send(fields);
  if (keys.length === 0) lastRead.set(ctx, { client, answer: stored });
  for (const entry of journalled()) {
    const { restore } = entry.change;
    if (Object.keys(restore).every((key) => key in fields && fields[key] === restore[key]))
      ctx.journal.settle(entry.id);
  }
  return typeof stored?.accessTokenValidity === "number" ? stored.accessTokenValidity : undefined;
}

/** Upserts the quota client with `fields`; returns the stored accessTokenValidity the answer shows. */
export function upsertQuotaClient(
  ctx: CheckContext,
  customerId: string,
  fields: Record<string, unknown>,
): Promise<number | undefined> {
  return upsertClient(ctx, customerId, "quota", fields);
}

/**
 * Milliseconds one request takes on this target, rate limit included: the mean of a few one-lookup reads
 * with the admin's token (they issue no token, so nothing starts to count toward a quota). Real-time checks
 * size the validity of their tokens by it, so that a burst of token requests ends well inside it.
 */
export async function measureRequestMs(session: QuotaSession, requests = 4): Promise<number> {
  const token = await session.ctx.token("admin");
  const started = session.ctx.clock.now();
  for (let i = 0; i < requests; i++) await session.use(token);
  return (session.ctx.clock.now() - started) / requests;
}

/** Milliseconds per request when `width` one-lookup reads are sent at once (twice): the pace of a burst
 *  sent in waves of `width`, the kit's rate limit and the link's round trip included. */
export async function measureWaveMs(session: QuotaSession, width: number, waves = 2): Promise<number> {
  const token = await session.ctx.token("admin");
  const started = session.ctx.clock.now();
  for (let i = 0; i < waves; i++) await Promise.all(Array.from({ length: width }, () => session.use(token)));
  return (session.ctx.clock.now() - started) / (waves * width);
}

/** An accessTokenValidity (seconds) that `requests` token requests of `requestMs` each fill to two thirds
 *  at most, with 1 s to spare (the margin real-time checks allow for a rounded expires_in); never below the
 *  session's short validity. */
export function validityForBurst(requestMs: number, requests: number): number {
  return Math.max(shortValiditySeconds, Math.ceil((requests * requestMs * 1.5) / 1000 + 1));
}

/** Run fact: where the kit drives the clock, tokens from before it shortened the quota client's validity
 *  were let expire once. */
const clearedOnce = defineFact<true>(
  "quota-client-cleared",
  "tokens of the quota client from before the kit shortened its validity were let expire",
);

/** The quota the kit sets where it switches multi-token support on only to learn how the target switches
 *  it off: the platform's limit, so that no token request in between is refused for it. */
const learningQuota = 200;

/**
 * Per target, in real time: when every token the kit was issued for the quota client has expired for
 * certain, on the kit's clock: the latest answer to a token request plus the validity the client had then,
 * plus the 1 s a rounded expires_in may add. A clean start waits until then rather than a whole validity
 * from its own start, so one wait serves every session after it: a session that starts once the tokens of
 * the last one expired (its check waited them out) starts at once. Every quota-client token request of
 * the suites notes itself here (noteQuotaToken), answered or not.
 */
export const quotaTokensExpire = defineFact<number>(
  "quota-tokens-expire",
  "when every token the kit was issued for the quota client has expired for certain (the kit's clock, ms)",
);

/** Targets on which the quota client was found holding no token from before the run's quota checks: with
 *  maxActiveTokensAllowed=1 and every token the kit was issued expired, a token request was granted. */
export const noTokensFromBefore = defineFact<true>(
  "no-quota-tokens-from-before",
  "the quota client holds no token from before the run's quota checks",
);

/**
 * Per target, in real time: the quota client holds exactly `count` tokens from before the run (shown with
 * multi-token support off), each active for certain until `until` on the kit's clock (their announced
 * expires_in, less the skew a rounded one may take). While they are, a quota session sets every quota that
 * many slots higher, so that the check's own tokens get the quota it names (see decideTokensFromBefore).
 */
export const tokensFromBefore = defineFact<{ count: number; until: number }>(
  "quota-tokens-from-before",
  "tokens of the quota client from before the run, each active for certain until a known time",
);

/** The slots tokens from before the run hold for certain to the end of the check (0 where none is known). */
export function slotsHeldFromBefore(ctx: CheckContext): number {
  const known = ctx.facts.get(tokensFromBefore);
  // Certain through the rest of the check: the same number at every instant of it.
  const end = ctx.clock.now() + (ctx.clock.remainingMs?.() ?? 0);
  return known !== undefined && known.until > end ? known.count : 0;
}

/** True in real time once every token the kit noted for the quota client has expired for certain. */
function noOwnTokensLeft(ctx: CheckContext): boolean {
  const at = ctx.facts.get(quotaTokensExpire);
  return at !== undefined && at <= ctx.clock.now();
}

/** True in real time before the kit noted any token request of the quota client on this target: an
 *  active token of the client then is one from before the run's quota sessions. */
function noneIssuedYet(ctx: CheckContext): boolean {
  return ctx.facts.get(quotaTokensExpire) === undefined;
}

/** Notes a token request of the quota client just answered (or failed), under `validitySeconds`. */
export function noteQuotaToken(ctx: CheckContext, validitySeconds: number): void {
  if (canDriveClock(ctx)) return;
  const at = ctx.clock.now() + (validitySeconds + 1) * 1000;
  ctx.facts.set(quotaTokensExpire, Math.max(ctx.facts.get(quotaTokensExpire) ?? 0, at));
}

/**
 * Lets every token of the quota client expire. Where the clock is driven, and in real time before the kit
 * has seen any token request of the quota client on this target (tokens of an earlier run may be about),
 * that is `longestSeconds` + 1 s from now; otherwise until the noted expiry, which may have passed already.
 */
async function letQuotaTokensExpire(ctx: CheckContext, longestSeconds: number): Promise<void> {
  const at = canDriveClock(ctx) ? undefined : ctx.facts.get(quotaTokensExpire);
  if (at === undefined) {
    await letTimePass(ctx, (longestSeconds + 1) * 1000);
    if (!canDriveClock(ctx)) ctx.facts.set(quotaTokensExpire, ctx.clock.now());
    return;
  }
  const ms = at - ctx.clock.now();
  if (ms > 0) await letTimePass(ctx, ms);
}

/** True when two token requests of the quota client in a row do not return one and the same token. */
async function multiTokenLooksOn(ctx: CheckContext, validitySeconds: number): Promise<boolean> {
  const client = clientOf(ctx);
  const credential = credentialOf(ctx, "quota");
  const first = await client.token(credential).finally(() => noteQuotaToken(ctx, validitySeconds));
  const second = await client.token(credential).finally(() => noteQuotaToken(ctx, validitySeconds));
  if (!first.ok || !second.ok) return true;
  return accessTokenOf(first) !== accessTokenOf(second);
}

/**
 * How a target switches multi-token support off, once the kit has seen it: "replace" when a PUT without
 * multitokenConfig switched it off from on, "null" when it took multitokenConfig null as well. Known, the
 * kit switches it off without asking with two token requests: in real time their tokens would be one more
 * wait, and on any clock they are two requests per clean start.
 */
const switchOffWay = defineFact<"replace" | "null">(
  "multi-token-switch-off",
  'how the target switches multi-token support off: "replace" (a PUT without multitokenConfig) or "null"',
);

/**
 * Switches multi-token support off the ways a correct target may take it. The document shows neither the
 * difference between PUT and POST nor how multitokenConfig is removed: the kit's choice is a PUT that
 * replaces the customer (CONFIG-CUSTOMER-03), so a PUT without multitokenConfig; a target that merges on
 * PUT keeps the old setting, so where the quota client still gets a new token per request, the kit also
 * PUTs multitokenConfig null (best effort: a refusal is left to the check's own assertions to judge).
 * `wasOn`: multi-token support was on for certain before (the kit set a quota); only then does a plain PUT
 * that leaves it off show how the target takes it.
 */
async function switchMultiTokenOff(
  ctx: CheckContext,
  customerId: string,
  original: Customer,
  wasOn: boolean,
  validitySeconds: number,
): Promise<void> {
  const base = withoutMultiToken(original);
  await putCustomerOrFail(ctx, "admin", customerId, base, "switching multi-token off");
  const known = ctx.facts.get(switchOffWay);
  if (known === "replace") return;
  if (known === undefined) {
    const on = await multiTokenLooksOn(ctx, validitySeconds);
    if (on || wasOn) ctx.facts.set(switchOffWay, on ? "null" : "replace");
    if (!on) return;
  }
  const response = await clientOf(ctx).putCustomer(await ctx.token("admin"), customerId, {
    ...base,
    multitokenConfig: null,
  });
  ctx.log.debug(
    `multi-token support looked on after a PUT without multitokenConfig; PUT with multitokenConfig null: ${describeResponse(response)}`,
  );
}

/**
 * Runs `body` in a quota session. The quota client gets a short accessTokenValidity for the session
 * (60 s where the kit drives the clock, 2 s in real time), so that "every token has expired" is a short
 * wait; its previous validity and the customer are put back afterwards. The admin's token is renewed only
 * while multi-token support is off, and lives through the session, so that a target which mishandles
 * quotas cannot lock the kit out of restoring the customer.
 */
export async function withQuotaSession<T>(
  ctx: CheckContext,
  body: (session: QuotaSession) => Promise<T>,
): Promise<T> {
  const customerId = quotaCustomerIdOf(ctx);
  const client = clientOf(ctx);
  const credential = credentialOf(ctx, "quota");
  const drivable = canDriveClock(ctx);
  const validity = drivable ? drivenValiditySeconds : shortValiditySeconds;
  // The longest validity the quota client had during the session: restart() waits it out.
  let longest = validity;
  // Multi-token support on for certain (the customer had it, or the kit set it): see switchMultiTokenOff.
  let on = false;
  // Where a check names no method: PUT at the default depth; at "deep" PUT and POST in turn, so that every
  // quota check sets its quota both ways a customer is written.
  let writes = 0;
  // The longest round trip of the session's requests (real time only), and the tokens it holds.
  let roundTrip = 0;
  const held = new Map<string, TokenWindow>();
  const timed = async <R>(
    request: () => Promise<R>,
  ): Promise<{ answer: R; sent: number; received: number }> => {
    const sent = ctx.clock.now();
    const answer = await request();
    const received = ctx.clock.now();
    if (!drivable) roundTrip = Math.max(roundTrip, received - sent);
    return { answer, sent, received };
  };
  const nextMethod = (): CustomerMethod =>
    depthOf(ctx) === "deep" ? (CUSTOMER_METHODS[writes++ % 2] as CustomerMethod) : "PUT";
  return withCustomerRestored(ctx, "admin", customerId, async (original) => {
    on = original.multitokenConfig !== undefined && original.multitokenConfig !== null;
    const session: QuotaSession = {
      ctx,
      customerId,
      original,
      drivable,
      validitySeconds: validity,
      async setQuota(max, method = nextMethod()) {
        // Slots held by tokens from before the run are added, within the platform's limit.
        const configured = Math.min(learningQuota, max + slotsHeldFromBefore(ctx));
        const customer = { ...original, multitokenConfig: multiTokenConfig(configured) };
        const response = await writeCustomer(ctx, "admin", customerId, customer, method);
        if (!response.ok)
          fail(
            `setting maxActiveTokensAllowed=${configured}: expected ${method} of customer ${customerId} to succeed, ` +
              `got ${describeResponse(response)}`,
          );
        on = true;
      },
      async putMultiTokenConfig(multitokenConfig, method = nextMethod()) {
        const customer = { ...original, multitokenConfig };
        const response = await writeCustomer(ctx, "admin", customerId, customer, method);
        if (response.ok) on = true;
        return response;
      },
      async switchOffQuietly() {
        const base = withoutMultiToken(original);
        await putCustomerOrFail(ctx, "admin", customerId, base, "switching multi-token off");
        if (ctx.facts.get(switchOffWay) !== "replace")
          await client.putCustomer(await ctx.token("admin"), customerId, { ...base, multitokenConfig: null });
        on = false;
        held.clear();
      },
      async multiTokenOff() {
        // The kit learns how the target switches multi-token support off once, from on: the two token
        // requests that tell it are not repeated (in real time each would be one more wait; see switchOffWay).
        // Where every token the kit was issued has expired, or it was issued none yet on this target (the
        // first clean start, whose wait is paid anyway), the same wait also serves the question whether
        // the client holds tokens from before the run: with a quota of 1, is a token granted? (Refused, the
        // question stays open and withTokensOfItsOwn asks it again once the kit's own tokens expired.)
        if (!drivable && !on && ctx.facts.get(switchOffWay) === undefined) {
          if (
            !ctx.facts.get(noTokensFromBefore) &&
            slotsHeldFromBefore(ctx) === 0 &&
            (noOwnTokensLeft(ctx) || noneIssuedYet(ctx))
          ) {
            await session.setQuota(1);
            const answer = await session.issue();
            // A token announced to outlive the session's validity is left to the checks to judge.
            const announced = answer.data?.expires_in;
            const overlong = typeof announced === "number" && announced > session.validitySeconds + 1;
            if (accessTokenOf(answer) && !overlong) ctx.facts.set(noTokensFromBefore, true);
          } else await session.setQuota(learningQuota);
        }
        await switchMultiTokenOff(ctx, customerId, original, on, session.validitySeconds);
        on = false;
        held.clear();
      },
      async setValidity(seconds) {
        await upsertQuotaClient(ctx, customerId, { accessTokenValidity: seconds });
        session.validitySeconds = seconds;
        longest = Math.max(longest, seconds);
      },
      async restart() {
        await session.multiTokenOff();
        await letQuotaTokensExpire(ctx, longest);
        ctx.resetTokens();
        await ctx.token("admin");
      },
      async settle() {
        await letQuotaTokensExpire(ctx, longest);
      },
      async pass(seconds) {
        await letTimePass(ctx, seconds * 1000);
      },
      async issue() {
        const validity = session.validitySeconds;
        const { answer, sent, received } = await timed(() => client.token(credential)).finally(() =>
          noteQuotaToken(ctx, validity),
        );
        const token = accessTokenOf(answer);
        if (on && token !== undefined && !held.has(token))
          held.set(token, tokenWindow(sent, received, validity, answer));
        return answer;
      },
      use: async (token) =>
        (
          await timed(() =>
            client.scanFirst(token, { kind: "lookups", tenantId: ctx.target.tenant }, { limit: 1 }),
          )
        ).answer,
      held,
      roundTripMs: () => roundTrip,
    };
    // Tokens from before the kit shortened the validity may live long: where the clock can be driven,
    // move past them at every session's start (switching multi-token support off the first time), so that
    // no session counts tokens another check left, the quota client's or another client's of the customer
    // (whatever ran before it: issue 43); in real time the checks detect them and skip.
    if (drivable) {
      if (!ctx.facts.get(clearedOnce)) await session.multiTokenOff();
      await letTimePass(ctx, expireEverythingMs);
      ctx.facts.set(clearedOnce, true);
    }
    // The interface cannot read a client; an upsert of the clientId alone shows its stored validity where
    // the target answers the stored client (else the documented default is put back).
    const previous =
      (await timed(() => upsertQuotaClient(ctx, customerId, {}))).answer ?? defaultValiditySeconds;
    await timed(() => upsertQuotaClient(ctx, customerId, { accessTokenValidity: validity }));
    try {
      await session.restart();
      return await body(session);
    } finally {
      await upsertQuotaClient(ctx, customerId, { accessTokenValidity: previous });
    }
  });
}

/** The run facts a quota session reads and writes: every check that opens one declares them. */
export const QUOTA_SESSION_FACTS: readonly Fact<unknown>[] = [
  clearedOnce,
  quotaTokensExpire,
  noTokensFromBefore,
  tokensFromBefore,
  switchOffWay,
];
