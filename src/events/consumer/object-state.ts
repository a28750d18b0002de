// What state of an object a view record holds: whether it is the state one message of the stream left
// (its removal, its objectVersion, its attributes), and which message that is. The consumer rules read it.

import {
  type ConsumerStream,
  type TruthEntry,
  type TruthObject,
  UNKNOWN_HEADER,
  UNKNOWN_PAYLOAD_FIELD,
} from "./consumer-stream.ts";
import { canonicalAttributes, type ViewRecord } from "./consumer-view.ts";

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

function attributesFit(given: ViewRecord, object: TruthObject, entry: TruthEntry): boolean {
  if (given.attributes === undefined || entry.removes) return true;
  const record = ownAttributes(given);
  switch (entry.kind) {
    case "snapshot":
      return sameAttributes(record, entry);
    case "fallback":
      return snapshotsBefore(object, entry).some((e) => sameAttributes(record, e));
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

/** The record holds the latest state: the winner's (and after a GDPR removal, no data), fields of no
 *  definition among its attributes aside. A message of an unlisted type after the winner may have given
 *  the record its objectVersion. */
export function holdsLatestState(c: ObjectCase, ctx: JudgeContext): boolean {
  const winner = c.object.winner;
  if (winner.gdpr && c.record.removed && c.record.dataMembers.length > 0) return false;
  if (!sameState(c, winner, ctx)) return false;
  if (versionFits(c, winner, ctx)) return true;
  return c.object.entries.some(
    (e) => !e.listed && e.version > winner.version && c.record.objectVersion === e.version,
  );
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

export function describeRecord(record: ViewRecord): string {
  const parts = [`removed ${record.removed}`];
  if (record.objectVersion !== undefined) parts.push(`objectVersion ${record.objectVersion}`);
  if (record.attributes !== undefined)
    parts.push(record.attributesEmpty ? "attributes {} (empty)" : "its attributes");
  const other = record.dataMembers.filter((m) => m !== "attributes");
  if (other.length > 0) parts.push(`and ${other.join(", ")}`);
  return `line ${record.line} holds ${parts.join(", ")}`;
}
