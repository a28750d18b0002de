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
