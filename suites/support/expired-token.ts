// Expired access tokens ("time reaches end of validity ... use of the token yields an expired-token
// error"): made where the target's clock can be driven by letting it pass, in real time by waiting out a
// short validity of the quota client once per run and sharing that token.
import { type CheckContext, type CredentialRole, defineFact, inconclusive } from "../../src/check/index.ts";
import { multiTokenConfig } from "../../src/client/index.ts";
import { clientRecord } from "./answer-detail.ts";
import { putCustomerOrFail, withCustomerRestored } from "./customer-restore.ts";
import { noteQuotaToken, shortValiditySeconds, upsertQuotaClient } from "./quota-session.ts";
import { quotaCustomerIdOf } from "./target-client.ts";
import { canDriveClock, defaultValiditySeconds, issueToken, letTimePass } from "./token-lifetime.ts";

export interface ExpiredToken {
  /** Whose token it was. */
  role: CredentialRole;
  token: string;
}

/** Longest wait for a token to expire that the real-time path accepts (a token issued before the check). */
const longestRealTimeWaitSeconds = 10;

/** Per target, in real time: a token of the quota client whose validity the kit waited out. An
 *  expired token stays expired, so the next check that needs one sends it again at once instead of waiting
 *  out another: auth/expired-token-refused and auth/expired-token-401 share one wait. */
export const expiredQuotaToken = defineFact<string>(
  "expired-quota-token",
  "a token of the quota client whose validity the kit waited out",
);

/** Roles whose tokens expire on a drivable clock: every role a target names of the three the document's
 *  role table has (one clock advance expires them all). */
const DRIVEN_ROLES: readonly CredentialRole[] = ["viewer", "editor", "admin"];

/** The roles whose tokens the expired-token checks ask the token endpoint for. */
export const expiredTokenIssuers: CredentialRole[] = [...DRIVEN_ROLES, "quota"];

/** The viewer's token where the clock can be driven; in real time the quota client's, reconfigured by the
 *  admin. */
export const expiredTokenNeeds = { roles: ["viewer" as const, "admin" as const, "quota" as const] };

/** The client of an expired token, as a failure's record names it. */
export function expiredTokenRecord(ctx: CheckContext, role: CredentialRole): string {
  return clientRecord(ctx, role, "its token, used after it expired");
}

/**
 * Calls `use` with expired tokens. Where the clock can be driven: one token of each role the target names,
 * expired by one advance of the clock. In real time: the quota client's token, waited out once per run
 * (the run fact); `use` runs before the client's validity is restored.
 */
export async function withExpiredTokens(
  ctx: CheckContext,
  use: (tokens: ExpiredToken[]) => Promise<void>,
): Promise<void> {
  if (!canDriveClock(ctx)) return withExpiredQuotaToken(ctx, (token) => use([{ role: "quota", token }]));
  const roles = DRIVEN_ROLES.filter((role) => ctx.target.credentials[role] !== undefined);
  const issued = [];
  for (const role of roles) issued.push({ role, ...(await issueToken(ctx, role)) });
  await letTimePass(ctx, (Math.max(...issued.map((i) => i.expiresIn)) + 1) * 1000);
  await use(issued.map(({ role, token }) => ({ role, token })));
}

/** The quota the kit sets for the one token request it makes with multi-token support on: the platform's
 *  limit, so that the quota client's tokens from before never decline it. */
const freshTokenQuota = 200;

/**
 * Where the target's clock cannot be driven, an expired token takes a short accessTokenValidity: the quota
 * client (the one client checks may reconfigure; the viewer's token is in use for an hour) gets the quota
 * session's short validity through PUT .../clients for the time of the check, then its previous one back.
 * With multi-token support off, a token request rightly returns a token still valid from before (issued
 * earlier in the run, or before it, under the longer validity): the check then makes the fresh token state
 * it needs itself, with multi-token support switched on for one token request and back, rather than rely
 * on the order of the checks (issue 43). Only a fresh token that still outlives a short wait leaves the
 * check undecided.
 */
async function withExpiredQuotaToken(
  ctx: CheckContext,
  use: (token: string) => Promise<void>,
): Promise<void> {
  const expired = ctx.facts.get(expiredQuotaToken);
  if (expired !== undefined) return use(expired);
  const customerId = quotaCustomerIdOf(ctx);
  const previous = (await upsertQuotaClient(ctx, customerId, {})) ?? defaultValiditySeconds;
  await upsertQuotaClient(ctx, customerId, { accessTokenValidity: shortValiditySeconds });
  try {
    const request = () =>
      // Noted for the quota sessions, which wait for the quota client's tokens to expire (see noteQuotaToken).
      issueToken(ctx, "quota").finally(() => noteQuotaToken(ctx, shortValiditySeconds));
    let issued = await request();
    if (issued.expiresIn > longestRealTimeWaitSeconds) {
      ctx.log.info(
        `the quota client holds a token valid ${issued.expiresIn} s more (multi-token support off returns it): ` +
          "one token request with multi-token support on for the check, then the customer as it was",
      );
      issued = await withCustomerRestored(ctx, "admin", customerId, async (original) => {
        const on = { ...original, multitokenConfig: multiTokenConfig(freshTokenQuota) };
        await putCustomerOrFail(
          ctx,
          "admin",
          customerId,
          on,
          "switching multi-token support on for one token",
        );
        return request();
      });
    }
    if (issued.expiresIn > longestRealTimeWaitSeconds)
      inconclusive({
        saw:
          `the quota client's token request (accessTokenValidity ${shortValiditySeconds} s, multi-token ` +
          `support on) answered a token valid for ${issued.expiresIn} s more, longer than the check can wait ` +
          "for it to expire",
        readings: [
          "the validity was not applied (token-quota/validity-from-client-configuration judges that)",
          "multi-token support was not switched on (the token-quota checks judge that)",
        ],
        decideBy: `rerun after ${issued.expiresIn} s, when that token has expired (the target's clock cannot be driven)`,
      });
    noteQuotaToken(ctx, issued.expiresIn);
    await letTimePass(ctx, (issued.expiresIn + 1) * 1000);
    ctx.facts.set(expiredQuotaToken, issued.token);
    await use(issued.token);
  } finally {
    await upsertQuotaClient(ctx, customerId, { accessTokenValidity: previous });
  }
}
