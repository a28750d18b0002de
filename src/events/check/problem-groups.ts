// Findings of one rule with the same message, grouped for a person to read: the first is shown in full,
// the rest counted with their positions (a few kept). Every finding stays in the result and report.json.
import type { EventProblem, Severity } from "./event-problem.ts";

export interface ProblemGroup {
  rule: string;
  severity: Severity;
  message: string;
  count: number;
  /** The first positions (at most `positionsKept`). */
  positions: string[];
}

/** Positions a group keeps; groups kept at most (later distinct messages are not grouped). */
const positionsKept = 10;
const groupsKept = 10_000;

export class ProblemGroups {
  private readonly groups = new Map<string, ProblemGroup>();

  /** Adds a finding; true when it is the first of its group (the one to show in full). */
  add(problem: EventProblem): boolean {
    const { position, severity } = problem.evidence;
    const key = `${problem.requirement}\u0000${severity}\u0000${problem.message}`;
    const group = this.groups.get(key);
    if (group) {
      group.count += 1;
      if (group.positions.length < positionsKept) group.positions.push(position);
      return false;
    }
    if (this.groups.size < groupsKept)
      this.groups.set(key, {
        rule: problem.requirement,
        severity,
        message: problem.message,
        count: 1,
        positions: [position],
      });
    return true;
  }

  /** The groups with more than one finding, largest first. */
  repeated(): ProblemGroup[] {
    return [...this.groups.values()].filter((group) => group.count > 1).sort((a, b) => b.count - a.count);
  }
}

/** One line for a repeated group: how many, the rule, the message shortened, where. */
export function formatGroup(group: ProblemGroup): string {
  const shown = group.message.length > 100 ? `${group.message.slice(0, 97)}...` : group.message;
  const more = group.count - group.positions.length;
  const [first, ...others] = group.positions;
  return `${group.count} messages with ${group.severity === "warning" ? "the warning" : "the error"} ${group.rule} "${shown}": first at ${first}; also ${others.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}
