// What the interface document asks of a caller, as rules over a client's recorded traffic (lckit client
// check). Each rule is declared in the one shape of the kit's rules (defineRule, kind "caller"): a stable
// id, a title that starts with its level, and the catalogue requirements it traces to; it counts its
// opportunities (the moments the traffic gave it something to judge, not the requests it looked at) and
// returns its violations as data (the exchange at fault and what was wrong). A rule with no opportunity is
// not exercised, and says what would exercise it: never a pass.
// The rules live in the file of their concept (caller-rules/); this list is their order in every report.

import { bearerOnEveryRequest } from "./caller-rules/auth.ts";
import type { CallerRule } from "./caller-rules/caller-rule.ts";
import {
  deleteTaskBody,
  deleteTaskUrisOfItsTenant,
  deleteTaskWholeTenant,
} from "./caller-rules/delete-task.ts";
import { pageSizeWithinMaximum } from "./caller-rules/page-size.ts";
import {
  scanFirstRequestWithoutBody,
  scanPassesPreviousScrollId,
  scanStopsAtEnd,
} from "./caller-rules/scan.ts";
import { backoffAfterRefusal, tokenQuota, tokenReuse } from "./caller-rules/tokens.ts";

export {
  type CallerRule,
  type CallerRuleDeclaration,
  MAX_PAGE_SIZE,
  type RuleVerdict,
  SHORT_PAGES_VARIANT,
  type Violation,
} from "./caller-rules/caller-rule.ts";
export { type DeleteTaskReading, readDeleteTask } from "./caller-rules/delete-task.ts";
export { scrollIdSent } from "./caller-rules/scan.ts";

export const CALLER_RULES: readonly CallerRule[] = [
  bearerOnEveryRequest,
  scanFirstRequestWithoutBody,
  scanPassesPreviousScrollId,
  scanStopsAtEnd,
  pageSizeWithinMaximum,
  deleteTaskBody,
  deleteTaskWholeTenant,
  deleteTaskUrisOfItsTenant,
  tokenReuse,
  tokenQuota,
  backoffAfterRefusal,
];
