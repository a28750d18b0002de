// The consumer's view: what it says it holds of each object after the stream, read from the NDJSON file it
// writes at $LCKIT_VIEW_FILE when its input ends or when it gets SIGTERM. One line per object:
//   {"uri": "entities/1a2B3c", "removed": false, "objectVersion": 7, "attributes": {...}}
// uri and removed are required; objectVersion (a number or a string of digits) and attributes (the
// object's attributes as its latest snapshot carries them) are judged where given. Other members are kept
// for the GDPR rule (they are data of the object) and otherwise not read.
//
// Read as a stream, line by line, with a bound on the lines and on a line's length: a view of millions
// of lines or one endless line is an error that says so, never a hang or a heap exhausted.

import { createReadStream, readFileSync, statSync } from "node:fs";
import { canonicalJson } from "../check/canonical-json.ts";

export interface ViewRecord {
  uri: string;
  removed: boolean;
  objectVersion?: number;
  /** The attributes as given, serialized again (JSON.stringify), when given. */
  attributes?: string;
  /** The attributes as parsed: their canonical text is made only when a comparison needs it
   *  (canonicalAttributes). */
  attributesValue?: unknown;
  /** The attributes hold nothing: an empty object (or null). */
  attributesEmpty?: boolean;
  /** Names of members other than uri, removed and objectVersion that carry data (attributes included). */
  dataMembers: string[];
  /** Those members other than attributes, by name, as given: after a GDPR removal the judge asks whether
   *  they hold values of the object's messages or only the consumer's own bookkeeping. */
  members: Record<string, unknown> | undefined;
  line: number;
}

export interface ConsumerView {
  records: Map<string, ViewRecord>;
  lines: number;
}

/** The view could not be read: what is wrong, on which line, and how to fix it. */
export class ViewError extends Error {
  override name = "ViewError";
}

export const VIEW_FORMAT =
  'one JSON object per line: {"uri": "<sourceObjectUri>", "removed": true|false, "objectVersion": <number>, "attributes": {...}} (objectVersion and attributes optional)';

/** A line longer than this is no view line (an object's attributes are a few kilobytes). */
export const MAX_LINE_CHARS = 1024 * 1024;
/** Views up to this size are read in one piece. */
const WHOLE_READ_BYTES = 16 * 1024 * 1024;

export interface ReadViewOptions {
  /** Lines past which the view is refused (the stream's objects bound what a true view holds). */
  maxLines: number;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** One line of the view, parsed and checked; throws ViewError naming the line and the fix. */
export function parseViewLine(text: string, line: number): ViewRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ViewError(
      `line ${line} of the view is not JSON (${(error as Error).message}): ${describe(text)}; write ${VIEW_FORMAT}`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new ViewError(
      `line ${line} of the view is ${describe(value)}, not an object; write ${VIEW_FORMAT}`,
    );
  const fields = value as Record<string, unknown>;
  if (typeof fields.uri !== "string" || fields.uri === "")
    throw new ViewError(
      `line ${line} of the view has uri ${describe(fields.uri)}: give the object's URI (the sourceObjectUri header) as a string`,
    );
  if (typeof fields.removed !== "boolean")
    throw new ViewError(
      `line ${line} of the view (${fields.uri}) has removed ${describe(fields.removed)}: give true when the object's latest event removed it, false otherwise`,
    );
  const version = fields.objectVersion;
  let objectVersion: number | undefined;
  if (typeof version === "number" && Number.isSafeInteger(version)) objectVersion = version;
  else if (typeof version === "string" && /^\d{1,15}$/.test(version)) objectVersion = Number(version);
  else if (version !== undefined && version !== null)
    throw new ViewError(
      `line ${line} of the view (${fields.uri}) has objectVersion ${describe(version)}: give the objectVersion header of the state the view holds, a whole number, or leave it out`,
    );
  const attributes = fields.attributes;
  if (
    attributes !== undefined &&
    attributes !== null &&
    (typeof attributes !== "object" || Array.isArray(attributes))
  )
    throw new ViewError(
      `line ${line} of the view (${fields.uri}) has attributes ${describe(attributes)}: give the object's attributes as an object (attribute name to values), or leave it out`,
    );
  const dataMembers: string[] = [];
  let members: Record<string, unknown> | undefined;
  for (const key in fields) {
    const member = fields[key];
    if (
      key === "uri" ||
      key === "removed" ||
      key === "objectVersion" ||
      member === null ||
      member === undefined
    )
      continue;
    if (key === "attributes" && Object.keys(member as object).length === 0) continue;
    dataMembers.push(key);
    if (key !== "attributes") {
      members ??= {};
      members[key] = member;
    }
  }
  const empty =
    attributes === null || (attributes !== undefined && Object.keys(attributes as object).length === 0);
  // One shape for every record: the judge reads millions of them in a long view.
  return {
    uri: fields.uri,
    removed: fields.removed,
    objectVersion,
    attributes: attributes === undefined ? undefined : JSON.stringify(attributes ?? {}),
    attributesValue: attributes === undefined ? undefined : (attributes ?? {}),
    attributesEmpty: attributes === undefined ? undefined : empty,
    dataMembers,
    members,
    line,
  };
}

const canonical = new WeakMap<ViewRecord, string>();

/** The canonical JSON of a record's attributes (keys sorted at every level): for comparing with the
 *  truth when the text as given differs (another key order). */
export function canonicalAttributes(record: ViewRecord): string | undefined {
  if (record.attributes === undefined) return undefined;
  let text = canonical.get(record);
  if (text === undefined) {
    text = canonicalJson(record.attributesValue);
    canonical.set(record, text);
  }
  return text;
}

/** Reads the view file as a stream. Throws ViewError on a malformed line, a line over MAX_LINE_CHARS, a
 *  URI given twice, or more lines than `maxLines`. */
export async function readView(path: string, options: ReadViewOptions): Promise<ConsumerView> {
  const records = new Map<string, ViewRecord>();
  let lines = 0;
  let pending = "";
  const take = (text: string) => {
    lines += 1;
    if (text.length > MAX_LINE_CHARS)
      throw new ViewError(
        `line ${lines} of the view is longer than ${MAX_LINE_CHARS} characters: write ${VIEW_FORMAT}, one object per line`,
      );
    const trimmed = text.trim();
    if (trimmed === "") return;
    if (records.size >= options.maxLines)
      throw new ViewError(
        `the view has more than ${options.maxLines} lines, while the stream was about fewer objects: write one line per object (its latest state), not one per message`,
      );
    const record = parseViewLine(trimmed, lines);
    const earlier = records.get(record.uri);
    if (earlier)
      throw new ViewError(
        `line ${lines} of the view names ${record.uri} again (line ${earlier.line} did first): write one line per object, its latest state`,
      );
    records.set(record.uri, record);
  };
  // A view of a few megabytes is read at once; a larger one as a stream, so an endless view is refused at
  // its bound without being held whole.
  if (statSync(path).size <= WHOLE_READ_BYTES) {
    const text = readFileSync(path, "utf8");
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      take(text.slice(start, end));
      start = end + 1;
    }
    if (start < text.length) take(text.slice(start));
    return { records, lines };
  }
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let start = 0;
      for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", start)) {
        take(pending + chunk.slice(start, end));
        pending = "";
        start = end + 1;
      }
      pending += chunk.slice(start);
      if (pending.length > MAX_LINE_CHARS)
        throw new ViewError(
          `line ${lines + 1} of the view is longer than ${MAX_LINE_CHARS} characters: write ${VIEW_FORMAT}, one object per line`,
        );
    }
    if (pending !== "") take(pending);
  } finally {
    stream.destroy();
  }
  return { records, lines };
}
