// Messages already in memory (tests, benchmarks, generated streams) as a MessageSource.
import type { MessageSource, RawMessage, TransportNotice } from "../transport.ts";

/** Blank lines are not messages (a regular expression stops at the first visible character). */
const blank = /^\s*$/;

/** An async view of a sync iterable without an async generator per step (one resolved promise each). */
function asAsync<T>(items: Iterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = items[Symbol.iterator]();
      return {
        next: () => Promise.resolve(iterator.next()),
        return: (value?: unknown) => {
          iterator.return?.(value);
          return Promise.resolve({ done: true as const, value: undefined });
        },
      };
    },
  };
}

export function memorySource(
  messages: Iterable<RawMessage> | AsyncIterable<RawMessage>,
  description = "memory",
  notices: TransportNotice[] = [],
): MessageSource {
  return {
    description,
    messages: () => (Symbol.asyncIterator in messages ? messages : asAsync(messages)),
    notices: () => notices,
    close: async () => {},
  };
}

/** NDJSON lines as messages positioned "line N" (blank lines skipped, numbering kept). */
export function linesAsMessages(lines: readonly string[]): Iterable<RawMessage> {
  return {
    *[Symbol.iterator]() {
      for (let index = 0; index < lines.length; index++) {
        const line = lines[index] ?? "";
        if (!blank.test(line)) yield { position: `line ${index + 1}`, body: line };
      }
    },
  };
}
