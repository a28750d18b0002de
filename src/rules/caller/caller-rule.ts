// What every caller rule shares: its declared shape (a rule of kind "caller" whose judge reads the
// traffic), its outcome from its opportunities and violations (src/rules/judge.ts, the one engine), and
// the operations the rules name.
import { defineRule, type Rule, type RuleDeclaration } from "../../check/index.ts";
import type { Found } from "../finding.ts";
import { type Outcome, outcomeOf } from "../judge.ts";
import type { Traffic, TrafficExchange } from "./traffic.ts";

/** What a caller rule found at fault, as its judge writes it: the exchange (its seq) and what was wrong. */
export interface Violation {
  /** seq of the exchange at fault. */
  seq: number;
  message: string;
}

/** The evidence of a caller rule's finding: the exchange at fault. */
export interface CallerEvidence {
  seq: number;
}

/** What a caller rule's judge returns: the engine's outcome, its findings pointing at exchanges. */
export type RuleVerdict = Outcome<CallerEvidence>;

/** A caller rule as declared: a rule of kind "caller" (src/check/rule.ts) whose judge reads the traffic. */
export interface CallerRuleDeclaration extends RuleDeclaration {
  /** What one opportunity of the rule is, in the team's terms (docs and reports). */
  opportunity: string;
  /** What breaks it, in the team's terms (Markdown: the table of docs/consumers.md). */
  breaks: string;
  /** What in a team's tests gives it an opportunity (Markdown: the table of docs/consumers.md). */
  exercisedBy: string;
  /** Its finding at an exchange depends on exchanges after it (a scroll left: no later page came). */
  looksAhead?: boolean;
  /** It reads the time between requests (a token's life, a wait): traffic without times cannot decide it. */
  readsTime?: boolean;
  judge(traffic: Traffic): RuleVerdict;
}

export type CallerRule = Rule<"caller", CallerRuleDeclaration>;

export const callerRule = (declaration: CallerRuleDeclaration): CallerRule =>
  defineRule("caller", declaration);

export const LOOKUP_DATA_AND_AUTOPILOT = new Set([
  "getHealthcheck",
  "getStatus",
  "getVersion",
  "createTask",
  "getTask",
  "scanLookups",
  "scanAutopilotStats",
  "scanAutopilotStatsByType",
  "listBlockedValues",
]);
export const SCANS = new Set(["scanLookups", "scanAutopilotStats", "scanAutopilotStatsByType"]);

/** The provider choice of the sweep whose lookups scan serves short pages (lckit serve --help-variants). */
export const SHORT_PAGES_VARIANT = "short-pages";
/** How a team makes its scans page: the words every scan rule's "not exercised" ends with. */
export const TO_PAGE = `give --data with more lookups than your scans' limit, or run with --variants ${SHORT_PAGES_VARIANT} (the sweep's choice whose lookups scan serves short pages)`;

/** The finding of a violation: where is the exchange's seq, the evidence the exchange. */
export const foundAt = ({ seq, message }: Violation): Found<CallerEvidence> => ({
  where: `#${seq}`,
  message,
  evidence: { seq },
});

export function verdict(opportunities: number, violations: Violation[], notExercised: string): RuleVerdict {
  return outcomeOf(opportunities, violations.map(foundAt), notExercised);
}

export const where = (x: TrafficExchange) => `${x.method} ${x.pathname}`;
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
