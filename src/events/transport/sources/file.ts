// NDJSON from a file or stdin: one message per non-blank line, positioned by its line number; the input is
// read in chunks and never held in memory as a whole. Lines end at "\n" (a "\r" before it is dropped).
// A file's messages carry their byte offset as ref, so that the checker can read one again (recall)
// instead of fingerprinting every payload; stdin cannot be read twice and has no refs.
import { closeSync, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { UserInputError } from "../../../usage-error.ts";
import { type EnvelopeChoice, unwrapLine } from "../envelopes/index.ts";
import type { MessageSource, RawMessage, TransportNotice } from "../transport.ts";

/** Blank lines are not messages (a regular expression stops at the first visible character). */
const blank = /^\s*$/;

const newline = 0x0a;
const carriageReturn = 0x0d;
/** Bytes read at a time when a line is read again. */
const recallBlock = 1 << 16;
/** Bytes read at a time from a file. */
const readBlock = 1 << 20;

/** A source that cannot be opened as given (missing file, bad URL): the caller's input is wrong. */
export class SourceError extends UserInputError {
  override name = "SourceError";
}

export interface FileSourceOptions {
  /** Stream read for "-" (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** The folder a relative path is read from (the command's working directory); the path is still shown
   *  as given. Default: the process's. */
  cwd?: string;
  /** Longest line read, in bytes (default 64 MiB): a longer one is counted, not held, and reported. */
  maxLineBytes?: number;
  /** Service envelopes to unwrap (default "auto": each line's form is detected; "none": lines as they are). */
  envelope?: EnvelopeChoice;
}

/** Lines longer than this are not held in memory: JSON of that size is no event message a broker carries,
 *  and a string past V8's limit (about 512 M characters) could not even be made. */
export const defaultMaxLineBytes = 64 * 1024 * 1024;

const documentStart = /^[[{]\s*$/;

/** The lines of one pretty-printed JSON document, and whether its brackets have closed (strings skipped). */
class PrettyDocument {
  private readonly lines: string[] = [];
  private depth = 0;
  private inString = false;
  bytes = 0;

  constructor(readonly line: number) {}

  add(text: string): void {
    this.lines.push(text);
    this.bytes += text.length + 1;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (this.inString) {
        if (code === 92) index += 1;
        else if (code === 34) this.inString = false;
      } else if (code === 34) this.inString = true;
      else if (code === 123 || code === 91) this.depth += 1;
      else if (code === 125 || code === 93) this.depth -= 1;
    }
  }

  complete(): boolean {
    return this.depth <= 0 && !this.inString;
  }

  text(): string {
    return this.lines.join("\n");
  }
}

/** The text of bytes [start, end) without a "\r" at the end; a UTF-8 byte order mark before the first line
 *  is skipped by the caller. */
function lineText(bytes: Buffer, start: number, end: number): string {
  const last = end > start && bytes[end - 1] === carriageReturn ? end - 1 : end;
  return bytes.toString("utf8", start, last);
}

function startsWithByteOrderMark(bytes: Buffer, at: number): boolean {
  return bytes[at] === 0xef && bytes[at + 1] === 0xbb && bytes[at + 2] === 0xbf;
}

/**
 * The lines of a byte stream as messages, without an async step per line: the lines of a chunk are
 * handed out from memory, and only the next chunk is awaited. A line split across chunks is joined once,
 * when its end arrives; a line longer than `maxLineBytes` is only measured, and handed out without its
 * text (RawMessage.tooLarge).
 */
function lineMessages(
  input: AsyncIterable<Buffer | string>,
  withRefs: boolean,
  maxLineBytes: number,
  envelope: EnvelopeChoice,
): AsyncIterable<RawMessage> {
  return {
    [Symbol.asyncIterator]() {
      const chunks = input[Symbol.asyncIterator]();
      const ready: RawMessage[] = [];
      let readyAt = 0;
      /** The line whose end has not arrived yet: its pieces (none once it is too long), its size so far
       *  and the byte offset where it starts. */
      let pieces: Buffer[] = [];
      let pendingBytes = 0;
      let pendingStart = 0;
      /** Byte offset of the next chunk's first byte. */
      let offset = 0;
      let number = 0;
      let ended = false;
      /** A pretty-printed document being joined, line by line. */
      let document: PrettyDocument | undefined;
      const endDocument = (): void => {
        const joined = document as PrettyDocument;
        document = undefined;
        if (joined.bytes > maxLineBytes)
          ready.push({
            position: `line ${joined.line}`,
            body: "",
            tooLarge: { bytes: joined.bytes, limit: maxLineBytes },
          });
        else emit(joined.text(), joined.line, undefined);
      };
      const add = (bytes: Buffer, start: number, end: number, at: number): void => {
        number += 1;
        let from = start;
        let ref = at;
        if (number === 1 && startsWithByteOrderMark(bytes, start)) {
          from += 3;
          ref += 3;
        }
        const body = lineText(bytes, from, end);
        if (document !== undefined) {
          document.add(body);
          if (document.complete() || document.bytes > maxLineBytes) endDocument();
          return;
        }
        if (blank.test(body)) return;
        // A line that only opens an object or a list starts a pretty-printed document (what `aws ... receive-message`
        // and `gcloud ... --format=json` print): its lines are joined until it closes, and read as one message.
        if (envelope !== "none" && documentStart.test(body)) {
          document = new PrettyDocument(number);
          document.add(body);
          return;
        }
        emit(body, number, withRefs ? ref : undefined);
      };
      /** One message text: unwrapped when it is a service envelope, else as it is. */
      const emit = (body: string, line: number, ref: number | undefined): void => {
        const items = unwrapLine(body, envelope);
        if (items === undefined) {
          ready.push(
            ref === undefined ? { position: `line ${line}`, body } : { position: `line ${line}`, body, ref },
          );
          return;
        }
        // A message out of an envelope has no ref: reading its line again would give the envelope, so the
        // stream rules fingerprint its payload as it comes.
        for (const [index, item] of items.entries()) {
          const position = items.length === 1 ? `line ${line}` : `line ${line} message ${index + 1}`;
          ready.push(
            "fault" in item
              ? { position, body, envelopeFault: item.fault }
              : { position, headers: item.headers, body: item.body },
          );
        }
      };
      const addTooLarge = (bytes: number): void => {
        number += 1;
        ready.push({ position: `line ${number}`, body: "", tooLarge: { bytes, limit: maxLineBytes } });
      };
      /** Ends the pending line with `tail` (the part of it in the current chunk). */
      const endPending = (tail: Buffer, at: number): void => {
        const size = pendingBytes + tail.length;
        if (size > maxLineBytes) addTooLarge(size);
        else {
          const joined = Buffer.concat([...pieces, tail]);
          add(joined, 0, joined.length, at);
        }
        pieces = [];
        pendingBytes = 0;
      };
      const split = (chunk: Buffer): void => {
        const base = offset;
        offset += chunk.length;
        let start = 0;
        for (let end = chunk.indexOf(newline); end !== -1; end = chunk.indexOf(newline, start)) {
          if (pendingBytes > 0) endPending(chunk.subarray(start, end), pendingStart);
          else if (end - start > maxLineBytes) addTooLarge(end - start);
          else add(chunk, start, end, base + start);
          start = end + 1;
        }
        if (start < chunk.length) {
          if (pendingBytes === 0) pendingStart = base + start;
          pendingBytes += chunk.length - start;
          // Past the limit the rest of the line is only counted.
          if (pendingBytes > maxLineBytes) pieces = [];
          else pieces.push(Buffer.from(chunk.subarray(start)));
        }
      };
      const finish = (): void => {
        ended = true;
        if (pendingBytes > 0) endPending(Buffer.alloc(0), pendingStart);
        // An unclosed document is handed over as it is: the checker reports that it is not JSON.
        if (document !== undefined) endDocument();
      };
      const next = async (): Promise<IteratorResult<RawMessage>> => {
        while (readyAt >= ready.length) {
          ready.length = 0;
          readyAt = 0;
          if (ended) return { done: true, value: undefined };
          const step = await chunks.next();
          if (step.done) finish();
          else split(typeof step.value === "string" ? Buffer.from(step.value, "utf8") : step.value);
        }
        const value = ready[readyAt] as RawMessage;
        readyAt += 1;
        return { done: false, value };
      };
      return {
        next: () =>
          readyAt < ready.length
            ? Promise.resolve({ done: false, value: ready[readyAt++] as RawMessage })
            : next(),
        return: async (): Promise<IteratorResult<RawMessage>> => {
          ended = true;
          await chunks.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * A file's bytes in blocks read into two reused buffers, in turn: the next block is read while the lines
 * of the current one are checked, so the check does not wait for the disk (each block is used up before
 * the block after next is read into its buffer: the splitter copies what it keeps). A read stream would
 * allocate a buffer and take an event-loop turn per 64 KB, which cost more than splitting and decoding
 * the lines.
 */
async function* fileBlocks(path: string, opened: (stats: Stats) => void): AsyncGenerator<Buffer> {
  const handle = await open(path, "r");
  let ahead: Promise<{ bytesRead: number }> | undefined;
  try {
    opened(await handle.stat());
    const buffers = [Buffer.allocUnsafe(readBlock), Buffer.allocUnsafe(readBlock)] as const;
    let position = 0;
    let turn = 0;
    ahead = handle.read(buffers[0], 0, readBlock, 0);
    for (;;) {
      const buffer = buffers[turn] as Buffer;
      const { bytesRead } = await ahead;
      ahead = undefined;
      if (bytesRead === 0) return;
      position += bytesRead;
      turn = 1 - turn;
      ahead = handle.read(buffers[turn] as Buffer, 0, readBlock, position);
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    // A read still under way when the reader stopped early finishes before the file is closed.
    await ahead?.catch(() => undefined);
    await handle.close();
  }
}

function stdinSource(
  stdin: NodeJS.ReadableStream,
  maxLineBytes: number,
  envelope: EnvelopeChoice,
): MessageSource {
  return {
    description: envelope === "auto" || envelope === "none" ? "stdin" : `stdin (${envelope} envelopes)`,
    messages: () => lineMessages(stdin as AsyncIterable<Buffer | string>, false, maxLineBytes, envelope),
    notices: () => [],
    async close(): Promise<void> {
      const readable = stdin as { destroy?: () => void };
      if (stdin !== process.stdin) readable.destroy?.();
    },
  };
}

/** The line that starts at byte `ref` of the file, read again (for MessageSource.recall). The first read
 *  takes 4 KiB, enough for most event messages; a longer line is read on in whole blocks. */
function readLineAt(fd: number, ref: number, block: Buffer): string {
  const pieces: Buffer[] = [];
  for (let at = ref, size = Math.min(4096, block.length); ; at += size, size = block.length) {
    const read = readSync(fd, block, 0, size, at);
    const bytes = block.subarray(0, read);
    const end = bytes.indexOf(newline);
    if (end !== -1) {
      pieces.push(Buffer.from(bytes.subarray(0, end)));
      break;
    }
    pieces.push(Buffer.from(bytes));
    if (read < size) break;
  }
  const line = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  return lineText(line, 0, line.length);
}

/** What tells one state of a file from another: a line is read again only from the file as it was read. */
function fileState(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

function fileSource(
  path: string,
  maxLineBytes: number,
  envelope: EnvelopeChoice,
  shown: string = path,
): MessageSource {
  /** Opened on the first recall, for reading lines again. */
  let fd: number | undefined;
  let block: Buffer | undefined;
  let reading: AsyncIterator<RawMessage> | undefined;
  /** The state of the file as it was opened for reading; a recall from a file in another state
   *  (rewritten, rotated, appended to) reads nothing, so no verdict rests on text the check did not read. */
  let readState: string | undefined;
  return {
    description: envelope === "auto" || envelope === "none" ? shown : `${shown} (${envelope} envelopes)`,
    messages(): AsyncIterable<RawMessage> {
      const blocks = fileBlocks(path, (stats) => {
        readState = fileState(stats);
      });
      const lines = lineMessages(blocks, true, maxLineBytes, envelope);
      return {
        [Symbol.asyncIterator]() {
          reading = lines[Symbol.asyncIterator]();
          return reading;
        },
      };
    },
    recall(ref: number): string | undefined {
      try {
        fd ??= openSync(path, "r");
        if (fileState(fstatSync(fd)) !== readState) return undefined;
        block ??= Buffer.alloc(recallBlock);
        return readLineAt(fd, ref, block);
      } catch {
        return undefined;
      }
    },
    notices(): TransportNotice[] {
      return [];
    },
    async close(): Promise<void> {
      await reading?.return?.();
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Opens an NDJSON file, or stdin for "-". Throws SourceError when the file cannot be read. */
export async function openFileSource(path: string, options: FileSourceOptions = {}): Promise<MessageSource> {
  const maxLineBytes = options.maxLineBytes ?? defaultMaxLineBytes;
  const envelope = options.envelope ?? "auto";
  if (path === "-") return stdinSource(options.stdin ?? process.stdin, maxLineBytes, envelope);
  const at = options.cwd === undefined ? path : resolve(options.cwd, path);
  try {
    const info = await stat(at);
    if (!info.isFile())
      throw new SourceError(`${path} is not a file; give an NDJSON file, "-" for stdin or an amqp:// URL`);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(
      `cannot read ${path} (${error instanceof Error ? error.message : String(error)}); give an NDJSON file, "-" for stdin or an amqp:// URL`,
    );
  }
  return fileSource(at, maxLineBytes, envelope, path);
}
