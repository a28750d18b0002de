// The token-quota suite: its checks live in one file per concept (limits, validity, the model, the quota as
// configuration); this list is their run order. The order is part of the suite: the quota checks share one
// quota client, so each starts where the one before left its tokens, and a check that ends by waiting its
// tokens out spares the next one its wait (see suites/support/quota-session.ts).
import type { Check } from "../src/check/index.ts";
import {
  maxAbove200Refused,
  maxBelow1Refused,
  rdbmsMultitokenRefused,
  validationErrorNamesField,
} from "./token-quota-configuration.ts";
import {
  defaultQuota200,
  distinctTokensUpToMax,
  multitokenConfigActivates,
  parallelRequestsNeverExceed,
  quotaPerClient,
  raisedQuotaApplies,
  refusal429,
  singleTokenReused,
} from "./token-quota-limits.ts";
import { tokenStateModel } from "./token-quota-model.ts";
import { expiredTokenFreesSlot, validityFromClientConfiguration } from "./token-quota-validity.ts";

export const tokenQuotaChecks: Check[] = [
  singleTokenReused,
  multitokenConfigActivates,
  distinctTokensUpToMax,
  refusal429,
  expiredTokenFreesSlot,
  raisedQuotaApplies,
  parallelRequestsNeverExceed,
  tokenStateModel,
  quotaPerClient,
  defaultQuota200,
  maxAbove200Refused,
  maxBelow1Refused,
  validationErrorNamesField,
  rdbmsMultitokenRefused,
  validityFromClientConfiguration,
];
