// A violation found in an event message: data, not prose (the CLI and the reports render it).

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
  position: string,
  instancePath: string,
  ruleId: string,
  keyword: string,
  message: string,
  severity: Severity = "error",
): void {
  problems.push({ position, instancePath, rule: ruleId, keyword, message, severity });
}

/** Shortens a value for a message: what came, in at most about 80 characters. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * C0 and C1 control characters, DEL, and the Unicode line separators and bidirectional overrides: bytes of
 * the input that would move the cursor, clear the screen, ring the bell or reorder text when a problem is
 * printed. Everything the checker renders passes through escapeControls.
 */
const controlClass = "[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]";
const controls = new RegExp(controlClass, "g");
const hasControl = new RegExp(controlClass);

/** The text with every control character written as a visible escape (\x1b, \u202e). */
export function escapeControls(text: string): string {
  return text.replace(controls, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** The problem with its input-derived text (position, path, message) safe to print. */
export function safeProblem(problem: EventProblem): EventProblem {
  if (!hasControl.test(`${problem.position}${problem.instancePath}${problem.message}`)) return problem;
  return {
    ...problem,
    position: escapeControls(problem.position),
    instancePath: escapeControls(problem.instancePath),
    message: escapeControls(problem.message),
  };
}
