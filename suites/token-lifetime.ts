// Token validity as checks see it: issuing a token directly (not through the runner's cache), and letting
// time pass on the target, by driving its clock where the kit can, by sleeping otherwise.
import {
  type ApiResponse,
  accessTokenOf,
  describeResponse,
  type TokenResponse,
} from "../src/client/index.ts";
import { type CheckContext, type CredentialRole, fail } from "../src/runner/check.ts";
import { clientOf, credentialOf } from "./target-client.ts";

/** Validity the kit assumes when a token answer carries no expires_in (TOKEN-VALIDITY-03). */
export const defaultValiditySeconds = 3600;

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
