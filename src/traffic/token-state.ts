// The access token's state table as the traffic shows it (States and transitions / Access token): a token
// lives from its issue for the validity its answer gives, once; with multi-token support off a token
// request while the client's token is still valid returns that same token again; with it on, a token
// request below the limit issues a new one; an expired token is never handed out again. Judged on every
// token granted to a client whose earlier tokens the traffic saw issued: a token returned again must not
// have expired by then, nor live longer than its first answer said (expires_in is whole seconds, so a
// second either way is its rounding). Whether multi-token support is on is known from the quota the
// traffic showed written (TokenQuotaJudge); off only from a PUT of the customer without multitokenConfig
// whose answer shows none either, and only for tokens issued after it, never refused since.
import type { ObservedExchange, ServiceRule } from "./service-rule.ts";
import type { Tally } from "./tally.ts";

export const TOKEN_STATE_RULE = {
  id: "service/token-state-kept",
  level: "MUST",
  title:
    "MUST follow the access token's state table: the same token again while it is valid with multi-token support off, a new one with it on, never an expired one, its validity running from its issue once",
  requirements: ["TOKEN-STATE-01", "TOKEN-STATE-02", "TOKEN-STATE-04", "TOKEN-QUOTA-01", "TOKEN-VALIDITY-02"],
  opportunity:
    "a token granted to a client whose tokens the traffic saw issued before (a token returned again, or one granted where the multi-token setting is known)",
  notExercised: "the traffic showed no token granted to a client that had been issued one before",
} satisfies ServiceRule;

export const VALIDITY_RULE = {
  id: "service/token-validity-kept",
  level: "MUST",
  title:
    "MUST issue a client's new token for the accessTokenValidity written for that client (expires_in within its whole-second rounding)",
  requirements: ["TOKEN-VALIDITY-01", "TOKEN-VALIDITY-02"],
  opportunity:
    "a new token issued to a client whose accessTokenValidity the traffic showed written (PUT .../clients answered 2xx) before the request",
  notExercised: "the traffic showed no new token of a client whose accessTokenValidity it showed written",
} satisfies ServiceRule;

/** Whether multi-token support is on for the client's customer, as far as the traffic shows. */
export type MultiToken = { on: true } | { on: false; since: number } | undefined;

interface Life {
  seq: number;
  /** The earliest and latest moments its first answer lets it expire (undefined: no expires_in). */
  earliest?: number;
  latest?: number;
  issuedAt: number;
  /** Issued while multi-token support was known off. */
  underOff: boolean;
  /** Refused since (401): no longer counted as valid. */
  refused?: true;
}

/** expires_in is whole seconds: a second's rounding either way, and a second of clocks. */
const ROUNDING_MS = 2_000;
const TOKENS_PER_CLIENT = 512;
const CLIENTS_KEPT = 10_000;

export class TokenStateJudge {
  private readonly lives = new Map<string, Map<string, Life>>();

  constructor(private readonly tally: () => Tally) {}

  /** Whether the traffic saw this token issued to the client before (a token returned again). */
  knows(clientId: string, token: string): boolean {
    return this.lives.get(clientId)?.has(token) === true;
  }

  /** A request refused with 401 on a token: it is no longer the client's valid token. */
  refused(clientId: string, token: string): void {
    const life = this.lives.get(clientId)?.get(token);
    if (life !== undefined) life.refused = true;
  }

  /** Exchanges not judged: a token request among them may have changed what is valid. */
  gap(): void {
    for (const lives of this.lives.values()) for (const life of lives.values()) life.refused = true;
  }

  granted(
    x: ObservedExchange,
    clientId: string,
    value: string,
    expiresIn: number | undefined,
    mode: MultiToken,
  ): void {
    const lives = this.lives.get(clientId) ?? new Map<string, Life>();
    const end = x.at + (x.durationMs ?? 0);
    const before = lives.get(value);
    const tally = this.tally();
    const problem = before ? this.again(x, before, expiresIn, mode) : this.fresh(lives, end, mode);
    if (problem !== undefined) {
      tally.opportunities += 1;
      if (problem !== "") tally.violate(x.seq, `client ${clientId}'s token request at #${x.seq} ${problem}`);
    }
    if (before === undefined) {
      lives.set(value, {
        seq: x.seq,
        issuedAt: x.at,
        underOff: mode?.on === false,
        ...(expiresIn === undefined
          ? {}
          : {
              earliest: x.at + expiresIn * 1000 - ROUNDING_MS,
              latest: end + expiresIn * 1000 + ROUNDING_MS,
            }),
      });
      if (lives.size > TOKENS_PER_CLIENT) lives.delete(lives.keys().next().value as string);
    }
    this.lives.delete(clientId);
    this.lives.set(clientId, lives);
    if (this.lives.size > CLIENTS_KEPT) this.lives.delete(this.lives.keys().next().value as string);
  }

  /** A token answered again: "" when kept, else what broke (undefined: nothing to judge). */
  private again(x: ObservedExchange, first: Life, expiresIn: number | undefined, mode: MultiToken): string {
    if (first.latest !== undefined && first.latest <= x.at)
      return `was answered the token first issued at #${first.seq}, expired by then (its first answer's expires_in had passed): an expired token is never valid again`;
    if (mode?.on === true)
      return `was answered the token issued at #${first.seq} again, still active, with multi-token support on (its customer's multitokenConfig written): a new token should have been issued`;
    if (
      expiresIn !== undefined &&
      first.latest !== undefined &&
      x.at + expiresIn * 1000 - ROUNDING_MS > first.latest
    )
      return `was answered the token issued at #${first.seq} again with expires_in ${expiresIn}, which outlives its first answer's (its validity runs from its issue, not from the request that returned it)`;
    return "";
  }

  /** A new token: with multi-token support off, kept only if no token of the client is surely valid. */
  private fresh(lives: Map<string, Life>, end: number, mode: MultiToken): string | undefined {
    if (mode?.on !== false) return mode?.on === true ? "" : undefined;
    for (const life of lives.values())
      if (
        life.underOff &&
        !life.refused &&
        life.issuedAt >= mode.since &&
        life.earliest !== undefined &&
        life.earliest > end
      )
        return `was answered a new token while the token issued at #${life.seq} was still valid, with multi-token support off (its customer written without multitokenConfig): the same token should have been returned again`;
    return "";
  }
}
