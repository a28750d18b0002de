// Token issuance and the multi-token state table of the interface document ("Access token").
import { MAX_ACTIVE_TOKENS_ALLOWED } from "../contract/token-quota.ts";
import type { ReferenceContext } from "./context.ts";
import type { Customer, IssuedToken, StoredClient } from "./types.ts";
import { randomBase64Url, yieldToEventLoop } from "./web.ts";

export const DEFAULT_VALIDITY_SECONDS = 3600;
// The limit is the contract's; the default when unset is not shown, and the reference chooses the limit
// (the variant default-quota-50 chooses otherwise).
export const DEFAULT_MAX_ACTIVE_TOKENS = MAX_ACTIVE_TOKENS_ALLOWED;
export const MAX_ACTIVE_TOKENS_LIMIT = MAX_ACTIVE_TOKENS_ALLOWED;

export type IssueResult =
  | { kind: "issued"; token: IssuedToken }
  | { kind: "refused"; active: number; max: number; retryAfterSeconds: number };

/** The client's tokens that count toward its quota; prunes expired ones from the per-client list. */
function countedTokens(ctx: ReferenceContext, clientId: string, now: number): IssuedToken[] {
  const list = ctx.state.tokensByClient.get(clientId) ?? [];
  if (ctx.faults.has("expired-token-still-counted")) return list;
  const active = list.filter((t) => t.expiresAt > now);
  if (active.length !== list.length) ctx.state.tokensByClient.set(clientId, active);
  return active;
}

function latestValid(ctx: ReferenceContext, clientId: string, now: number): IssuedToken | undefined {
  const list = ctx.state.tokensByClient.get(clientId) ?? [];
  const stale = ctx.faults.has("expired-token-returned-again");
  for (let i = list.length - 1; i >= 0; i--) {
    const token = list[i] as IssuedToken;
    // A slot with no token value is nothing to return (see phantom). The fault returns an expired
    // short-lived token (validity below the default) again as if it were still valid.
    const keptPastExpiry = stale && token.expiresAt - token.issuedAt < DEFAULT_VALIDITY_SECONDS * 1000;
    if ((token.expiresAt > now || keptPastExpiry) && token.value !== "") return token;
  }
  return undefined;
}

/** With the fault refused-token-request-counted: the slot a declined request takes (never a usable token). */
function phantom(ctx: ReferenceContext, stored: StoredClient, now: number): IssuedToken {
  const seconds = stored.client.accessTokenValidity ?? DEFAULT_VALIDITY_SECONDS;
  const token = {
    value: "",
    clientId: stored.client.clientId,
    issuedAt: now,
    expiresAt: now + seconds * 1000,
  };
  ctx.state.tokensByClient.get(token.clientId)?.push(token);
  return token;
}

/** With the fault refused-token-request-renews-token: the earliest of `counted` lives a validity from now. */
function renewEarliest(counted: IssuedToken[], stored: StoredClient, now: number): void {
  const earliest = counted.reduce<IssuedToken | undefined>(
    (min, t) => (t.value !== "" && (min === undefined || t.expiresAt < min.expiresAt) ? t : min),
    undefined,
  );
  if (earliest)
    earliest.expiresAt = now + (stored.client.accessTokenValidity ?? DEFAULT_VALIDITY_SECONDS) * 1000;
}

/** With the fault multitoken-stays-on-after-off: the last multitokenConfig each client was issued under. */
const cachedConfig = new WeakMap<ReferenceContext["state"], Map<string, Customer["multitokenConfig"]>>();

function insert(ctx: ReferenceContext, stored: StoredClient, now: number): IssuedToken {
  const seconds = ctx.faults.has("token-validity-ignored")
    ? DEFAULT_VALIDITY_SECONDS
    : (stored.client.accessTokenValidity ?? DEFAULT_VALIDITY_SECONDS);
  // The fault shortens a token's life by more than the rounding a correct implementation may take.
  const early = ctx.faults.has("token-expires-early") ? 1500 : 0;
  const token: IssuedToken = {
    value: randomBase64Url(24),
    clientId: stored.client.clientId,
    issuedAt: now,
    expiresAt: now + seconds * 1000 - early,
  };
  ctx.state.tokens.set(token.value, token);
  const list = ctx.state.tokensByClient.get(token.clientId);
  if (list) list.push(token);
  else ctx.state.tokensByClient.set(token.clientId, [token]);
  return token;
}

/** The tokens other sessions took for a client at its first token request (quotaHeldElsewhere), per state:
 *  a reset starts a world afresh. */
const heldElsewhere = new WeakMap<ReferenceContext["state"], Map<string, IssuedToken[]>>();

/** The tokens other sessions of each client held when it first asked (none outside that world). */
export function tokensHeldElsewhere(
  state: ReferenceContext["state"],
): ReadonlyMap<string, readonly IssuedToken[]> {
  return heldElsewhere.get(state) ?? new Map();
}

/** At the chosen client's first token request, other sessions hold what its quota leaves: tokens it never
 *  sees, each valid for the world's stated seconds from now. */
function fillQuotaElsewhere(ctx: ReferenceContext, clientId: string, max: number, now: number): void {
  const world = ctx.quotaHeldElsewhere;
  if (world?.clientId !== clientId) return;
  const filled = heldElsewhere.get(ctx.state) ?? new Map<string, IssuedToken[]>();
  heldElsewhere.set(ctx.state, filled);
  if (filled.has(clientId)) return;
  const tokens: IssuedToken[] = [];
  const list = ctx.state.tokensByClient.get(clientId) ?? [];
  ctx.state.tokensByClient.set(clientId, list);
  for (let i = list.filter((t) => t.expiresAt > now).length; i < max; i++) {
    const token = {
      value: randomBase64Url(24),
      clientId,
      issuedAt: now,
      expiresAt: now + world.seconds * 1000,
    };
    ctx.state.tokens.set(token.value, token);
    list.push(token);
    tokens.push(token);
  }
  filled.set(clientId, tokens);
}

/**
 * Issues (or returns) a token for an authenticated client. The quota check and the insert run in one
 * synchronous stretch, so concurrent requests can never overshoot the quota.
 */
export async function issueToken(ctx: ReferenceContext, stored: StoredClient): Promise<IssueResult> {
  const now = ctx.clock.now();
  const clientId = stored.client.clientId;
  const written = ctx.state.customers.get(stored.customerId)?.multitokenConfig;
  // The fault: the setting a client was last issued under is cached, refreshed by a written one only, so
  // switching multi-token support off never reaches the token endpoint.
  let configured = written;
  // The fault: a customer without a multitokenConfig of its own takes the first one stored for any customer.
  if (!configured && ctx.faults.has("multitoken-config-reaches-other-customers"))
    configured = [...ctx.state.customers.values()].find((c) => c.multitokenConfig)?.multitokenConfig;
  if (ctx.faults.has("multitoken-stays-on-after-off")) {
    const cache = cachedConfig.get(ctx.state) ?? new Map<string, Customer["multitokenConfig"]>();
    cachedConfig.set(ctx.state, cache);
    if (written) cache.set(clientId, written);
    configured = written ?? cache.get(clientId);
  }
  // The fault reads an absent quota value as "multi-token off" instead of the default quota.
  const multitoken =
    configured &&
    ctx.faults.has("multitoken-needs-quota-value") &&
    configured.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed === undefined
      ? undefined
      : configured;
  if (!multitoken) {
    const current = ctx.faults.has("new-token-with-multitoken-off")
      ? undefined
      : latestValid(ctx, clientId, now);
    // The fault: the token returned again lives a whole validity from now, not from its issue time.
    if (current && ctx.faults.has("reissued-token-renewed"))
      current.expiresAt = now + (stored.client.accessTokenValidity ?? DEFAULT_VALIDITY_SECONDS) * 1000;
    if (current && ctx.faults.has("reissued-token-not-stored")) {
      // The fault: a new value is answered, but the store keeps only the earlier token.
      return { kind: "issued", token: { ...current, value: randomBase64Url(24) } };
    }
    return { kind: "issued", token: current ?? insert(ctx, stored, now) };
  }
  if (ctx.faults.has("same-token-with-multitoken-on")) {
    const current = latestValid(ctx, clientId, now);
    if (current) return { kind: "issued", token: current };
  }
  // The fault: an empty multitokenConfig (accepted and stored) breaks every token request of the customer.
  if (
    ctx.faults.has("empty-multitoken-config-breaks-tokens") &&
    !multitoken.clientCredentialsMultiTokenConfig
  )
    throw new Error("multitokenConfig.clientCredentialsMultiTokenConfig is undefined");
  const max =
    multitoken.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed ??
    (ctx.variants.has("default-quota-50") ? 50 : DEFAULT_MAX_ACTIVE_TOKENS);
  fillQuotaElsewhere(ctx, clientId, max, now);
  const counted = countedTokens(ctx, clientId, now);
  let allowed = max;
  if (ctx.faults.has("quota-off-by-one")) allowed = max + 1;
  if (ctx.faults.has("quota-refused-early")) allowed = max - 1;
  if (ctx.faults.has("quota-not-enforced")) allowed = Number.POSITIVE_INFINITY;
  if (counted.length >= allowed) {
    // The fault: the declined request takes a slot for a whole validity, as if it had been granted.
    if (ctx.faults.has("refused-token-request-counted")) phantom(ctx, stored, now);
    // The fault: the declined request renews the client's earliest token, as if it had been re-issued.
    if (ctx.faults.has("refused-token-request-renews-token")) renewEarliest(counted, stored, now);
    const soonest = counted.reduce((min, t) => Math.min(min, t.expiresAt), Number.POSITIVE_INFINITY);
    return {
      kind: "refused",
      active: counted.length,
      max,
      retryAfterSeconds: Math.max(1, Math.ceil((soonest - now) / 1000)),
    };
  }
  if (ctx.faults.has("concurrent-quota-race")) await yieldToEventLoop();
  return { kind: "issued", token: insert(ctx, stored, now) };
}
