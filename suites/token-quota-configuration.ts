// The quota as configuration: maxActiveTokensAllowed within 1..200 and only for tenants with Cassandra-based
// authorization; refused values are validation errors that store nothing.
import fc from "fast-check";
import { type Check, type CheckContext, depthOf, fail, runsAtDepth, skip } from "../src/check/index.ts";
import { describeResponse, multiTokenConfig } from "../src/client/index.ts";
import { answerDetail, ensureAnswer } from "./support/answer-detail.ts";
import { withCustomerRestored } from "./support/customer-restore.ts";
import { defineCheck } from "./support/define.ts";
import { checkProperty } from "./support/property.ts";
import { CUSTOMER_METHODS, type CustomerMethod, writeCustomer } from "./support/quota-methods.ts";
import { QUOTA_CHECK, storedQuota, tryQuota } from "./support/quota-tokens.ts";

/** The field every quota failure is about, as a path into the customer's body. */
const QUOTA_FIELD = "multitokenConfig.clientCredentialsMultiTokenConfig.maxActiveTokensAllowed";

import { judgeKitErrorBody, judgeSuccess, judgeValidationError } from "./support/response-judges.ts";
import { clientOf, quotaCustomerIdOf } from "./support/target-client.ts";

/** Values past the ceiling drawn at the default depth. */
const ABOVE_LIMIT_DRAWS = 8;

export const maxAbove200Refused: Check = defineCheck({
  id: "token-quota/max-above-200-refused",
  ...QUOTA_CHECK,
  // It writes the customer only: no token to wait out (balances the quota lanes).
  expectedWaitSeconds: 0,
  title:
    "MUST refuse maxActiveTokensAllowed above 200 with a validation error and accept 200, by PUT and by POST",
  requirements: ["TOKEN-QUOTA-03", "CONFIG-CUSTOMER-05", "CONFIG-CUSTOMER-01", "CONFIG-CUSTOMER-02"],
  needs: { roles: ["admin"] },
  async run(ctx) {
    const customerId = quotaCustomerIdOf(ctx);
    const detail = { record: `customer ${customerId}`, field: QUOTA_FIELD };
    // A value refused already one way is not sent again that way: the same request, the same judgement.
    const judged = new Set<string>();
    await withCustomerRestored(ctx, "admin", customerId, async () => {
      // The limit itself and the first value past it, each way a customer is written: the ceiling is the
      // customer's, however it was written.
      for (const method of CUSTOMER_METHODS) {
        const limit = await tryQuota(ctx, customerId, 200, method);
        ensureAnswer(
          judgeSuccess(limit, `maxActiveTokensAllowed=200 (the limit itself) by ${method}`),
          undefined,
          limit,
          detail,
        );
        await expectRefused(ctx, customerId, 201, method);
        judged.add(`${method} 201`);
      }
      const above = fc.oneof(fc.constant(201), fc.integer({ min: 202, max: 2 ** 31 - 1 }));
      // At the default depth each drawn value goes one way, drawn too; at "deep" both ways.
      const way =
        depthOf(ctx) === "deep"
          ? fc.constant(undefined)
          : fc.constantFrom<CustomerMethod | undefined>(...CUSTOMER_METHODS);
      await checkProperty(
        ctx,
        fc.asyncProperty(above, way, async (value, drawn) => {
          for (const method of drawn === undefined ? CUSTOMER_METHODS : [drawn]) {
            if (judged.has(`${method} ${value}`)) continue;
            await expectRefused(ctx, customerId, value, method);
            judged.add(`${method} ${value}`);
          }
        }),
        // Every value past the ceiling is the same rule: the boundary is sent both ways above; at the default
        // depth a few drawn values (two requests each) stand for the rest, at "deep" as many as the run asks.
        { numRuns: runsAtDepth(ctx, ABOVE_LIMIT_DRAWS) },
      );
    });
  },
});

/** maxActiveTokensAllowed=`value` written by `method` is a validation error that stores nothing. */
async function expectRefused(
  ctx: CheckContext,
  customerId: string,
  value: number,
  method: CustomerMethod,
): Promise<void> {
  const response = await tryQuota(ctx, customerId, value, method);
  const detail = { record: `customer ${customerId}`, field: QUOTA_FIELD };
  ensureAnswer(
    judgeValidationError(ctx.target.profile, response),
    `maxActiveTokensAllowed=${value} by ${method}`,
    response,
    detail,
  );
  const stored = await storedQuota(ctx, customerId);
  if (stored === value)
    fail(`maxActiveTokensAllowed=${value} was refused on ${method} but stored anyway`, {
      ...answerDetail(response, detail),
      expected: "a refused value not stored",
      actual: `stored ${value} after a ${response.status} refusal of ${method}`,
    });
}

export const maxBelow1Refused: Check = defineCheck({
  id: "token-quota/max-below-1-refused",
  ...QUOTA_CHECK,
  // It writes the customer only: no token to wait out (balances the quota lanes).
  expectedWaitSeconds: 0,
  title: "SHOULD refuse maxActiveTokensAllowed below 1 with a validation error",
  requirements: ["TOKEN-QUOTA-09"],
  needs: { roles: ["admin"] },
  async run(ctx) {
    const customerId = quotaCustomerIdOf(ctx);
    await withCustomerRestored(ctx, "admin", customerId, async () => {
      for (const value of [0, -1]) {
        const response = await tryQuota(ctx, customerId, value);
        ensureAnswer(
          judgeValidationError(ctx.target.profile, response),
          `maxActiveTokensAllowed=${value}`,
          response,
          { record: `customer ${customerId}`, field: QUOTA_FIELD },
        );
      }
    });
  },
});

export const validationErrorNamesField: Check = defineCheck({
  id: "token-quota/validation-error-names-field",
  ...QUOTA_CHECK,
  // It writes the customer only: no token to wait out (balances the quota lanes).
  expectedWaitSeconds: 0,
  title: "SHOULD answer a quota validation error with 400 naming maxActiveTokensAllowed, storing nothing",
  requirements: ["CONFIG-05", "ERRORS-01"],
  needs: { roles: ["admin"] },
  async run(ctx) {
    const customerId = quotaCustomerIdOf(ctx);
    await withCustomerRestored(ctx, "admin", customerId, async (original) => {
      const response = await tryQuota(ctx, customerId, 201);
      const detail = { record: `customer ${customerId}`, field: QUOTA_FIELD };
      if (response.status !== 400 || !/maxActiveTokensAllowed/.test(response.text))
        fail(
          `expected 400 whose description names maxActiveTokensAllowed, got ${describeResponse(response)}`,
          answerDetail(response, {
            ...detail,
            expected: "400 whose description names maxActiveTokensAllowed",
          }),
        );
      ensureAnswer(judgeKitErrorBody(response), undefined, response, detail);
      const stored = await storedQuota(ctx, customerId);
      const before = original.multitokenConfig?.clientCredentialsMultiTokenConfig?.maxActiveTokensAllowed;
      if (stored !== before)
        fail(`the refused value changed the stored quota from ${before} to ${stored}`, {
          ...answerDetail(response, detail),
          expected: `the stored quota unchanged (${before})`,
          actual: `${stored} stored after a ${response.status} refusal of 201`,
        });
    });
  },
});

export const rdbmsMultitokenRefused: Check = defineCheck({
  id: "token-quota/rdbms-multitoken-refused",
  // A quota refusal may be a 429: this check judges 429s itself, the transport never waits them out.
  judgesRateLimits: true,
  title: "MUST refuse multitokenConfig for a customer whose tenant uses rdbms authorization",
  requirements: ["CONFIG-CUSTOMER-04"],
  safety: "write",
  needs: { roles: ["rdbmsAdmin"], rdbmsTenant: true },
  async run(ctx) {
    const customerId = ctx.target.rdbmsCustomerId ?? skip("the target file names no rdbmsCustomerId");
    await withCustomerRestored(ctx, "rdbmsAdmin", customerId, async (original) => {
      const token = await ctx.token("rdbmsAdmin");
      const client = clientOf(ctx);
      const withConfig = { ...original, multitokenConfig: multiTokenConfig(5) };
      // The whole customer each way (stored alike whether a method replaces or merges), and a POST of
      // multitokenConfig alone, which a merge adds to the stored customer and its rdbms tenant.
      for (const [method, send] of [
        ["PUT", () => writeCustomer(ctx, "rdbmsAdmin", customerId, withConfig, "PUT")],
        ["POST", () => writeCustomer(ctx, "rdbmsAdmin", customerId, withConfig, "POST")],
        [
          "POST of multitokenConfig alone",
          () => client.postCustomer(token, customerId, { multitokenConfig: multiTokenConfig(5) }),
        ],
      ] as const) {
        const response = await send();
        ensureAnswer(
          judgeValidationError(ctx.target.profile, response),
          `${method} with multitokenConfig (rdbms tenant)`,
          response,
          {
            record: `customer ${customerId} (rdbms tenant ${ctx.target.rdbmsTenant})`,
            field: "multitokenConfig",
          },
        );
      }
    });
  },
});
