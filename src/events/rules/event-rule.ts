// An event rule: a rule of kind "event" (src/check/rule.ts, the one shape of every rule of the kit) whose
// judge reads one message at a time, or that names where its findings are found instead: the payload
// schemas (their x-requirements), the stream rules across messages, or another rule's walk of the message.
import { defineRule, type Rule, type RuleDeclaration } from "../../check/index.ts";
import type { EventProblem } from "../check/event-problem.ts";
import type { MessageUnderCheck } from "../check/read-message.ts";

/** What a message judge returns when nothing after it can judge the message (it cannot be read further). */
export const STOP = "stop";

/** Judges one read message: adds its findings to `problems`, each under the requirement it breaks. */
export type MessageJudge = (message: MessageUnderCheck, problems: EventProblem[]) => undefined | typeof STOP;

/** Where the findings of a rule without a message judge of its own come from (said in docs and tests). */
export interface FoundBy {
  foundBy: string;
}

export interface EventRuleDeclaration extends RuleDeclaration {
  judge: MessageJudge | FoundBy;
}

export type EventRule = Rule<"event", EventRuleDeclaration>;

/** Declares an event rule. Its id is `events/` and its first requirement's id in lower case (report keys
 *  of the event check since it began); its findings carry that requirement id. */
export function eventRule(declaration: EventRuleDeclaration): EventRule {
  const first = declaration.requirements[0];
  if (first !== undefined && declaration.id !== `events/${first.toLowerCase()}`)
    throw new Error(
      `event rule ${declaration.id}: its id is "events/${first.toLowerCase()}", from its first requirement`,
    );
  return defineRule("event", declaration);
}

export const bySchema: FoundBy = {
  foundBy: "the payload schemas (event-schemas/): a keyword that fails reports the nearest x-requirements id",
};
export const byStreamRules: FoundBy = {
  foundBy: "the stream rules across the messages of one object (src/events/check/stream-rules.ts)",
};
export const byReferenceCompanions: FoundBy = {
  foundBy:
    "the reference companions across the stream (src/events/check/reference-companions.ts, reference-changes.ts)",
};
