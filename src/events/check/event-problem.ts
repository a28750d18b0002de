// A violation found in an event message: data, not prose (the CLI and the reports render it).
import { escapeControls, hasControl } from "../../control-characters.ts";
import { describeValue } from "../document/described-value.ts";

export { describeValue, escapeControls };

export type Severity = "error" | "warning";

export interface EventProblem {
  /** Where the message came from: "line 12", "amqp delivery 4031". */
  position: string;
  /**
   * JSON pointer into the message in its envelope form {"headers": {...}, "payload": {...}}:
   * "/payload/object/attributes/Country/0/lookupError", "/headers/objectVersion"; "" for the whole message.
   */
  instancePath: string;
  /** Requirement-catalogue id the message breaks (requirements/catalogue.yaml). */
  rule: string;
  /** The schema keyword that failed, or the name of the check written in code ("stream:version-reuse"). */
  keyword: string;
  message: string;
  severity: Severity;
}

/** Records one problem (an error unless said otherwise): the checkers' one way of adding to their list. */
export function addProblem(
  problems: EventProblem[],
  problem: Omit<EventProblem, "severity"> & { severity?: Severity },
): void {
  problems.push({ ...problem, severity: problem.severity ?? "error" });
}

/** The problem with its input-derived text (position, path, message) safe to print. */
export function safeProblem(problem: EventProblem): EventProblem {
  if (!hasControl(`${problem.position}${problem.instancePath}${problem.message}`)) return problem;
  return {
    ...problem,
    position: escapeControls(problem.position),
    instancePath: escapeControls(problem.instancePath),
    message: escapeControls(problem.message),
  };
}
