// What the event check finds in a message, as data (the CLI and the reports render it). The walks of a
// message and of the stream report a problem under the requirement it breaks (`RequirementProblem`: the
// schemas' x-requirements, a rule's header); the judge makes it the rule's finding, the kit's one
// `Finding` (src/rules/finding.ts), whose evidence says where in which message and what failed.
import { escapeControls, hasControl } from "../../control-characters.ts";
import type { Finding } from "../../rules/finding.ts";
import { describeValue } from "../document/described-value.ts";

export { describeValue, escapeControls };

/** "error" fails the message (a MUST rule's finding), "warning" does not (a SHOULD or MAY rule's). */
export type Severity = "error" | "warning";

/** What a walk found, under the requirement-catalogue id it breaks (requirements/catalogue.yaml). */
export interface RequirementProblem {
  /** Where the message came from: "line 12", "amqp delivery 4031". */
  position: string;
  /**
   * JSON pointer into the message in its envelope form {"headers": {...}, "payload": {...}}:
   * "/payload/object/attributes/Country/0/lookupError", "/headers/objectVersion"; "" for the whole message.
   */
  instancePath: string;
  requirement: string;
  /** The schema keyword that failed, or the name of the check written in code ("stream:version-reuse"). */
  keyword: string;
  message: string;
}

/** The evidence of an event finding: the message's position, the field, the keyword, and what the rule's
 *  level makes of it. */
export interface MessageEvidence {
  position: string;
  instancePath: string;
  keyword: string;
  severity: Severity;
}

/** An event rule's finding: `where` is the message's position and field ("line 12 /payload/type"). */
export type EventProblem = Finding<MessageEvidence>;

/** A finding's place as the reports write it: the position, then the field or "message" for all of it. */
export function whereOf(position: string, instancePath: string): string {
  return `${position} ${instancePath === "" ? "message" : instancePath}`;
}

/** The finding with its input-derived text (position, path, message) safe to print. */
export function safeProblem(problem: EventProblem): EventProblem {
  const { evidence } = problem;
  if (!hasControl(`${problem.where}${problem.message}`)) return problem;
  return {
    ...problem,
    where: escapeControls(problem.where),
    message: escapeControls(problem.message),
    evidence: {
      ...evidence,
      position: escapeControls(evidence.position),
      instancePath: escapeControls(evidence.instancePath),
    },
  };
}
