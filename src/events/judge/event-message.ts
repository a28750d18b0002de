// Checks one event message on its own: reads it (../check/read-message.ts), then runs the judge of every
// event rule that reads one message (../rules/), in their declared order.

import { type EventProblem, safeProblem } from "../check/event-problem.ts";
import type { MessageFacts } from "../check/message-facts.ts";
import { type CheckOptions, type InspectFor, readMessage } from "../check/read-message.ts";
import { payloadUriOf } from "../rules/headers.ts";
import { MESSAGE_JUDGES, type MessageJudge, STOP } from "../rules/index.ts";
import type { RawMessage } from "../transport/transport.ts";

export {
  type CheckOptions,
  defaultMaxDepth,
  type FoundPayloadKind,
  type InspectFor,
  nestingExceeds,
  ovChangedTypes,
  payloadKindOf,
} from "../check/read-message.ts";
export type { MessageFacts };

export interface InspectedMessage {
  problems: EventProblem[];
  facts: MessageFacts;
}

export function inspectMessage(
  raw: RawMessage,
  options: CheckOptions = {},
  wanted: InspectFor = {},
): InspectedMessage {
  const problems: EventProblem[] = [];
  const message = readMessage(raw, problems, options, wanted);
  if (!message) return { problems, facts: {} };
  for (let index = 0; index < MESSAGE_JUDGES.length; index += 1) {
    if ((MESSAGE_JUDGES[index] as MessageJudge)(message, problems) === STOP) {
      // Only a payload of an unsupported type stops with its type known.
      const payload = message.payload as { type?: unknown } | null;
      const type = payload !== null && typeof payload === "object" ? payload.type : undefined;
      return { problems, facts: typeof type === "string" ? { type } : {} };
    }
  }
  const facts: MessageFacts = {};
  const typed = message.typed;
  if (typed) {
    facts.type = typed.type;
    facts.kind = typed.kind;
    const source = message.headerRecord?.sourceObjectUri;
    const payloadUri = payloadUriOf(typed);
    facts.uri = typeof source === "string" ? source : typeof payloadUri === "string" ? payloadUri : undefined;
    const version = message.headerRecord?.objectVersion;
    if (typeof version === "number" && Number.isInteger(version)) facts.objectVersion = version;
    facts.payload = typed.payload;
    if (message.walk.fingerprint !== undefined) facts.fingerprint = message.walk.fingerprint;
  }
  return { problems, facts };
}

/** Every problem of one message on its own (no stream rules). `raw` may be the body text alone. */
export function checkMessage(raw: RawMessage | string, options: CheckOptions = {}): EventProblem[] {
  const message = typeof raw === "string" ? { position: "message", body: raw } : raw;
  return inspectMessage(message, options).problems.map(safeProblem);
}
