// What the interface document asks of a caller, as rules over a client's recorded traffic (lckit client
// check). Each rule is declared in the one shape of the kit's rules (defineRule, kind "caller"): a stable
// id, a title that starts with its level, and the catalogue requirements it traces to; it counts its
// opportunities (the moments the traffic gave it something to judge, not the requests it looked at) and
// returns its violations as data (the exchange at fault and what was wrong). A rule with no opportunity is
// not exercised, and says what would exercise it: never a pass.
// The rules live in the file of their concept (caller-rules/); this list is their order in every report.

import { bearerAsShown, bearerOnEveryRequest } from "./auth.ts";
import { BLOCKED_VALUES_OFFSET_COUNTS_RECORDS } from "./blocked-values-paging.ts";
import type { CallerRule } from "./caller-rule.ts";
import { deleteTaskUrisOfItsTenant, deleteTaskWholeTenant } from "./delete-task.ts";
import { QUERY_PARAMETERS_DEFINED } from "./query-parameters.ts";
import { REQUEST_WITHIN_CONTRACT } from "./request-contract.ts";
import { scanFirstRequestWithoutBody } from "./scan.ts";
import { SCROLL_CONTINUED_BY_ITS_ID, SCROLL_ENDED, SCROLL_READ_TO_END } from "./scroll-lifecycle.ts";
import { TOKEN_DROPPED_WHEN_OVER, TOKEN_WAITS_AFTER_QUOTA_REFUSAL } from "./token-lifecycle.ts";
import { backoffAfterRefusal, tokenQuota, tokenReuse } from "./tokens.ts";

export {
  type CallerEvidence,
  type CallerRule,
  type CallerRuleDeclaration,
  type RuleVerdict,
  SHORT_PAGES_VARIANT,
  type Violation,
} from "./caller-rule.ts";
export { type DeleteTaskReading, readDeleteTask } from "./delete-task-reading.ts";
export { scrollIdSent } from "./scroll-lifecycle.ts";
export { SCANS_READ_UNDER_EVERY_CHOICE } from "./sweep-difference.ts";

export const CALLER_RULES: readonly CallerRule[] = [
  bearerOnEveryRequest,
  bearerAsShown,
  scanFirstRequestWithoutBody,
  // The scroll's lifecycle, per scroll: an earlier page's or another scan's id, an ended scroll asked again.
  SCROLL_CONTINUED_BY_ITS_ID,
  SCROLL_ENDED,
  // Per scroll opened with a next page: continued to its end, or left with records still to read.
  SCROLL_READ_TO_END,
  // The offset's paging model: the next page starts where the last one ended (offset counts records).
  BLOCKED_VALUES_OFFSET_COUNTS_RECORDS,
  // Derived from the contract's request side: paths, query parameters, bounds, the delete task's body.
  REQUEST_WITHIN_CONTRACT,
  // A query parameter the operation does not define and nothing pages by: a provider may ignore or refuse it.
  QUERY_PARAMETERS_DEFINED,
  deleteTaskWholeTenant,
  deleteTaskUrisOfItsTenant,
  tokenReuse,
  tokenQuota,
  // The token's lifecycle: a token the service answered expired or rejected serves nothing more.
  TOKEN_DROPPED_WHEN_OVER,
  // A quota refusal leaves the count at the limit: the caller waits for an expiry or raises the quota.
  TOKEN_WAITS_AFTER_QUOTA_REFUSAL,
  backoffAfterRefusal,
];
// client/scan-read-under-every-choice (sweep-difference.ts) is not in the list: it judges a choice's run
// beside the default's, so the sweep adds it where a baseline exists.
