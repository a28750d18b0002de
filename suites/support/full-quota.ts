// A token-quota check judged at the limit: a quota session of its own with the quota client's quota full
// (maxActiveTokensAllowed tokens issued, the seed's quota), then what the check asks of the limit: one more
// refused, its answer's shape, an expired token freeing a slot, a raised quota opening slots. In real time
// the tokens' validity is planned from the round trips the session saw (see decideInTime).
import type { Check, CheckContext } from "../../src/check/index.ts";
import { type CheckDefinition, defineCheck } from "./define.ts";
import type { QuotaSession } from "./quota-session.ts";
import {
  decideInTime,
  fillQuota,
  type Issued,
  QUOTA_TOKEN_CHECK,
  quotaFor,
  withTokensOfItsOwn,
} from "./quota-tokens.ts";

/** What happens once the quota is full: `tokens` are the `max` tokens that fill it. */
export type AtTheLimit = (
  ctx: CheckContext,
  session: QuotaSession,
  max: number,
  tokens: Issued[],
) => Promise<void>;

export function atFullQuota(
  declared: Omit<CheckDefinition, "run" | keyof typeof QUOTA_TOKEN_CHECK>,
  atTheLimit: AtTheLimit,
): Check {
  return defineCheck({
    ...declared,
    ...QUOTA_TOKEN_CHECK,
    async run(ctx) {
      const max = quotaFor(ctx);
      // In real time the tokens that fill the quota must outlive what the check asks of the limit: the
      // fill, one refusal, a raise or two, a use of each (about 2 x max + 8 requests).
      await withTokensOfItsOwn(ctx, (session) =>
        decideInTime(session, 2 * max + 8, async () =>
          atTheLimit(ctx, session, max, await fillQuota(session, max)),
        ),
      );
    },
  });
}
