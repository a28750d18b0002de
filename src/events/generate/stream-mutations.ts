// The invalid messages of a generated stream: the checker's named mutations (mutations.ts) that fit a
// stream sent over a transport, each started from a fresh valid message of the world.

import { type PayloadKind, payloadKindsOf } from "../payload-kind.ts";
import { mutations as checkerMutations, type Mutation } from "./mutations.ts";
import { Random } from "./random.ts";
import type { PayloadType } from "./stream-options.ts";
import { StreamWorld } from "./stream-world.ts";
import type { Draft } from "./world-objects.ts";

/** Builds messages of which exactly the last breaks `rule`; the others (if any) are a valid lead-in. */
export interface StreamMutation {
  /** The checker's mutation name (src/events/generate/mutations.ts). */
  name: string;
  rule: string;
  /** How many messages build() returns (the invalid one last). */
  messages: number;
  /** Streams it fits: a snapshot-only break in a deltas stream would also break payloadType. */
  streams: readonly PayloadType[];
  build(world: StreamWorld): Draft[];
}

const payloadTypes: readonly PayloadType[] = ["snapshot", "deltas", "mixed"];

/** Kinds a stream of a payload type carries (large-object fallbacks in all: largeObjectsSupport is on). */
const kindsIn: Record<PayloadType, readonly PayloadKind[]> = {
  snapshot: ["snapshot", "large-object", "name-only"],
  deltas: ["deltas", "large-object", "name-only"],
  mixed: ["snapshot", "deltas", "large-object", "name-only"],
};

const generatedTypes = [
  "ENTITY_CREATED",
  "ENTITY_CHANGED",
  "ENTITY_REMOVED",
  "ENTITY_REMOVED_GDPR",
  "ENTITY_LOST_MERGE",
  "ENTITIES_SPLITTED",
  "ENTITIES_MATCHES_CHANGED",
  "ENTITY_BUSINESS_PROCESS_CHANGED",
  "RELATIONSHIP_CREATED",
  "RELATIONSHIP_CHANGED",
  "RELATIONSHIP_REMOVED",
  "RELATIONSHIP_REMOVED_GDPR",
  "RELATIONSHIP_MERGED",
  "RELATION_LOST_MERGE",
  "INTERACTION_CREATED",
  "INTERACTION_CHANGED",
  "INTERACTION_REMOVED",
  "CHANGE_REQUEST_CREATED",
  "CHANGE_REQUEST_CHANGED",
  "CHANGE_REQUEST_REMOVED",
];

function kindsOfType(type: string): readonly PayloadKind[] {
  return payloadKindsOf(type.startsWith("CHANGE_REQUEST_") ? "change-request" : "entity");
}

/**
 * Mutations of the checker that do not fit a stream sent over a transport: "payload is an array" breaks
 * the NDJSON envelope; over AMQP the body itself is the payload, so the message breaks another rule. A
 * bare fallback without uri is invalid only without headers: over a transport sourceObjectUri carries it.
 */
const envelopeOnly = new Set(["payload is an array", "large-object fallback without uri (bare payload)"]);

/** The (type, kind) pairs a mutation can start from in a stream of a payload type. */
function startsOf(mutation: Mutation, stream: PayloadType): { type: string; kind: PayloadKind }[] {
  const types = (mutation.from.types ?? generatedTypes).filter((type) => generatedTypes.includes(type));
  const starts: { type: string; kind: PayloadKind }[] = [];
  for (const type of types)
    for (const kind of kindsOfType(type))
      if (kindsIn[stream].includes(kind) && (mutation.from.kinds ?? [kind]).includes(kind))
        starts.push({ type, kind });
  return starts;
}

/** One NDJSON line of a mutation as a transport message: the envelope's headers and payload, or the raw text. */
function asDraft(line: string, fallbackHeaders: Record<string, unknown>): Draft {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === "object" && "payload" in parsed) {
    const envelope = parsed as { headers?: Record<string, unknown>; payload: unknown };
    const headers = envelope.headers ?? {};
    const type = typeof headers.eventType === "string" ? headers.eventType : "(none)";
    return { headers, body: JSON.stringify(envelope.payload), type };
  }
  const type = typeof fallbackHeaders.eventType === "string" ? fallbackHeaders.eventType : "(none)";
  return { headers: fallbackHeaders, body: line, type };
}

/** The checker's named mutations (src/events/generate/mutations.ts) that fit generated streams, as stream mutations. */
function adapt(mutation: Mutation): StreamMutation | undefined {
  // Mutations that need their own streaming configuration, or only warn, do not fit one stream's manifest.
  if (mutation.config || mutation.severity !== "error" || envelopeOnly.has(mutation.name)) return undefined;
  const streams = payloadTypes.filter((stream) => startsOf(mutation, stream).length > 0);
  if (streams.length === 0) return undefined;
  const build = (world: StreamWorld): Draft[] => {
    const start = world.random.pick(startsOf(mutation, world.payloadType()));
    const message = world.freshMessage(start.type, start.kind);
    const drafts = mutation.apply(message).map((line) => asDraft(line, message.headers));
    return drafts.map((draft, index) =>
      index === drafts.length - 1
        ? { ...draft, invalid: { rule: mutation.rule, description: mutation.name }, pinned: index > 0 }
        : { ...draft, pinned: index > 0 },
    );
  };
  // How many messages it makes, from a sample in a world of its own (the count does not depend on the seed).
  const stream = streams[0] ?? "snapshot";
  const sample = build(new StreamWorld(new Random(0), "sample", { payloadType: stream, largeObjects: 0 }));
  return { name: mutation.name, rule: mutation.rule, messages: sample.length, streams, build };
}

let adapted: StreamMutation[] | undefined;

/** The mutations generated streams draw invalid messages from: the checker's own, one named rule each. */
export function streamMutations(): readonly StreamMutation[] {
  adapted ??= checkerMutations.map(adapt).filter((m): m is StreamMutation => m !== undefined);
  return adapted;
}

// ---------------------------------------------------------------------------------------------- stream
