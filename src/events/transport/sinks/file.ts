// Writes event messages as NDJSON, one {"headers", "payload"} object a line: the file form the event
// checker reads. A body that is not JSON is written as it is, so the line is as malformed as the message.

import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import type { MessageSink } from "../transport.ts";

/** One NDJSON line for a message: {"headers","payload"}, or the raw body when it is not JSON. */
export function ndjsonLine(message: { headers: Record<string, unknown>; body: string }): string {
  try {
    JSON.parse(message.body);
  } catch {
    return message.body.replace(/\r?\n/g, " ");
  }
  // The body as it was serialized (key order, spacing), on one line: a newline is only ever whitespace
  // between JSON tokens, never inside a string, so it becomes a space.
  return `{"headers":${JSON.stringify(message.headers)},"payload":${message.body.replace(/\r?\n/g, " ")}}`;
}

export async function openFileSink(path: string): Promise<MessageSink> {
  const stream = createWriteStream(path, { encoding: "utf8" });
  await once(stream, "open");
  return new FileSink(path, stream);
}

class FileSink implements MessageSink {
  readonly description: string;
  private failure: Error | undefined;

  constructor(
    path: string,
    private readonly stream: WriteStream,
  ) {
    this.description = `file ${path}`;
    stream.on("error", (error) => {
      this.failure = error;
    });
  }

  async publish(message: { headers: Record<string, unknown>; body: string }): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.stream.write(`${ndjsonLine(message)}\n`)) await once(this.stream, "drain");
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
    if (this.failure) throw this.failure;
  }
}
