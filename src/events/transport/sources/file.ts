// NDJSON from a file or stdin, read line by line (readline): one message per non-blank line, positioned
// by its line number; the input is never held in memory as a whole.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { MessageSource, RawMessage, TransportNotice } from "../transport.ts";

/** Blank lines are not messages (a regular expression stops at the first visible character). */
const blank = /^\s*$/;

/** A source that cannot be opened as given (missing file, bad URL): the caller's input is wrong. */
export class SourceError extends Error {
  override name = "SourceError";
}

export interface FileSourceOptions {
  /** Stream read for "-" (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
}

function linesSource(description: string, input: () => NodeJS.ReadableStream): MessageSource {
  let stream: NodeJS.ReadableStream | undefined;
  return {
    description,
    async *messages(): AsyncIterable<RawMessage> {
      stream = input();
      const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
      let number = 0;
      for await (const line of lines) {
        number += 1;
        const body = number === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
        if (blank.test(body)) continue;
        yield { position: `line ${number}`, body };
      }
    },
    notices(): TransportNotice[] {
      return [];
    },
    async close(): Promise<void> {
      const readable = stream as { destroy?: () => void } | undefined;
      if (readable && stream !== process.stdin) readable.destroy?.();
    },
  };
}

/** Opens an NDJSON file, or stdin for "-". Throws SourceError when the file cannot be read. */
export async function openFileSource(path: string, options: FileSourceOptions = {}): Promise<MessageSource> {
  if (path === "-") return linesSource("stdin", () => options.stdin ?? process.stdin);
  try {
    const info = await stat(path);
    if (!info.isFile())
      throw new SourceError(`${path} is not a file; give an NDJSON file, "-" for stdin or an amqp:// URL`);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(
      `cannot read ${path} (${error instanceof Error ? error.message : String(error)}); give an NDJSON file, "-" for stdin or an amqp:// URL`,
    );
  }
  return linesSource(path, () => createReadStream(path, { encoding: "utf8" }));
}
