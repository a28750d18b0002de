// An event rule: a rule of kind "event" (src/check/rule.ts, the one shape of every rule of the kit) whose
// judge reads one message at a time, or that names where its findings are found instead: the payload
// schemas (their x-requirements), the stream rules across messages, or another rule's walk of the message.
import type { ErrorObject } from "ajv/dist/2020.js";
import { defineRule, type Rule, type RuleDeclaration } from "../../check/index.ts";
import { loadCatalogue, type RequirementLevel } from "../../requirements/catalogue.ts";
import type { RequirementProblem } from "../check/event-problem.ts";
import type { MessageUnderCheck } from "../check/read-message.ts";
import { problemsFromErrors } from "../check/schema-errors.ts";
import { eventSchemas } from "../event-schemas.ts";

/** What a message judge returns when nothing after it can judge the message (it cannot be read further). */
export const STOP = "stop";

/** Judges one read message: adds its findings to `problems`, each under the requirement it breaks. */
export type MessageJudge = (
  message: MessageUnderCheck,
  problems: RequirementProblem[],
) => undefined | typeof STOP;

/** What a judge says of one place in the message it judges (the message's position is known). */
export type FoundInMessage = Omit<RequirementProblem, "position" | "requirement">;

/** Where a rule's judge puts what it finds in the message it judges. */
export interface EventFindings {
  /** A finding of this rule: its requirement is the rule's own, from its header (never written by hand). */
  add(found: FoundInMessage): void;
  /** A finding of another rule that this rule's walk judges too: its requirement is that rule's own, from
   *  its header. */
  addFor(other: EventRule, found: FoundInMessage): void;
  /** What a schema found at `prefix` ("/payload", "/headers/..."): each error under the nearest
   *  x-requirements id of the keyword that failed, else under this rule's requirement. */
  addSchemaErrors(errors: readonly ErrorObject[] | null | undefined, prefix: string): void;
  /** Findings a shared walk made, each already under the requirement it breaks. */
  push(...problems: RequirementProblem[]): void;
  /** The message's findings so far (a rule that must not report a place twice reads them). */
  readonly problems: readonly RequirementProblem[];
}

/** A message judge as a rule declares it: its findings go to `found`, which knows the rule's requirement. */
export type DeclaredJudge = (message: MessageUnderCheck, found: EventFindings) => undefined | typeof STOP;

/** Where the findings of a rule without a message judge of its own come from (said in docs and tests),
 *  and what its opportunities are: the messages `judgedWith`'s judge ran on, every message (`"every
 *  message"`: reading one judges it), or, by default, every message read as a JSON object. */
export interface FoundBy {
  foundBy: string;
  judgedWith?: EventRule | "every message";
}

/** An event rule as declared: its requirements and its judge. Its id and title are its first requirement's
 *  (eventRule), so a declaration does not restate them. */
export interface EventRuleDeclaration extends Pick<RuleDeclaration, "requirements"> {
  judge: DeclaredJudge | FoundBy;
}

/** A declared event rule: its judge takes the message's list of problems (inspectMessage runs it). */
export type EventRule = Rule<"event", RuleDeclaration & { judge: MessageJudge | FoundBy }>;

/** The message judge of a declared one: one EventFindings per rule, pointed at each message in turn
 *  (judging is synchronous), so judging a message allocates nothing more than its findings. */
function messageJudge(requirement: string, declared: DeclaredJudge): MessageJudge {
  let target: RequirementProblem[] = [];
  let position = "";
  const found: EventFindings = {
    add: (what) => {
      target.push({ position, requirement, ...what });
    },
    addFor: (other, what) => {
      target.push({ position, requirement: other.requirements[0] as string, ...what });
    },
    addSchemaErrors: (errors, prefix) => {
      const { annotations } = eventSchemas();
      target.push(
        ...problemsFromErrors(errors, { position, prefix, annotations, fallbackRule: requirement }),
      );
    },
    push: (...problems) => {
      target.push(...problems);
    },
    get problems() {
      return target;
    },
  };
  return (message, problems) => {
    target = problems;
    position = message.position;
    return declared(message, found);
  };
}

/** Declares an event rule. An event rule checks one requirement of the catalogue as the document words it
 *  (further requirements it judges too follow it), so it takes its id and title from that first one: the
 *  id is `events/` and the requirement's id in lower case (report keys of the event check since it
 *  began), the title the requirement's level and text in requirements/catalogue.yaml; its findings carry
 *  that requirement's id. The title and level are read on first use, not on import: every command is
 *  loaded at CLI start (`lckit --help`), which must not pay for parsing and validating the catalogue. */
export function eventRule(declaration: EventRuleDeclaration): EventRule {
  const { requirements, judge } = declaration;
  const first = requirements[0];
  if (first === undefined)
    throw new Error("an event rule names its requirements, the one whose id and wording it takes first");
  const id = `events/${first.toLowerCase()}`;
  let header: { title: string; level: RequirementLevel } | undefined;
  const headerOf = () => (header ??= defineRule("event", { id, title: titleOf(first), requirements }));
  return {
    requirements,
    judge: typeof judge === "function" ? messageJudge(first, judge) : judge,
    id,
    get title() {
      return headerOf().title;
    },
    kind: "event",
    get level() {
      return headerOf().level;
    },
  };
}

/** A requirement's level and text in the catalogue: the title of the event rule that checks it first. */
function titleOf(requirement: string): string {
  const entry = loadCatalogue().requirements.find((r) => r.id === requirement && !r.retired);
  if (entry === undefined)
    throw new Error(
      `event rule of ${requirement}: its first requirement must be a live entry of requirements/catalogue.yaml, whose id and wording the rule takes; add it there`,
    );
  return `${entry.level} ${entry.text}`;
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
