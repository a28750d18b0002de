// Checks one event message on its own: reads it (../check/read-message.ts), then runs the judge of every
// event rule that reads one message (../rules/), in their declared order.

import { type EventProblem, type RequirementProblem, safeProblem } from "../check/event-problem.ts";
import type { MessageFacts } from "../check/message-facts.ts";
import { type CheckOptions, type InspectFor, readMessage } from "../check/read-message.ts";
import { payloadUriOf } from "../rules/headers.ts";
import { eventFinding, MESSAGE_JUDGES, type MessageJudge, STOP } from "../rules/index.ts";
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

/** How many messages each part of the check judged (the rules' opportunities, counted as they come). */
export interface JudgedMessages {
  /** Messages read as a JSON object: what the schemas and the stream rules judge. */
  read: number;
  /** Per rule that reads one message, in MESSAGE_RULES order: the messages its judge ran on. */
  byJudge: number[];
}

export function judgedMessages(): JudgedMessages {
  return { read: 0, byJudge: MESSAGE_JUDGES.map(() => 0) };
}

export function inspectMessage(
  raw: RawMessage,
  options: CheckOptions = {},
  wanted: InspectFor = {},
  /** Counts what the rules judged, when given (checkStream's opportunities). */
  judged?: JudgedMessages,
): InspectedMessage {
  const problems: RequirementProblem[] = [];
  const message = readMessage(raw, problems, options, wanted);
  if (!message) return { problems: findingsOf(problems), facts: {} };
  if (judged) judged.read += 1;
  for (let index = 0; index < MESSAGE_JUDGES.length; index += 1) {
    if (judged) judged.byJudge[index] = (judged.byJudge[index] as number) + 1;
    if ((MESSAGE_JUDGES[index] as MessageJudge)(message, problems) === STOP) {
      // Only a payload of an unsupported type stops with its type known.
      const payload = message.payload as { type?: unknown } | null;
      const type = payload !== null && typeof payload === "object" ? payload.type : undefined;
      return { problems: findingsOf(problems), facts: typeof type === "string" ? { type } : {} };
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
  return { problems: findingsOf(problems), facts };
}

/** Every problem of one message on its own (no stream rules). `raw` may be the body text alone. */
export function checkMessage(raw: RawMessage | string, options: CheckOptions = {}): EventProblem[] {
  const message = typeof raw === "string" ? { position: "message", body: raw } : raw;
  return inspectMessage(message, options).problems.map(safeProblem);
}

/** The findings of a message's problems; most messages have none, and their empty list is returned as it
 *  is (an empty list of problems is an empty list of findings), so a valid message allocates nothing more. */
function findingsOf(problems: RequirementProblem[]): EventProblem[] {
  return problems.length === 0 ? (problems as never[]) : problems.map(eventFinding);
}
