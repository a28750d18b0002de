// Messages already in memory (tests, benchmarks, generated streams) as a MessageSource.
import type { MessageSource, RawMessage, TransportNotice } from "../transport.ts";

/** Blank lines are not messages (a regular expression stops at the first visible character). */
const blank = /^\s*$/;

/** Messages that can be read again by their ref (MessageSource.recall). */
export interface RecallableMessages extends Iterable<RawMessage> {
  recall(ref: number): string | undefined;
}

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

function isRecallable(messages: object): messages is RecallableMessages {
  return typeof (messages as Partial<RecallableMessages>).recall === "function";
}

/** A source over messages in memory; it can recall messages when they come from linesAsMessages. */
export function memorySource(
  messages: Iterable<RawMessage> | AsyncIterable<RawMessage>,
  description = "memory",
  notices: TransportNotice[] = [],
): MessageSource {
  const source: MessageSource = {
    description,
    messages: () => (Symbol.asyncIterator in messages ? messages : asAsync(messages)),
    notices: () => notices,
    close: async () => {},
  };
  if (isRecallable(messages)) source.recall = (ref) => messages.recall(ref);
  return source;
}

/** NDJSON lines as messages positioned "line N" (blank lines skipped, numbering kept); each message's
 *  ref is its index, so a source over them can recall it. */
export function linesAsMessages(lines: readonly string[]): RecallableMessages {
  return {
    *[Symbol.iterator]() {
      for (let index = 0; index < lines.length; index++) {
        const line = lines[index] ?? "";
        if (!blank.test(line)) yield { position: `line ${index + 1}`, body: line, ref: index };
      }
    },
    recall: (ref) => lines[ref],
  };
}
