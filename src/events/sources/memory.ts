// Messages already in memory (tests, benchmarks, generated streams) as a MessageSource.
import type { MessageSource, RawMessage, TransportNotice } from "../transport.ts";

export function memorySource(
  messages: Iterable<RawMessage> | AsyncIterable<RawMessage>,
  description = "memory",
  notices: TransportNotice[] = [],
): MessageSource {
  return {
    description,
    async *messages(): AsyncIterable<RawMessage> {
      yield* messages;
    },
    notices: () => notices,
    close: async () => {},
  };
}

/** NDJSON lines as messages positioned "line N" (blank lines skipped, numbering kept). */
export function* linesAsMessages(lines: Iterable<string>): Iterable<RawMessage> {
  let number = 0;
  for (const line of lines) {
    number += 1;
    if (line.trim() !== "") yield { position: `line ${number}`, body: line };
  }
}
