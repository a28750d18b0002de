// Recorded traffic read as a stream, one entry at a time, in memory bounded by the largest entry: a HAR's
// log.entries (plain or gzip), or NDJSON of exchanges (one JSON object a line). A hand-rolled scanner over
// the text: it tracks only nesting, strings and the keys of the two outer objects, and hands each entry's
// text to JSON.parse, so a multi-gigabyte file never exists as one string or one object tree.
import { createReadStream, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";
import { UserInputError } from "../usage-error.ts";

/** Bad recorded traffic (not JSON, truncated, no log.entries): the user's input, exit 2. */
export class TrafficInputError extends UserInputError {
  override name = "TrafficInputError";
}

/** An entry larger than this is not held: it is counted and skipped, never judged in part. */
export const MAX_ENTRY_CHARS = 64 * 1024 * 1024;

export type TrafficFormat = "har" | "ndjson";

/** One entry as read: its position (from 0) and its parsed value, or why it could not be used. */
export type RawEntry = { index: number; value: unknown } | { index: number; skipped: string };

const OPEN_OBJECT = 123; // {
const CLOSE_OBJECT = 125; // }
const OPEN_ARRAY = 91; // [
const CLOSE_ARRAY = 93; // ]
const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;

interface Container {
  array: boolean;
  /** The key this container is the value of (tracked only in the two outer objects). */
  key: string | undefined;
}

/**
 * The entries of a HAR's log.entries as they stream past. Throws TrafficInputError for a text that is not
 * a HAR (no log.entries) or ends before its JSON does (a truncated file), naming how many entries were
 * read before: what was read is judged by the caller only if it catches and decides so.
 */
export async function* harEntries(chunks: AsyncIterable<string>): AsyncGenerator<RawEntry> {
  const stack: Container[] = [];
  let inString = false;
  let escaped = false;
  /** Text of the string being read, when it may be a key of the outer objects. */
  let keyText: string | undefined;
  let lastString: string | undefined;
  let expectingKey = false;
  let pendingKey: string | undefined;
  let started = false;
  let sawEntries = false;
  /** The entry being captured: its pieces and size, and the depth it started at. */
  let entry: string[] | undefined;
  let entrySize = 0;
  let entryOver = false;
  let entryDepth = 0;
  let index = 0;

  const inEntries = () => {
    const top = stack[stack.length - 1];
    return (
      stack.length === 3 &&
      top?.array === true &&
      top.key === "entries" &&
      stack[1]?.key === "log" &&
      !stack[1].array
    );
  };

  for await (const chunk of chunks) {
    let captureFrom = entry === undefined ? -1 : 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (keyText !== undefined) lastString = keyText;
          keyText = undefined;
        } else if (keyText !== undefined && keyText.length < 64) keyText += chunk[i];
        continue;
      }
      if (c === QUOTE) {
        inString = true;
        // Keys matter only in the root and the log object.
        keyText = expectingKey && stack.length <= 2 && entry === undefined ? "" : undefined;
        continue;
      }
      if (c <= 32) continue;
      if (!started) {
        if (c !== OPEN_OBJECT)
          throw new TrafficInputError(
            `not a HAR: it starts with ${JSON.stringify(chunk.slice(i, i + 20))}, not a JSON object; give a HAR 1.2 file (log.entries) or NDJSON of exchanges (one JSON object a line, --format ndjson)`,
          );
        started = true;
      }
      if (c === COLON) {
        if (expectingKey) {
          pendingKey = lastString;
          expectingKey = false;
        }
        continue;
      }
      if (c === COMMA) {
        const top = stack[stack.length - 1];
        if (top && !top.array) expectingKey = true;
        pendingKey = undefined;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (entry === undefined && c === OPEN_OBJECT && inEntries()) {
          entry = [];
          entrySize = 0;
          entryOver = false;
          entryDepth = stack.length;
          captureFrom = i;
        }
        stack.push({ array: c === OPEN_ARRAY, key: pendingKey });
        if (stack.length === 3 && c === OPEN_ARRAY && pendingKey === "entries" && stack[1]?.key === "log")
          sawEntries = true;
        pendingKey = undefined;
        expectingKey = c === OPEN_OBJECT;
        continue;
      }
      if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        const closed = stack.pop();
        if (closed === undefined || closed.array !== (c === CLOSE_ARRAY))
          throw new TrafficInputError(
            `malformed HAR: an unexpected ${chunk[i]} after ${index} entries; the file is not valid JSON`,
          );
        expectingKey = false;
        if (entry !== undefined && stack.length === entryDepth) {
          const piece = chunk.slice(captureFrom, i + 1);
          entrySize += piece.length;
          if (!entryOver && entrySize <= MAX_ENTRY_CHARS) entry.push(piece);
          yield parsedEntry(index++, entry, entryOver || entrySize > MAX_ENTRY_CHARS);
          entry = undefined;
          captureFrom = -1;
        }
        if (stack.length === 0) {
          if (!sawEntries)
            throw new TrafficInputError(
              "not a HAR: the JSON has no log.entries array; give a HAR 1.2 file (a browser's or Playwright's export, lckit's evidence.har) or NDJSON of exchanges",
            );
          return;
        }
      }
    }
    if (entry !== undefined && captureFrom >= 0) {
      const piece = chunk.slice(captureFrom);
      entrySize += piece.length;
      // Past the bound the entry's text is no longer kept: memory stays bounded whatever one entry holds.
      if (entrySize > MAX_ENTRY_CHARS) {
        entryOver = true;
        entry.length = 0;
      } else entry.push(piece);
    }
  }
  if (!started) throw new TrafficInputError("the traffic file is empty: give a HAR 1.2 file or NDJSON");
  throw new TrafficInputError(
    `truncated HAR: the file ends inside its JSON after ${index} complete entr${index === 1 ? "y" : "ies"}; was it still being written, or cut by a copy? Export it again, or judge the complete entries as NDJSON`,
  );
}

function parsedEntry(index: number, pieces: string[], over: boolean): RawEntry {
  if (over) return { index, skipped: `entry ${index} is larger than ${MAX_ENTRY_CHARS} characters` };
  try {
    return { index, value: JSON.parse(pieces.join("")) };
  } catch (error) {
    throw new TrafficInputError(
      `malformed HAR: entry ${index} is not valid JSON (${(error as Error).message}); the file is damaged`,
    );
  }
}

/** The lines of NDJSON, each parsed; a blank line is skipped, a line that is not JSON is an error naming it. */
export async function* ndjsonEntries(chunks: AsyncIterable<string>): AsyncGenerator<RawEntry> {
  let rest = "";
  let line = 0;
  let index = 0;
  const parse = (text: string): RawEntry | undefined => {
    line += 1;
    if (text.trim() === "") return undefined;
    if (text.length > MAX_ENTRY_CHARS)
      return { index: index++, skipped: `line ${line} is larger than ${MAX_ENTRY_CHARS} characters` };
    try {
      return { index: index++, value: JSON.parse(text) };
    } catch (error) {
      throw new TrafficInputError(
        `malformed NDJSON: line ${line} is not JSON (${(error as Error).message}); each line must be one exchange as a JSON object`,
      );
    }
  };
  for await (const chunk of chunks) {
    rest += chunk;
    let at = rest.indexOf("\n");
    while (at >= 0) {
      const parsed = parse(rest.slice(0, at));
      if (parsed) yield parsed;
      rest = rest.slice(at + 1);
      at = rest.indexOf("\n");
    }
    if (rest.length > MAX_ENTRY_CHARS)
      throw new TrafficInputError(`line ${line + 1} of the NDJSON is too long`);
  }
  const last = parse(rest);
  if (last) yield last;
}

/** Text chunks of a byte stream, gzip undone when its first bytes say so (whatever the file is called). */
export async function* textOf(bytes: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder("utf8");
  let source: AsyncIterable<Buffer> = bytes;
  const iterator = bytes[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const head = first.value as Buffer;
  const rest = (async function* () {
    yield head;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value as Buffer;
    }
  })();
  source = rest;
  if (head[0] === 0x1f && head[1] === 0x8b) {
    const gunzip = createGunzip();
    void (async () => {
      try {
        for await (const b of rest) if (!gunzip.write(b)) await new Promise((r) => gunzip.once("drain", r));
        gunzip.end();
      } catch (error) {
        gunzip.destroy(error as Error);
      }
    })();
    source = gunzip;
  }
  try {
    for await (const b of source) yield decoder.write(b as Buffer);
  } catch (error) {
    throw new TrafficInputError(
      `the traffic file could not be read: ${(error as Error).message} (a gzip file cut short?)`,
    );
  }
  const tail = decoder.end();
  if (tail !== "") yield tail;
}

/** The format of a file by its name (.ndjson, .jsonl, with or without .gz), else HAR. */
export function formatOf(name: string): TrafficFormat {
  return /\.(?:ndjson|jsonl)(?:\.gz)?$/i.test(name) ? "ndjson" : "har";
}

/** The raw entries of a file or "-" (stdin). */
export function rawEntries(
  source: string,
  options: { format?: TrafficFormat; stdin?: Readable } = {},
): AsyncGenerator<RawEntry> {
  const format = options.format ?? (source === "-" ? "har" : formatOf(source));
  const bytes = source === "-" ? (options.stdin ?? process.stdin) : openTraffic(source);
  const text = textOf(bytes);
  return format === "ndjson" ? ndjsonEntries(text) : harEntries(text);
}

function openTraffic(path: string): Readable {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    throw new TrafficInputError(
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}; give the path of a HAR or NDJSON file, or - for stdin`,
    );
  }
  if (!isFile)
    throw new TrafficInputError(`${path} is not a file; give a HAR or NDJSON file, or - for stdin`);
  return createReadStream(path, { highWaterMark: 256 * 1024 });
}
