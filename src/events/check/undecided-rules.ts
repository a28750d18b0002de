// What the reference-companion rules could not decide, as the kit's `inconclusive` outcome: a rule whose
// relationship events the stream cut at its end (or the memory bound dropped) left open. The terminal,
// --format json, the exit code and every report read this one list. A relationship event that names
// neither end (a deltas or fallback payload, startObject/endObject filtered out) is not possible to decide
// from such a stream at all: it is said beside the rule's outcome, and never makes the rule inconclusive.
import type { Undecided } from "../../check/index.ts";
import { rule } from "../document/requirements.ts";
import type { CompanionWindow } from "../streaming-config.ts";
import type { CompanionCounts, Undecided as OpenRelations } from "./reference-companions.ts";

export interface InconclusiveRule extends Undecided {
  /** The requirement id of the rule (EVENT-TYPES-04, EVENT-STREAM-02). */
  rule: string;
  /** Relationship events it left open. */
  count: number;
}

function windowText(window: CompanionWindow): string {
  return `${window.messages} messages${window.ms > 0 ? ` or ${window.ms / 1000} s of event time` : ""}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function where(open: OpenRelations): string {
  return open.count === 1 ? open.first : `first ${open.first}, last ${open.last}`;
}

/** The rules of the companion counts that could not decide, one entry per rule. */
export function inconclusiveRules(companions: CompanionCounts): InconclusiveRule[] {
  const out: InconclusiveRule[] = [];
  for (const id of [rule.referenceCompanion, rule.referenceOvChanged]) {
    const open = companions.undecided.filter(
      (entry) => entry.rule === id && (entry.reason === "stream-ended" || entry.reason === "memory-bound"),
    );
    if (open.length === 0) continue;
    const ended = open.find((entry) => entry.reason === "stream-ended");
    const bound = open.find((entry) => entry.reason === "memory-bound");
    const ovFalse = id === rule.referenceOvChanged;
    const saw: string[] = [];
    const decideBy: string[] = [];
    if (ended) {
      saw.push(
        ovFalse
          ? `${plural(ended.count, "relationship event")} of a reference relation type (${where(ended)}) had only an ENTITY_CHANGED companion with ovChanged false when the stream ended, less than the companion window (${windowText(companions.window)}) later`
          : `${plural(ended.count, "relationship event")} of a reference relation type (${where(ended)}) had no ENTITY_CHANGED companion yet when the stream ended, less than the companion window (${windowText(companions.window)}) later`,
      );
      decideBy.push(
        `check a stream that goes on at least ${windowText(companions.window)} past ${ended.last} (a longer file; from a broker, a larger --max-messages, --duration or --idle-timeout)`,
      );
    }
    if (bound) {
      saw.push(
        `${plural(bound.count, "relationship event")} (${where(bound)}) were dropped unpaired because ${bound.message.slice(bound.message.indexOf(": ") + 2)}`,
      );
      decideBy.push(
        "raise --max-tracked, or narrow the companion window if the platform sends companions sooner",
      );
    }
    out.push({
      rule: id,
      count: open.reduce((sum, entry) => sum + entry.count, 0),
      saw: saw.join("; "),
      readings: ovFalse
        ? [
            "an ENTITY_CHANGED with ovChanged true for the entity comes after the last message read",
            "the platform sends the companion with ovChanged false only",
          ]
        : [
            "the ENTITY_CHANGED companion comes after the last message read",
            "the platform sends no ENTITY_CHANGED companion for the reference attribute",
          ],
      decideBy: decideBy.join("; or "),
    });
  }
  return out;
}
