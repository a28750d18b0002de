// What the consumer tests' own small consumers share: the stream of a producer choice, the document's
// removal types, the fold in arrival order with an objectVersion guard, and the view written from what is
// held per object. Each test varies only the step it is about (how it names the object, what it keeps).
import { type ConsumerStream, consumerStream } from "../../src/events/consumer/consumer-stream.ts";
import { type ConsumerView, parseViewLine } from "../../src/events/consumer/consumer-view.ts";
import { producerChoice } from "../../src/events/consumer/producer-choices.ts";
import { listedEventTypes } from "../../src/events/event-schemas.ts";

/** Every removal type of the document's event table. */
export const REMOVALS = /_REMOVED(_GDPR)?$|_LOST_MERGE$/;
/** A type in neither of the document's lists (the consumer streams send several): a consumer acts on none. */
export const isUnlisted = (type: string): boolean => !listedEventTypes().has(type);

/** The consumer stream (1,000 messages) of a producer choice. */
export function choiceStream(name = "snapshot", seed = 1): ConsumerStream {
  const choice = producerChoice(name);
  if (!choice) throw new Error(`no producer choice ${name}`);
  return consumerStream(choice, seed, 1000);
}

/** What a test consumer holds of one object. */
export interface Held {
  version: number;
  removed: boolean;
  attrs?: unknown;
}

/** The view a test consumer writes: one line per object, attributes only where it holds some live. */
export function viewOf(held: ReadonlyMap<string, Held>): ConsumerView {
  const records = new Map();
  for (const [uri, state] of held) {
    const line: Record<string, unknown> = { uri, removed: state.removed, objectVersion: state.version };
    if (!state.removed && state.attrs !== undefined) line.attributes = state.attrs;
    records.set(uri, parseViewLine(JSON.stringify(line), records.size + 1));
  }
  return { records, lines: records.size };
}

type Message = ConsumerStream["messages"][number];

/**
 * Arrival order: unlisted and activity types skipped, a message of an objectVersion not above the held one
 * skipped, removals marked. `uriOf` names the object (the header by default; undefined skips the message);
 * `attrsOf` gives the attributes after a change, from what was held live before (undefined after a removal).
 */
export function foldInArrivalOrder(
  s: ConsumerStream,
  attrsOf: (m: Message, known: unknown) => unknown,
  uriOf: (m: Message) => unknown = (m) => m.headers.sourceObjectUri,
): ConsumerView {
  const held = new Map<string, Held>();
  for (const m of s.messages) {
    const uri = uriOf(m);
    if (typeof uri !== "string") continue;
    const type = String(m.headers.eventType);
    const version = Number(m.headers.objectVersion);
    if (isUnlisted(type) || type.startsWith("ACTIVITY_")) continue;
    const current = held.get(uri);
    if (current && version <= current.version) continue;
    if (REMOVALS.test(type)) held.set(uri, { version, removed: true });
    else
      held.set(uri, {
        version,
        removed: false,
        attrs: attrsOf(m, current?.removed ? undefined : current?.attrs),
      });
  }
  return viewOf(held);
}
