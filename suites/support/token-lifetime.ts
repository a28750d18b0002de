// Token validity as checks see it: issuing a token directly (not through the runner's cache), and letting
// time pass on the target, by driving its clock where the kit can, by sleeping otherwise.

import { type CheckContext, type CredentialRole, fail } from "../../src/check/index.ts";
import {
  type ApiResponse,
  accessTokenOf,
  describeResponse,
  type TokenResponse,
} from "../../src/client/index.ts";
import { clientOf, credentialOf } from "./target-client.ts";

/** Validity the kit assumes when a token answer carries no expires_in (TOKEN-VALIDITY-03). */
export const defaultValiditySeconds = 3600;

/**
 * Rounding a correct implementation may take on a token's life, either way: it lives its client's
 * accessTokenValidity from its issue time (TOKEN-VALIDITY-02) give or take this, as whole-second clocks
 * store it. Checks decide nothing within it of an expiry.
 */
export const VALIDITY_SKEW_MS = 1000;

/** Far enough ahead that every token of the fixture world has expired (validities are at most hours). */
export const expireEverythingMs = 48 * 3600 * 1000;

export interface IssuedToken {
  token: string;
  /** Seconds of validity the answer announced (defaultValiditySeconds when it announced none). */
  expiresIn: number;
  issuedAt: number;
  response: ApiResponse<TokenResponse>;
}

export function expiresInOf(response: ApiResponse<TokenResponse>): number {
  const value = response.data?.expires_in;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : defaultValiditySeconds;
}

/**
 * Seconds of validity a token answer announces, held to the accessTokenValidity the kit gave the client
 * (`configuredSeconds`). Every wait the kit makes for a token to expire derives from this value, so an
 * announcement beyond the configured validity (1 s of rounding allowed) is the target's failure, reported
 * with the announced value, never a wait the check cannot afford. No expires_in means the configured value.
 */
export function announcedValidity(
  response: ApiResponse<TokenResponse>,
  configuredSeconds: number,
  who: string,
): number {
  const value = response.data?.expires_in;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return configuredSeconds;
  if (value > configuredSeconds + VALIDITY_SKEW_MS / 1000)
    fail(
      `${who} was given accessTokenValidity ${configuredSeconds} s, but the target announced expires_in ` +
        `${value}: a token must expire once its client's accessTokenValidity has elapsed (TOKEN-VALIDITY-01); ` +
        `the kit does not wait ${value} s for it`,
      { expected: `expires_in <= ${configuredSeconds}`, actual: `expires_in ${value}` },
    );
  return value;
}

/** A token for a role straight from the token endpoint; fails the check when none is issued. */
export async function issueToken(ctx: CheckContext, role: CredentialRole): Promise<IssuedToken> {
  const issuedAt = ctx.clock.now();
  const response = await clientOf(ctx).token(credentialOf(ctx, role));
  const token = accessTokenOf(response);
  if (!token)
    fail(
      `expected the token endpoint to issue a token for the ${role} client, got ${describeResponse(response)}`,
    );
  return { token, expiresIn: expiresInOf(response), issuedAt, response };
}

export function canDriveClock(ctx: CheckContext): boolean {
  return typeof ctx.clock.advance === "function";
}

/** Lets `ms` pass on the target. The runner's token cache renews expired tokens by the same clock. */
export async function letTimePass(ctx: CheckContext, ms: number): Promise<void> {
  if (ctx.clock.advance) ctx.clock.advance(ms);
  else await ctx.clock.sleep(ms);
}
