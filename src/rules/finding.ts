// One finding for every kind of rule (an HTTP check, an event rule, a caller rule, a consumer rule): what a
// rule found wrong in what it judged, as data. A rule's judge reports what it found (`Found`: where, what
// was expected and seen, a sentence, the evidence of its kind); whose finding it is, the rule's id and the
// requirement it breaks, comes from the rule's header (src/check/rule.ts), never written by hand.
import type { RuleDeclaration } from "../check/rule.ts";

/** What a rule's judge reports: the finding without whose it is. */
export interface Found<E = undefined> {
  /** Where in the judged input: an exchange ("#12"), an object's URI, a message's position and field. */
  where: string;
  /** What the document asks for there, when the rule can say it in a few words. */
  expected?: string;
  /** What the input holds there instead. */
  actual?: string;
  /** The finding in one sentence, in the reader's terms. */
  message: string;
  /** The evidence of the kind (an exchange's seq, the message that should have won, the view's line). */
  evidence: E;
}

/** A finding with whose it is: the rule's id and the requirement it breaks, both from the rule's header. */
export interface Finding<E = undefined> extends Found<E> {
  rule: string;
  /** The rule's first requirement (the one its findings are reported under). */
  requirement: string;
}

/** The finding of `rule`: its id and first requirement put on what its judge found. */
export function findingOf<E>(
  rule: Pick<RuleDeclaration, "id" | "requirements">,
  found: Found<E>,
): Finding<E> {
  return { rule: rule.id, requirement: rule.requirements[0] as string, ...found };
}
