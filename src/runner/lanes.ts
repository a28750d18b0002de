// The services each lane of a live run gets: the lanes beside the token lane with tokens fetched before the
// lanes start, the second quota lane with its own quota client and customer.
import type { CredentialRole, Target } from "../check/index.ts";
import type { Redactor } from "../redaction/redact.ts";
import { TokenCache } from "../transport/token-cache.ts";
import { CheckScope } from "../transport/transport.ts";
import type { Breaker } from "./breaker.ts";
import type { RunServices } from "./context.ts";
import { FactStore } from "./run-facts.ts";

/**
 * The services of the second quota lane: the target as its checks see it, where the quota client and the
 * customer (customerId and quotaCustomerId) are the second ones, so no check needs to know about lanes and
 * nothing it changes is the first lane's. Its admin token is fetched before the lanes start and kept when
 * a check resets its tokens: the admin client may belong to the first quota client's customer, whose
 * quota the first lane sets, and could be refused a new token meanwhile. The other roles' tokens are the
 * lane's own and reset as usual.
 */
export async function secondQuotaServices(
  services: RunServices,
  second: NonNullable<Target["quotaAlt"]>,
  redactor: Redactor,
  breaker: Breaker,
): Promise<RunServices> {
  // quotaAlt stays in the view, equal to its quota client: the failure details name the client by the key
  // the user wrote for it (credentials.quotaAlt); nothing else reads it in a lane.
  const view: Target = {
    ...services.target,
    customerId: second.customerId,
    quotaCustomerId: second.customerId,
    credentials: { ...services.target.credentials, quota: second.credential },
  };
  const admin = await prefetchedServices(services, view, ["admin"], redactor, breaker);
  const kept = admin.tokens;
  const own = new TokenCache(view, redactor);
  const tokens: LaneTokens = {
    token: (role, fetch, clock, checkId) =>
      role === "admin" ? kept.token(role, fetch, clock, checkId) : own.token(role, fetch, clock, checkId),
    reset: () => own.reset(),
  };
  // What the first lane learns is about its quota client and customer: this lane learns its own.
  return { ...services, target: view, tokens, facts: new FactStore() };
}

/**
 * The services of a lane beside the first token lane: the run's, with a token cache of its own whose
 * tokens are fetched before the lanes start. The token lane resets the run's cache and shortens the validity of the clients it
 * works with; tokens fetched beforehand keep the validity they were issued with, so the reads are not
 * caught by an expiry or a quota meant for the token checks. A role whose token cannot be had here is
 * left to the check that asks for it (which then reports why): so these requests are no check's and do not
 * count toward the breaker, and the first that fails ends the fetching (a target that does not answer
 * costs one request timeout here, not one per role).
 */
export async function prefetchedServices(
  services: RunServices,
  target: Target,
  needed: readonly CredentialRole[],
  redactor: Redactor,
  breaker: Breaker,
): Promise<RunServices> {
  const tokens = new TokenCache(target, redactor);
  const roles = new Set(needed);
  const scope = new CheckScope("lckit/tokens", "read");
  const fetch = services.transport.bind(scope);
  breaker.pause();
  try {
    for (const role of roles) {
      if (!target.credentials[role]) continue;
      const got = await tokens.token(role, fetch, services.clock, "lckit/tokens").then(
        () => true,
        () => false,
      );
      if (!got) break;
    }
  } finally {
    breaker.resume();
    scope.close();
  }
  return { ...services, target, tokens };
}

/** What a lane's checks get their tokens from. */
type LaneTokens = RunServices["tokens"];
