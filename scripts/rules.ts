// Every rule of the kit, by kind: the one list the traceability table, the rule-id snapshot and the rule
// tests read. A new kind of rule joins here (its kind is declared in src/check/rule.ts) and is then
// traced, snapshotted and held to the catalogue like the others.
import { RULE_KINDS, type RuleKind } from "../src/check/index.ts";
import { COMMAND_UNDER_A_CHOICE } from "../src/commands/client/result.ts";
import { CONSUMER_RULES } from "../src/events/consumer/consumer-rules.ts";
import { EVENT_RULES } from "../src/events/rules/index.ts";
import { CALLER_RULES } from "../src/rules/caller/caller-rules.ts";
import { SCANS_READ_UNDER_EVERY_CHOICE } from "../src/rules/caller/sweep-difference.ts";
import { allChecks } from "../suites/index.ts";

/** What every rule of any kind has (src/check/rule.ts). */
export interface AnyRule {
  id: string;
  title: string;
  level: string;
  requirements: readonly string[];
}

export const RULES_BY_KIND: Readonly<Partial<Record<RuleKind, readonly AnyRule[]>>> = {
  http: allChecks,
  // The sweep's rule of differences judges a choice's run beside the default's (lckit client check --variants).
  // So does the command's own check under a choice (CALLER-CHOICE-01).
  caller: [...CALLER_RULES, SCANS_READ_UNDER_EVERY_CHOICE, COMMAND_UNDER_A_CHOICE],
  event: EVENT_RULES,
  consumer: CONSUMER_RULES,
};

/** The kinds with rules, each with the command that judges them and its rules. */
export function ruleKinds(): { kind: RuleKind; command: string; rules: readonly AnyRule[] }[] {
  return (Object.keys(RULE_KINDS) as RuleKind[]).flatMap((kind) => {
    const rules = RULES_BY_KIND[kind];
    return rules ? [{ kind, command: RULE_KINDS[kind].command, rules }] : [];
  });
}
