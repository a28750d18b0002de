// What state of an object a view record holds: whether it is the state one message of the stream left
// (its removal, its objectVersion, its attributes), and which message that is. The consumer rules read it.

import { canonicalJson } from "../check/canonical-json.ts";
import {
  type ConsumerStream,
  type TruthEntry,
  type TruthObject,
  UNKNOWN_HEADER,
  UNKNOWN_PAYLOAD_FIELD,
} from "./consumer-stream.ts";
import { canonicalAttributes, type ViewRecord } from "./consumer-view.ts";
import { deltasGaps } from "./deltas-state.ts";

export interface JudgeContext {
  stream: ConsumerStream;
  /** The stream carries objectVersion: the view's objectVersion is judged and the order rule applies. */
  versioned: boolean;
  /** Snapshot streams: the attributes the view gives are judged (the document leaves deltas open). */
  judgesAttributes: boolean;
}

/** One object of the stream as the view holds it. */
export interface ObjectCase {
  object: TruthObject;
  record: ViewRecord;
}

/** The snapshots before a large-object fallback that carried an object: a view may keep the attributes
 *  of any of them after the fallback, which carries none. */
export function snapshotsBefore(object: TruthObject, entry: TruthEntry): TruthEntry[] {
  return object.entries.filter(
    (e) => e.kind === "snapshot" && e.version < entry.version && e.attributesText !== undefined,
  );
}

/** Fields of the stream's messages that the document does not define, by name, that the record's
 *  attributes hold: a consumer that copied them there. */
export function unknownFieldsKept(record: ViewRecord): string[] {
  const value = record.attributesValue;
  if (value === null || typeof value !== "object") return [];
  return [UNKNOWN_HEADER, UNKNOWN_PAYLOAD_FIELD].filter((name) => name in value);
}

const withoutUnknown = new WeakMap<ViewRecord, ViewRecord>();

/** The record with those fields set aside: the order, removal and re-send rules judge what it holds of
 *  the object's own attributes; the unknown-fields rule reports the fields copied among them. */
function ownAttributes(record: ViewRecord): ViewRecord {
  const kept = unknownFieldsKept(record);
  if (kept.length === 0) return record;
  let own = withoutUnknown.get(record);
  if (!own) {
    const rest = Object.fromEntries(
      Object.entries(record.attributesValue as object).filter(([name]) => !kept.includes(name)),
    );
    own = {
      ...record,
      attributes: JSON.stringify(rest),
      attributesValue: rest,
      attributesEmpty: Object.keys(rest).length === 0,
    };
    withoutUnknown.set(record, own);
  }
  return own;
}

/** The record's attributes are those of the snapshot `entry` (compared as sent first, then as data). */
function sameAttributes(record: ViewRecord, entry: TruthEntry): boolean {
  // The text as sent first: the canonical one is made only where the texts differ.
  if (entry.attributesText === null) return record.attributesEmpty === true;
  return record.attributes === entry.attributesText || canonicalAttributes(record) === entry.attributes;
}

/** The object's attributes as the snapshot gave them, other than none or an empty set. */
function givesAttributes(entry: TruthEntry): boolean {
  const text = entry.attributesText;
  return text !== null && text !== undefined && text !== "{}";
}

/** A snapshot whose object has no attributes member: the streaming configuration (JMSEventsFilteringFields)
 *  did not list them. It says nothing of the attributes: a member filtered out is not removed. */
export function leavesAttributesOut(entry: TruthEntry): boolean {
  return entry.kind === "snapshot" && entry.attributesText === null;
}

/** The snapshots of an older objectVersion that gave attributes and arrived before `entry`, since the
 *  object's last removal below it: what a consumer had to keep when `entry` (a large-object fallback, a
 *  snapshot that leaves attributes out) gave none. After a removal the object starts again: a
 *  re-creation that gives no attributes leaves nothing to keep. */
export function attributesGivenBefore(object: TruthObject, entry: TruthEntry): TruthEntry[] {
  let removal = -1;
  for (const e of object.entries)
    if (e.listed && e.removes && e.version < entry.version && e.version > removal) removal = e.version;
  return snapshotsBefore(object, entry).filter(
    (e) => e.version > removal && e.position < entry.position && givesAttributes(e),
  );
}

/** A message that gives no attributes (a large-object fallback, a snapshot that leaves them out) may leave
 *  the view with none (or an empty set) when no snapshot of an older objectVersion that gave attributes had
 *  arrived before it: there was nothing to keep. Replacing attributes an earlier snapshot gave with nothing
 *  is a loss. */
export function fallbackLosesAttributes(object: TruthObject, entry: TruthEntry): boolean {
  return attributesGivenBefore(object, entry).length > 0;
}

/** After a message that gives no attributes, the view keeps those of a snapshot of an older objectVersion
 *  (any of them: which one a consumer ordering by objectVersion still has depends on arrival, and the
 *  document is silent), or none where no earlier one had given any. */
function keepsEarlierAttributes(record: ViewRecord, object: TruthObject, entry: TruthEntry): boolean {
  return (
    snapshotsBefore(object, entry).some((e) => e.attributesText !== null && sameAttributes(record, e)) ||
    (record.attributesEmpty === true && !fallbackLosesAttributes(object, entry))
  );
}

function attributesFit(given: ViewRecord, object: TruthObject, entry: TruthEntry): boolean {
  if (given.attributes === undefined || entry.removes) return true;
  const record = ownAttributes(given);
  switch (entry.kind) {
    case "snapshot":
      return leavesAttributesOut(entry)
        ? keepsEarlierAttributes(record, object, entry)
        : sameAttributes(record, entry);
    case "fallback":
      return keepsEarlierAttributes(record, object, entry);
    case "name-only":
      return record.attributesEmpty === true;
    default:
      return true;
  }
}

/** The record holds the state `entry` left, its objectVersion aside. */
export function sameState(c: ObjectCase, entry: TruthEntry, ctx: JudgeContext): boolean {
  if (c.record.removed !== entry.removes) return false;
  return !ctx.judgesAttributes || attributesFit(c.record, c.object, entry);
}

/** The record's objectVersion is the entry's, or is not given (or not judged: a stream without it). */
export function versionFits(c: ObjectCase, entry: TruthEntry, ctx: JudgeContext): boolean {
  return !ctx.versioned || c.record.objectVersion === undefined || c.record.objectVersion === entry.version;
}

/** The record holds the state `entry` left, objectVersion included. */
export function reflects(c: ObjectCase, entry: TruthEntry, ctx: JudgeContext): boolean {
  return versionFits(c, entry, ctx) && sameState(c, entry, ctx);
}

/** The record holds the latest state, and no field of no definition among the object's attributes. */
export function holdsLatest(c: ObjectCase, ctx: JudgeContext): boolean {
  return holdsLatestState(c, ctx) && !(ctx.judgesAttributes && unknownFieldsKept(c.record).length > 0);
}

/** Types whose messages change nothing a view holds of the object (removed or not, its attributes), by
 *  the document's meaning: a workflow business process connected to the entity, the entity's list of
 *  potential matches. Their snapshot repeats the entity's data; a consumer may skip them. */
export const CONTENT_NEUTRAL_TYPES: ReadonlySet<string> = new Set([
  "ENTITY_BUSINESS_PROCESS_CHANGED",
  "ENTITIES_MATCHES_CHANGED",
]);

const contentCache = new WeakMap<TruthObject, Map<number, number>>();

/** Per objectVersion of the object's listed messages, the content it leaves (removed or not, its
 *  attributes) as a number: two versions of one number leave the same content. A removal after a removal
 *  changes nothing; a snapshot whose attributes are the last snapshot's or that leaves them out, or a
 *  message of a content-neutral type, neither; any other message does. */
function contentOf(object: TruthObject): Map<number, number> {
  let content = contentCache.get(object);
  if (content) return content;
  content = new Map();
  const byVersion = new Map<number, TruthEntry>();
  for (const e of object.entries) if (e.listed && !byVersion.has(e.version)) byVersion.set(e.version, e);
  let epoch = 0;
  let previous: TruthEntry | undefined;
  let attributes: string | null | undefined;
  for (const e of [...byVersion.values()].sort((a, b) => a.version - b.version)) {
    if (previous !== undefined) {
      const same =
        previous.removes === e.removes &&
        (e.removes ||
          CONTENT_NEUTRAL_TYPES.has(e.type) ||
          (e.kind === "snapshot" && attributes !== undefined && e.attributesText === attributes) ||
          leavesAttributesOut(e) ||
          e.kind === "name-only");
      if (!same) epoch += 1;
    }
    if (e.kind === "snapshot") {
      if (!leavesAttributesOut(e)) attributes = e.attributesText;
    } else if (e.kind !== "name-only" && !CONTENT_NEUTRAL_TYPES.has(e.type)) attributes = undefined;
    content.set(e.version, epoch);
    previous = e;
  }
  contentCache.set(object, content);
  return content;
}

/** The record gives an older objectVersion whose content is the latest's (the messages after it changed
 *  nothing the view holds): the types of those messages, which the consumer skipped; else undefined. */
export function skippedToLatest(c: ObjectCase, ctx: JudgeContext): string[] | undefined {
  const winner = c.object.winner;
  const version = c.record.objectVersion;
  if (!ctx.versioned || version === undefined || version >= winner.version) return undefined;
  const content = contentOf(c.object);
  const held = content.get(version);
  if (held === undefined || held !== content.get(winner.version)) return undefined;
  const types = new Set<string>();
  for (const e of c.object.entries)
    if (e.listed && e.version > version && e.version <= winner.version) types.add(e.type);
  return [...types];
}

/** Without objectVersion a consumer can only take the order of arrival: the states it may hold last are
 *  the latest one's, that of any message that arrived after it, and a GDPR removal's (the document says
 *  only ENTITY_CREATED and ENTITY_REMOVED_GDPR follow one: without objectVersion a consumer cannot tell a
 *  re-creation from an older creation arriving late). With objectVersion, the latest alone. */
export function statesToHold(object: TruthObject, ctx: JudgeContext): TruthEntry[] {
  const winner = firstWinner(object);
  if (ctx.versioned) return [winner];
  // Without objectVersion a consumer orders by arrival or by time: the states that arrived last, or carry
  // the latest timestamp (ties each: the stream does not say which of them came last), are each latest.
  const times = object.entries.flatMap((e) => (e.listed && e.timestamp !== undefined ? [e.timestamp] : []));
  const latestTime = times.length > 0 ? Math.max(...times) : undefined;
  return object.entries.filter(
    (e) =>
      e.listed &&
      (e.version === winner.version ||
        e.position > winner.position ||
        e.gdpr ||
        (latestTime !== undefined && e.timestamp === latestTime)),
  );
}

/** The record holds the latest state: the winner's (and after a GDPR removal, no data of the object),
 *  fields of no definition among its attributes aside. A message of an unlisted type after the winner may
 *  have given the record its objectVersion; an older objectVersion whose content is the latest's is the
 *  latest state. Without objectVersion, any state a consumer may hold last (statesToHold). */
export function holdsLatestState(c: ObjectCase, ctx: JudgeContext): boolean {
  const winner = c.object.winner;
  if (!ctx.versioned)
    return statesToHold(c.object, ctx).some(
      (e) => sameState(c, e, ctx) && !(e.gdpr && c.record.removed && dataKept(c, ctx).length > 0),
    );
  if (winner.gdpr && c.record.removed && dataKept(c, ctx).length > 0) return false;
  if (heldBeforeGap(c, ctx) !== undefined) return true;
  if (!sameState(c, winner, ctx)) return false;
  if (versionFits(c, winner, ctx)) return true;
  if (skippedToLatest(c, ctx) !== undefined) return true;
  return c.object.entries.some(
    (e) => !e.listed && e.version > winner.version && c.record.objectVersion === e.version,
  );
}

/** The objectVersion after which the stream does not decide the object's content up to its latest state:
 *  the last gap at or below the latest objectVersion (a large-object fallback that is not a removal; in a
 *  deltas stream also deltas a consumer cannot apply, deltasGaps), with no snapshot and no removal above
 *  it. Undefined when the latest state is a removal or a later snapshot gave the object again. */
export function contentGap(object: TruthObject, ctx: JudgeContext): number | undefined {
  const winner = object.winner;
  if (winner.removes) return undefined;
  let gap: number | undefined;
  for (const e of object.entries)
    if (e.listed && e.kind === "fallback" && !e.removes && e.version <= winner.version)
      gap = Math.max(gap ?? e.version, e.version);
  if (ctx.stream.choice.payloadType === "deltas")
    for (const version of deltasGaps(object, ctx)) gap = Math.max(gap ?? version, version);
  if (gap === undefined) return undefined;
  const above = gap;
  const closed = object.entries.some(
    (e) =>
      e.listed && e.version > above && e.version <= winner.version && (e.kind === "snapshot" || e.removes),
  );
  return closed ? undefined : gap;
}

/** After such a gap the stream does not decide the object's content until a later snapshot: a live record
 *  that holds the state of a message at or before the gap (since the object's last removal below it: that
 *  state's objectVersion and attributes, or the gap's objectVersion with no attributes or those kept)
 *  holds an older but consistent state. A consumer may keep it, flag it as its own, or decline deltas it
 *  cannot apply across the gap; it is legal until a later snapshot. The objectVersion of the state it
 *  holds, or undefined when the record is not such a state. */
export function heldBeforeGap(c: ObjectCase, ctx: JudgeContext): number | undefined {
  if (c.record.removed || !ctx.versioned) return undefined;
  const gap = contentGap(c.object, ctx);
  if (gap === undefined) return undefined;
  let removal = -1;
  for (const e of c.object.entries)
    if (e.listed && e.removes && e.version < gap && e.version > removal) removal = e.version;
  return c.object.entries.find(
    (e) => e.listed && !e.removes && e.version > removal && e.version <= gap && reflects(c, e, ctx),
  )?.version;
}

/** A message of a type in neither of the document's lists, above the latest state, whose objectVersion
 *  the record gives (without objectVersion: that arrived last): where the record's content is not the
 *  latest state's, that message changed it. */
export function unlistedAt(c: ObjectCase, ctx: JudgeContext): TruthEntry | undefined {
  // Without objectVersion: the object's last message to arrive, where it is of such a type.
  if (!ctx.versioned) {
    const last = c.object.entries.at(-1);
    return last && !last.listed && last.version > c.object.winner.version ? last : undefined;
  }
  const version = c.record.objectVersion;
  if (version === undefined) return undefined;
  return c.object.entries.find(
    (e) => !e.listed && e.version === version && e.version > c.object.winner.version,
  );
}

const DATA_KEY_SKIP: ReadonlySet<string> = new Set([
  "id",
  "user",
  "method",
  "url",
  "clientType",
  "objectUri",
  "objectType",
  "eventId",
  "data",
]);

/** Text values that came from the object's messages: its snapshots' objects (their uri and type aside,
 *  which a removal carries too) and the values of its deltas. */
function objectValues(c: ObjectCase, ctx: JudgeContext): Set<string> {
  const values = new Set<string>();
  const walk = (value: unknown, skip?: ReadonlySet<string>) => {
    if (typeof value === "string") {
      if (value !== "") values.add(value);
    } else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value !== null && typeof value === "object")
      for (const [key, item] of Object.entries(value)) if (!skip?.has(key)) walk(item);
  };
  const seen = new Set<number>();
  for (const e of c.object.entries) {
    if (!e.listed || seen.has(e.version)) continue;
    seen.add(e.version);
    const payload = ctx.stream.messages[e.position]?.payload;
    if (!payload) continue;
    const object = payload.object;
    if (object !== null && typeof object === "object")
      for (const [key, item] of Object.entries(object)) if (key !== "uri" && key !== "type") walk(item);
    if (payload.deltas !== undefined) walk(payload.deltas, DATA_KEY_SKIP);
  }
  values.delete(c.object.uri);
  return values;
}

const keptCache = new WeakMap<ViewRecord, string[]>();

/** The record's members (attributes included) that hold a value of the object's messages: data kept.
 *  Members of the consumer's own (a flag, an event type's name, a boolean) hold none. */
export function dataKept(c: ObjectCase, ctx: JudgeContext): string[] {
  const { record } = c;
  if (record.dataMembers.length === 0) return [];
  let kept = keptCache.get(record);
  if (kept) return kept;
  const values = objectValues(c, ctx);
  const holds = (value: unknown): boolean => {
    if (typeof value === "string") return values.has(value);
    if (Array.isArray(value)) return value.some(holds);
    if (value !== null && typeof value === "object") return Object.values(value).some(holds);
    return false;
  };
  kept = record.dataMembers.filter((name) =>
    holds(name === "attributes" ? record.attributesValue : record.members?.[name]),
  );
  keptCache.set(record, kept);
  return kept;
}

/** Listed messages of an older objectVersion whose state the record holds. */
export function olderReflected(c: ObjectCase, ctx: JudgeContext): TruthEntry[] {
  const winner = c.object.winner;
  return c.object.entries.filter((e) => e.listed && e.version < winner.version && reflects(c, e, ctx));
}

/** The first delivery of the winning message. */
export function firstWinner(object: TruthObject): TruthEntry {
  return object.entries.find((e) => e.listed && e.version === object.winner.version) ?? object.winner;
}

export function describeEntry(entry: TruthEntry, versioned = true): string {
  const kind = entry.kind === "fallback" ? ", a large-object fallback" : "";
  return `message #${entry.position + 1} (${entry.type}${versioned ? `, objectVersion ${entry.version}` : ""}${kind})`;
}

/** Where the message's object leaves uri out (the filtering fields do not list it), the words that say the
 *  header names the object: a consumer that takes the identity from object.uri drops such a message. */
export function namedByHeaderOnly(entry: TruthEntry, ctx: JudgeContext): string {
  const object = ctx.stream.messages[entry.position]?.payload.object;
  if (object === null || typeof object !== "object" || "uri" in object) return "";
  return " (its object carries no uri, which the filtering fields need not list: the sourceObjectUri header names the object)";
}

export function describeRecord(record: ViewRecord): string {
  const parts = [`removed ${record.removed}`];
  if (record.objectVersion !== undefined) parts.push(`objectVersion ${record.objectVersion}`);
  if (record.attributes !== undefined)
    parts.push(record.attributesEmpty ? "attributes {} (empty)" : "its attributes");
  const other = record.dataMembers.filter((m) => m !== "attributes");
  if (other.length > 0) parts.push(`and ${other.join(", ")}`);
  return `line ${record.line} holds ${parts.join(", ")}`;
}

/** A line of a snapshot stream that holds the latest state in every respect but its attributes (the
 *  latest message a snapshot, the view's attributes other than its): what it gets wrong, by attribute
 *  name; [] when nothing. Fallbacks are the fallback rule's, fields of no definition the unknown rule's. */
export function snapshotMismatch(c: ObjectCase, ctx: JudgeContext): string[] {
  const winner = firstWinner(c.object);
  if (!ctx.judgesAttributes || winner.kind !== "snapshot" || winner.removes) return [];
  // A snapshot that leaves attributes out: what the view keeps then is CONSUMER-FILTER-01's.
  if (leavesAttributesOut(winner)) return [];
  if (c.record.attributes === undefined || c.record.removed) return [];
  const record = ownAttributes(c.record);
  if (sameAttributes(record, winner)) return [];
  if (!holdsLatestState(c, { ...ctx, judgesAttributes: false })) return [];
  const given = winner.attributesText ? (JSON.parse(winner.attributesText) as Record<string, unknown>) : {};
  const held = (record.attributesValue ?? {}) as Record<string, unknown>;
  const wrong: string[] = [];
  for (const name of Object.keys(given)) {
    if (!(name in held)) wrong.push(`${name} is missing`);
    else if (canonicalJson(held[name]) !== canonicalJson(given[name]))
      wrong.push(`${name} is not the value the snapshot gave`);
  }
  for (const name of Object.keys(held))
    if (!(name in given)) wrong.push(`${name} is held, though the snapshot has no such attribute`);
  return wrong.length > 0 ? wrong : ["they differ from the snapshot's"];
}

/** A line of a snapshot stream whose latest message is a snapshot that leaves attributes out (the
 *  filtering fields did not list them), live at its objectVersion, with attributes no earlier snapshot
 *  gave: with `emptied`, an empty set where an earlier one gave attributes (replaced with nothing: the
 *  SHOULD rule's), else others (the attributes rule's). What it gets wrong, in words; undefined when
 *  nothing (or when the latest message gives attributes). */
export function filteredMismatch(c: ObjectCase, ctx: JudgeContext, emptied = false): string | undefined {
  const winner = firstWinner(c.object);
  if (!ctx.judgesAttributes || !leavesAttributesOut(winner) || winner.removes) return undefined;
  if (c.record.removed || c.record.attributes === undefined || !versionFits(c, winner, ctx)) return undefined;
  if (sameState(c, winner, ctx)) return undefined;
  const given = attributesGivenBefore(c.object, winner);
  const last = given.reduce<TruthEntry | undefined>(
    (a, e) => (!a || e.version > a.version ? e : a),
    undefined,
  );
  const filtered = `${describeEntry(winner)} carries an object without attributes: the streaming configuration (JMSEventsFilteringFields) left them out, which removes none of them`;
  if (c.record.attributesEmpty === true && last)
    return emptied
      ? `${filtered}, yet the view replaced the attributes ${describeEntry(last)} gave with nothing; keep what the last snapshot that gave attributes said; ${describeRecord(c.record)}`
      : undefined;
  if (emptied) return undefined;
  return `${filtered}, yet the view holds attributes that no snapshot before it gave; keep what the last snapshot that gave attributes said${last ? ` (${describeEntry(last)})` : ""}; ${describeRecord(c.record)}`;
}
