// The stream an event consumer is checked with, and its known truth: a seeded stream of the event
// generator (src/events/generate) shaped by one producer choice the document leaves open, and, for every
// object it is about, each message in delivery order with its objectVersion, event type and what it says
// of the object. The judge (consumer-judge.ts) compares the consumer's view with this truth.

import { closeSync, openSync, writeSync } from "node:fs";
import { canonicalJson } from "../check/canonical-json.ts";
import { listedEventTypes } from "../event-schemas.ts";
import { generateStream, Random } from "../generate/index.ts";
import type { ProducerChoice } from "./producer-choices.ts";

/** One message as delivered: the headers and the parsed payload (the NDJSON line {"headers", "payload"}). */
export interface DeliveredMessage {
  headers: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** What one delivered message says about its object. */
export interface TruthEntry {
  /** 0-based place in delivery order. */
  position: number;
  /** The objectVersion the producer gave the message (known to the kit even where the header is left out). */
  version: number;
  type: string;
  kind: "snapshot" | "deltas" | "fallback" | "name-only" | "unlisted";
  /** An event type of the document's lists (the table or the unsupported list). */
  listed: boolean;
  /** Its type removes the object (ENTITY_REMOVED, _GDPR, ENTITY_LOST_MERGE, relationship, interaction and
   *  change request removals). */
  removes: boolean;
  gdpr: boolean;
  /** Canonical JSON of object.attributes of a snapshot; null when the snapshot's object has none. */
  attributes?: string | null;
  /** object.attributes serialized as sent (JSON.stringify): a view that copied them matches it at once. */
  attributesText?: string | null;
  /** updatedTime of the snapshot's object or the deltas' timestamp: what a consumer ordering by time reads. */
  timestamp?: number;
  /** An exact re-send of a message delivered before. */
  resend: boolean;
  /** The message carries a header or payload field the document does not define. */
  unknownFields: boolean;
}

export interface TruthObject {
  uri: string;
  /** Every message about the object, in delivery order. */
  entries: TruthEntry[];
  /** The message of the highest objectVersion among those of listed types: the latest state. */
  winner: TruthEntry;
}

export interface ConsumerStream {
  choice: ProducerChoice;
  seed: number;
  /** The messages in delivery order (of a kept stream, parsed from its file when first asked for). */
  messages: DeliveredMessage[];
  messageCount: number;
  objects: Map<string, TruthObject>;
  /** Objects of another tenant whose messages the destination carried too (shared-destination). */
  otherTenantObjects: Map<string, TruthObject>;
  /** Position of the first message of a type in neither of the document's lists, if any, and its type. */
  firstUnlisted?: number;
  firstUnlistedType?: string;
}

/** One delivered message as a line of the stream's NDJSON file (and of stdin). */
export function messageLine(message: DeliveredMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/** Writes the messages to `path` as NDJSON, a megabyte at a time: one string per line and one write per
 *  line both cost more than the serializing itself. */
export function writeStreamFile(path: string, messages: readonly DeliveredMessage[]): void {
  const fd = openSync(path, "w");
  try {
    let chunk = "";
    for (const message of messages) {
      chunk += messageLine(message);
      if (chunk.length >= 1 << 20) {
        writeSync(fd, chunk);
        chunk = "";
      }
    }
    if (chunk) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

/** Types whose event removes its object. */
export const REMOVAL_TYPES: ReadonlySet<string> = new Set([
  "ENTITY_REMOVED",
  "ENTITY_REMOVED_GDPR",
  "ENTITY_LOST_MERGE",
  "RELATIONSHIP_REMOVED",
  "RELATIONSHIP_REMOVED_GDPR",
  "RELATION_LOST_MERGE",
  "INTERACTION_REMOVED",
  "CHANGE_REQUEST_REMOVED",
  "GROUP_REMOVED",
]);
const GDPR_TYPES: ReadonlySet<string> = new Set(["ENTITY_REMOVED_GDPR", "RELATIONSHIP_REMOVED_GDPR"]);

/** A header and a payload field the document does not define, as other producers add them (a trace
 *  context over AMQP, a schema marker): a consumer takes them and goes on. */
export const UNKNOWN_HEADER = "traceparent";
export const UNKNOWN_PAYLOAD_FIELD = "schemaRevision";

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The generator's stream for a producer choice, shaped and delivered, with its truth. */
export function consumerStream(choice: ProducerChoice, seed: number, count: number): ConsumerStream {
  const generated = generateStream({
    seed,
    count,
    payloadType: choice.payloadType,
    reorderWindow: choice.reorderWindow,
    duplicates: choice.duplicates,
    largeObjects: choice.largeObjects,
    variety: true,
    payloads: true,
    // Loser relations of a merge: RELATION_LOST_MERGE, a removal a consumer may not know to be one.
    relationMerges: true,
  });
  const random = new Random(seed ^ 0x5bd1e995);
  // The body is read only where the generator kept no payload object: reading it serializes it.
  const shaped = generated.messages.map((message) => ({
    headers: message.headers,
    payload: message.payload ?? (JSON.parse(message.body) as Record<string, unknown>),
  }));
  const configured =
    choice.filteringFields === "attributes-left-out-halfway"
      ? attributesLeftOut(shaped)
      : choice.filteringFields === "uri-left-out"
        ? uriLeftOut(shaped)
        : shaped;
  const withResends = unlistedAfterLast(
    choice.duplicates > 0 ? lateResends(resendRemovals(configured, random), random) : configured,
    new Random(seed ^ 0x1b873593),
  );
  const delivered =
    choice.otherTenant > 0
      ? withOtherTenant(withResends, choice, seed, Math.round(count * choice.otherTenant))
      : withResends;
  const messages = delivered.map((message) => shape(message, choice));
  // The truth is made when first asked for: a check delivers the messages first and asks while the
  // consumer runs.
  let truth: Truth | undefined;
  const truthNow = () => {
    truth ??= truthOf(delivered, choice);
    return truth;
  };
  return {
    choice,
    seed,
    messages,
    messageCount: messages.length,
    get objects() {
      return truthNow().objects;
    },
    get otherTenantObjects() {
      return truthNow().otherTenantObjects;
    },
    get firstUnlisted() {
      return truthNow().firstUnlisted;
    },
    get firstUnlistedType() {
      return truthNow().firstUnlistedType;
    },
  };
}

/** The tenant of the other messages a shared destination carries. */
export const OTHER_TENANT = "globex";

/** A destination shared with another tenant: `count` messages of that tenant's own stream (a world of its
 *  own, objects of its own), spread evenly among the consumer's tenant's. */
function withOtherTenant(
  messages: DeliveredMessage[],
  choice: ProducerChoice,
  seed: number,
  count: number,
): DeliveredMessage[] {
  const other = generateStream({
    seed: seed ^ 0x68e31da4,
    count,
    tenantId: OTHER_TENANT,
    payloadType: choice.payloadType,
    reorderWindow: choice.reorderWindow,
    largeObjects: choice.largeObjects,
    variety: true,
    payloads: true,
  }).messages.map((message) => ({
    headers: message.headers,
    payload: message.payload ?? (JSON.parse(message.body) as Record<string, unknown>),
  }));
  const out: DeliveredMessage[] = [];
  let next = 0;
  messages.forEach((message, index) => {
    while (next < other.length && (next + 1) * messages.length <= (index + 1) * (other.length + 1)) {
      out.push(other[next] as DeliveredMessage);
      next += 1;
    }
    out.push(message);
  });
  out.push(...other.slice(next));
  return out;
}

/** The streaming configuration changed halfway: JMSEventsFilteringFields lists the fields an entity's
 *  object keeps (uri, type, the update's who and when, crosswalks), attributes not among them, so the
 *  entity snapshots of the stream's second half carry no attributes. The object is not empty (the
 *  document: it cannot be). Before the re-sends are made: a re-send is a copy of what was sent. */
function attributesLeftOut(messages: DeliveredMessage[]): DeliveredMessage[] {
  const from = Math.floor(messages.length / 2);
  return messages.map((message, index) => {
    const object = record(message.payload.object);
    if (index < from || !object || !String(object.uri).startsWith("entities/")) return message;
    const { uri, type, updatedBy, updatedTime, crosswalks } = object;
    return {
      ...message,
      payload: { ...message.payload, object: { uri, type, updatedBy, updatedTime, crosswalks } },
    };
  });
}

/** The filtering properties list every field but uri (uri is one of their common fields, listed or not
 *  like the others): no snapshot's object names itself, the sourceObjectUri header does. The object keeps
 *  its other fields, so it is not empty. A deltas message's and a fallback's own uri are not the object's
 *  fields: they stay. */
function uriLeftOut(messages: DeliveredMessage[]): DeliveredMessage[] {
  return messages.map((message) => {
    const object = record(message.payload.object);
    if (!object || !("uri" in object)) return message;
    const { uri: _left, ...rest } = object;
    return { ...message, payload: { ...message.payload, object: rest } };
  });
}

/** The messages with copies inserted after the positions `after` names, in one pass. */
function withCopies(
  messages: DeliveredMessage[],
  after: Map<number, DeliveredMessage[]>,
): DeliveredMessage[] {
  const out: DeliveredMessage[] = [];
  messages.forEach((message, index) => {
    out.push(message);
    for (const copy of after.get(index) ?? []) out.push(copy);
  });
  return out;
}

function addCopy(after: Map<number, DeliveredMessage[]>, at: number, message: DeliveredMessage): void {
  const list = after.get(at);
  if (list) list.push(message);
  else after.set(at, [message]);
}

/** Removals re-sent a few places later now and then, so that a stream with re-sends has re-sent removals
 *  (the re-send a toggling consumer gets wrong). Exact copies: at-least-once delivery, nothing else. */
function resendRemovals(messages: DeliveredMessage[], random: Random): DeliveredMessage[] {
  const after = new Map<number, DeliveredMessage[]>();
  messages.forEach((message, index) => {
    if (!REMOVAL_TYPES.has(String(message.headers.eventType)) || !random.chance(0.3)) return;
    addCopy(after, Math.min(messages.length - 1, index + random.int(0, 3)), message);
  });
  return withCopies(messages, after);
}

/** Now and then a message sent again after a later message of its object (a redelivery after a failover
 *  arrives late): the re-send a consumer that lets the last arrival win takes for the latest state. */
function lateResends(messages: DeliveredMessage[], random: Random): DeliveredMessage[] {
  const byUri = new Map<string, number[]>();
  messages.forEach((message, index) => {
    const uri = String(message.headers.sourceObjectUri);
    const list = byUri.get(uri);
    if (list) list.push(index);
    else byUri.set(uri, [index]);
  });
  const after = new Map<number, DeliveredMessage[]>();
  for (const positions of byUri.values()) {
    if (positions.length < 2 || !random.chance(0.15)) continue;
    const pick = random.int(0, positions.length - 2);
    const next = positions[pick + 1] as number;
    const at = Math.min(messages.length - 1, next + random.int(0, 2));
    addCopy(after, at, messages[positions[pick] as number] as DeliveredMessage);
  }
  return withCopies(messages, after);
}

/** Types in neither of the document's lists, as other producers send them (a merge that failed, a review,
 *  a workflow task): the document says nothing of them, so a consumer acts on none. */
const UNLISTED_TYPES = ["ENTITY_MERGE_FAILED", "POTENTIAL_MATCH_REVIEWED", "WORKFLOW_TASK_ASSIGNED"];

/** Now and then an entity's last message is of an unlisted type, its objectVersion raised past the
 *  entity's last change (the generator raises it for ENTITY_MERGE_FAILED too), live or removed: the
 *  opportunity where a consumer that acts on such a type changes its view (revives the entity, empties its
 *  attributes). Not after a GDPR removal: the document says only ENTITY_CREATED and ENTITY_REMOVED_GDPR
 *  follow one. A random of its own: the other draws of the stream stay as they were. */
function unlistedAfterLast(messages: DeliveredMessage[], random: Random): DeliveredMessage[] {
  const last = new Map<string, { index: number; version: number; gdpr: boolean }>();
  messages.forEach((message, index) => {
    const uri = String(message.headers.sourceObjectUri);
    if (!uri.startsWith("entities/")) return;
    const version = Number(message.headers.objectVersion);
    const seen = last.get(uri);
    last.set(uri, {
      index,
      version: Math.max(version, seen?.version ?? 0),
      gdpr: (seen?.gdpr ?? false) || GDPR_TYPES.has(String(message.headers.eventType)),
    });
  });
  const after = new Map<number, DeliveredMessage[]>();
  for (const [uri, { index, version, gdpr }] of last) {
    if (gdpr || !random.chance(0.1)) continue;
    const type = random.pick(UNLISTED_TYPES);
    const headers = {
      ...(messages[index] as DeliveredMessage).headers,
      eventType: type,
      objectVersion: version + 1,
    };
    const payload = { type, uri, details: { reason: "reported by another service" } };
    addCopy(after, Math.min(messages.length - 1, index + random.int(0, 3)), { headers, payload });
  }
  return withCopies(messages, after);
}

/** Deterministic per (object, version): a re-send keeps exactly what the first sending carried. */
function carriesUnknownFields(uri: string, version: number): boolean {
  let hash = version * 2654435761;
  for (let i = 0; i < uri.length; i += 1) hash = Math.imul(hash ^ uri.charCodeAt(i), 16777619);
  return (hash >>> 0) % 10 === 0;
}

/** The message as the producer choice sends it: objectVersion as a number, a string of digits or not at
 *  all; deltas in one legal shape; fallbacks with their URI in the header only; fields of no definition. */
function shape(message: DeliveredMessage, choice: ProducerChoice): DeliveredMessage {
  const version = Number(message.headers.objectVersion);
  const uri = String(message.headers.sourceObjectUri);
  const unknownFields = carriesUnknownFields(uri, version);
  // Copied only where this choice changes them: the generator's headers are its own, and most stay as made.
  const headers =
    choice.objectVersion === "number" && !unknownFields ? message.headers : { ...message.headers };
  if (choice.objectVersion === "absent") delete headers.objectVersion;
  else if (choice.objectVersion === "string") headers.objectVersion = String(version);
  let payload = message.payload;
  if (choice.deltasShape !== "any" && record(payload.deltas))
    payload = { ...payload, deltas: deltasIn(choice.deltasShape, payload, headers) };
  if (choice.fallbackUri === "header-only" && payload.exceededQueueSizeLimit === true && "uri" in payload) {
    const { uri: _dropped, ...rest } = payload;
    payload = rest;
  }
  if (unknownFields) {
    headers[UNKNOWN_HEADER] =
      `00-${uri.replace(/\W/g, "").padEnd(32, "0").slice(0, 32)}-${String(version).padStart(16, "0")}-01`;
    payload = { ...payload, [UNKNOWN_PAYLOAD_FIELD]: 2 };
  }
  return { headers, payload };
}

/** The deltas member in one of its legal shapes (the document shows its structure nowhere). */
function deltasIn(
  shapeName: "message" | "collection" | "other",
  payload: Record<string, unknown>,
  headers: Record<string, unknown>,
): Record<string, unknown> {
  const deltas = record(payload.deltas) ?? {};
  const collection = record(deltas.deltaCollection) ??
    (Array.isArray(deltas.delta) ? deltas : undefined) ?? { ovChanged: false, delta: [] };
  const items = Array.isArray(collection.delta) ? (collection.delta as unknown[]) : [];
  if (shapeName === "collection") return collection;
  if (shapeName === "other")
    return {
      changes: items.length,
      attributes: items.map((item) => record(item)?.attributeType),
    };
  if ("deltaCollection" in deltas) return deltas;
  const type = String(payload.type);
  const uri = String(headers.sourceObjectUri);
  return {
    id: `d${String(headers.objectVersion)}`,
    user: "svc-integration",
    method: type.endsWith("_CREATED") ? "POST" : type.includes("REMOVED") ? "DELETE" : "PUT",
    url: `/${uri}`,
    clientType: "API",
    timestamp: 0,
    objectUri: uri,
    objectType: "",
    objectLabel: uri,
    data: { type },
    deltaCollection: collection,
    eventId: `e${String(headers.objectVersion)}`,
    itemsTotal: items.length,
  };
}

/** The deltas' timestamp as the choice delivers it (deltasIn): the delta message made from another shape
 *  carries 0, the bare collection and the other object none: what a consumer ordering by time reads. */
function deliveredTimestamp(deltas: Record<string, unknown>, choice: ProducerChoice): number | undefined {
  const sent = typeof deltas.timestamp === "number" ? deltas.timestamp : undefined;
  if (choice.deltasShape === "message") return "deltaCollection" in deltas ? sent : 0;
  if (choice.deltasShape === "collection" || choice.deltasShape === "other") return undefined;
  return sent;
}

function entryOf(
  message: DeliveredMessage,
  position: number,
  seen: Set<string>,
  choice: ProducerChoice,
): TruthEntry {
  const { headers, payload } = message;
  const type = String(headers.eventType ?? payload.type);
  const version = Number(headers.objectVersion);
  const uri = String(headers.sourceObjectUri);
  const isListed = listedEventTypes().has(type);
  const object = record(payload.object);
  const deltas = record(payload.deltas);
  const kind: TruthEntry["kind"] = !isListed
    ? "unlisted"
    : payload.exceededQueueSizeLimit === true
      ? "fallback"
      : object
        ? "snapshot"
        : deltas
          ? "deltas"
          : "name-only";
  const key = `${uri}\u0000${version}`;
  const resend = seen.has(key);
  seen.add(key);

  const timestamp =
    typeof object?.updatedTime === "number"
      ? object.updatedTime
      : deltas
        ? deliveredTimestamp(deltas, choice)
        : undefined;
  return new Entry(
    position,
    version,
    type,
    kind,
    isListed,
    isListed && REMOVAL_TYPES.has(type),
    GDPR_TYPES.has(type),
    timestamp,
    resend,
    carriesUnknownFields(uri, version),
    object,
  );
}

/** Reads a message's object when first asked for (a kept stream's file): one for all of a stream's
 *  entries, not one closure each. */
export abstract class ObjectLoader {
  abstract objectAt(position: number): Record<string, unknown> | undefined;
}

/** Where a snapshot entry's object is: at hand, or with a loader that reads it when first asked for. */
export type ObjectSource = Record<string, unknown> | ObjectLoader;

/** A truth entry. A snapshot's attribute texts are made only when the judge asks: most messages are never
 *  compared. */
export class Entry implements TruthEntry {
  // Made on first use; null is a made value (the object has no attributes).
  #attributes: string | null | undefined;
  #attributesText: string | null | undefined;
  readonly timestamp?: number;

  constructor(
    readonly position: number,
    readonly version: number,
    readonly type: string,
    readonly kind: TruthEntry["kind"],
    readonly listed: boolean,
    readonly removes: boolean,
    readonly gdpr: boolean,
    timestamp: number | undefined,
    readonly resend: boolean,
    readonly unknownFields: boolean,
    private source: ObjectSource | undefined,
  ) {
    if (timestamp !== undefined) this.timestamp = timestamp;
  }

  /** Gives the attributes as sent ahead (a kept truth carries them for the states a judge compares
   *  first); their canonical text is made from it when asked for. */
  knownAttributes(text: string | null): void {
    this.#attributesText = text;
  }

  get hasObject(): boolean {
    return this.source !== undefined;
  }

  /** The snapshot's object, if the message carried one. */
  get object(): Record<string, unknown> | undefined {
    if (this.source instanceof ObjectLoader) this.source = this.source.objectAt(this.position);
    return this.source;
  }

  get attributes(): string | null | undefined {
    if (this.#attributes !== undefined) return this.#attributes;
    // Known as sent and not yet read from a kept file: made from that text, the file left unread.
    if (this.#attributesText !== undefined && this.source instanceof ObjectLoader) {
      const text = this.#attributesText;
      this.#attributes = text === null ? null : canonicalJson(JSON.parse(text));
      return this.#attributes;
    }
    const object = this.object;
    if (!object) return undefined;
    this.#attributes = "attributes" in object ? canonicalJson(object.attributes) : null;
    return this.#attributes;
  }

  get attributesText(): string | null | undefined {
    if (this.#attributesText !== undefined) return this.#attributesText;
    const object = this.object;
    if (!object) return undefined;
    this.#attributesText = "attributes" in object ? JSON.stringify(object.attributes) : null;
    return this.#attributesText;
  }
}

export interface Truth {
  objects: Map<string, TruthObject>;
  otherTenantObjects: Map<string, TruthObject>;
  firstUnlisted?: number;
  firstUnlistedType?: string;
}

/** The objects of a stream's entries (each with its latest state), in order of first appearance. */
export function truthObjects(byUri: Map<string, TruthEntry[]>): Map<string, TruthObject> {
  const objects = new Map<string, TruthObject>();
  for (const [uri, entries] of byUri) {
    let winner: TruthEntry | undefined;
    for (const entry of entries)
      if (entry.listed && (!winner || entry.version > winner.version)) winner = entry;
    if (winner) objects.set(uri, { uri, entries, winner });
  }
  return objects;
}

function truthOf(messages: DeliveredMessage[], choice: ProducerChoice): Truth {
  const byUri = new Map<string, TruthEntry[]>();
  const other = new Map<string, TruthEntry[]>();
  const seen = new Set<string>();
  let first: TruthEntry | undefined;
  messages.forEach((message, position) => {
    const uri = String(message.headers.sourceObjectUri);
    const entry = entryOf(message, position, seen, choice);
    const mine = message.headers.tenantId !== OTHER_TENANT;
    if (mine && !entry.listed) first ??= entry;
    const into = mine ? byUri : other;
    const list = into.get(uri);
    if (list) list.push(entry);
    else into.set(uri, [entry]);
  });
  return {
    objects: truthObjects(byUri),
    otherTenantObjects: truthObjects(other),
    ...(first === undefined ? {} : { firstUnlisted: first.position, firstUnlistedType: first.type }),
  };
}
