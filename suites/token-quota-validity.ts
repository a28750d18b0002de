// Token validity under multi-token support: a token lives the accessTokenValidity of its client from its
// issue time, is refused as expired afterwards, and no longer holds a quota slot.
import { type Check, explore } from "../src/check/index.ts";
import { describeResponse } from "../src/client/index.ts";
import { answerDetail, ensureAnswer } from "./support/answer-detail.ts";
import { defineCheck } from "./support/define.ts";
import { atFullQuota } from "./support/full-quota.ts";
import { DIMENSION, methodName } from "./support/quota-methods.ts";
import { SKEW_MS } from "./support/quota-model.ts";
import {
  allUsable,
  atLimitRefusal,
  ExpiryAmbiguous,
  expectQuotaRefusal,
  issueDistinct,
  QUOTA_TOKEN_CHECK,
  quotaFor,
  quotaRecord,
  withTokensOfItsOwn,
} from "./support/quota-tokens.ts";
import { judgeExpiredRefusal, judgeSuccess } from "./support/response-judges.ts";

export const expiredTokenFreesSlot: Check = atFullQuota(
  {
    id: "token-quota/expired-token-frees-slot",
    expectedWaitSeconds: 6,
    title: "MUST refuse an expired token as expired and no longer count it toward the quota",
    requirements: ["TOKEN-STATE-04", "TOKEN-STATE-05", "TOKEN-QUOTA-10", "TOKEN-VALIDITY-02", "AUTH-04"],
  },
  async (ctx, session, max, tokens) => {
    await atLimitRefusal(session, max);
    explore(ctx, DIMENSION.transition, "on: refused at limit");
    const longest = Math.max(...tokens.map((t) => t.expiresIn));
    await session.pass(longest + 1);
    explore(ctx, DIMENSION.instant, "after expiry");
    const expired = await session.use(tokens[0]?.token ?? "");
    ensureAnswer(
      judgeExpiredRefusal(ctx.target.profile, expired),
      "use of a token after its accessTokenValidity elapsed",
      expired,
      { record: quotaRecord(session, `token 1 of ${max}, used ${longest + 1} s after issue`) },
    );
    const seen = new Set(tokens.map((t) => t.token));
    const fresh = await issueDistinct(
      session,
      max,
      seen,
      "after every active token expired, the slots are free",
    );
    explore(ctx, DIMENSION.transition, "expiry frees a slot");
    await expectQuotaRefusal(session, max, "the quota holds again");
    await allUsable(session, fresh, "tokens issued after the expiry");
  },
);

export const validityFromClientConfiguration: Check = defineCheck({
  id: "token-quota/validity-from-client-configuration",
  ...QUOTA_TOKEN_CHECK,
  expectedWaitSeconds: 4,
  title: "MUST give tokens the accessTokenValidity set through the clients endpoint, from their issue time",
  requirements: ["TOKEN-VALIDITY-01", "TOKEN-VALIDITY-02", "CONFIG-CLIENT-02", "CONFIG-CLIENT-01"],
  async run(ctx) {
    await withTokensOfItsOwn(ctx, async (session) => {
      // Just inside the rounding a correct implementation may take either way, where the clock is driven;
      // in real time the round trips of the token request and of the use besides (the longest the session
      // saw, twice), and a second more.
      const margin = session.drivable
        ? SKEW_MS / 1000 + 0.001
        : Math.max(2, Math.ceil((2 * session.roundTripMs()) / 1000) + 1);
      // The session puts the client's previous validity back when it ends.
      const validity = session.drivable ? 120 : margin + 1;
      await session.setValidity(validity);
      explore(ctx, DIMENSION.method, methodName("PUT clients"));
      // The clients are written with the admin's token (see upsertClient).
      explore(ctx, "role", "admin");
      // Multi-token on: the request issues a fresh token, whose validity starts now.
      await session.setQuota(quotaFor(ctx));
      const [issued] = await issueDistinct(session, 1, new Set(), `accessTokenValidity=${validity}`);
      const token = issued?.token ?? "";
      const before = validity - margin;
      await session.pass(before);
      const early = await session.use(token);
      const judged = judgeSuccess(early, `use ${before} s after issue (validity ${validity} s)`);
      const record = quotaRecord(session, `its token, used ${before} s after issue`);
      // In real time the use must have been answered inside the token's certain life to be judged.
      const window = session.held.get(token);
      const answered = ctx.clock.now();
      if (judged !== undefined && !session.drivable && window && window.earliestExpiry <= answered)
        throw new ExpiryAmbiguous(
          answered - window.sent,
          `the token was refused (${describeResponse(early)}) on a use answered ${answered - window.sent} ms ` +
            `after the token was requested, with accessTokenValidity ${validity} s`,
          answerDetail(early, { record }),
        );
      ensureAnswer(judged, undefined, early, { record });
      explore(ctx, DIMENSION.instant, "before expiry");
      const after = session.drivable ? validity + margin : validity + 1;
      await session.pass(after - before);
      const late = await session.use(token);
      ensureAnswer(
        judgeExpiredRefusal(ctx.target.profile, late),
        `use ${after} s after issue (validity ${validity} s)`,
        late,
        { record: quotaRecord(session, `its token, used ${after} s after issue`) },
      );
      explore(ctx, DIMENSION.instant, "after expiry");
    });
  },
});
