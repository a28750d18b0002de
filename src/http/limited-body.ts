// Reading a body within a size limit, for each side of the wire that must not hold an unbounded body in
// memory: the reference reading a request, the kit's transport reading a target's answer, the HAR writer
// keeping an excerpt. What to do past the limit (refuse with 413, fail the check, mark the entry
// truncated) stays with each caller; the reading itself is written once here.

/** The Content-Length text when it announces more than `limit` bytes, else undefined (absent or not a
 *  number: the body is read and counted instead). */
export function announcedBeyond(headers: Headers, limit: number): string | undefined {
  const announced = headers.get("content-length");
  return announced !== null && Number(announced) > limit ? announced : undefined;
}

/** What came of a body read up to a limit. */
export interface LimitedRead {
  /** The chunks that arrived, in order; when `over`, the chunk that crossed the limit is the last. */
  chunks: Uint8Array[];
  /** Bytes in `chunks`. */
  size: number;
  /** More than `limit` bytes arrived: reading stopped there and the stream was cancelled. */
  over: boolean;
  /** Set when the stream broke off (a reset, an abort): `chunks` holds what came before. */
  error?: unknown;
}

/** Reads `stream` until it ends, breaks off, or passes `limit` bytes (then cancels it, which closes the
 *  connection: nothing more is read). Never rejects: a broken stream comes back as `error`. */
export async function readWithinLimit(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<LimitedRead> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks, size, over: false };
      chunks.push(value);
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return { chunks, size, over: true };
      }
    }
  } catch (error) {
    return { chunks, size, over: false, error };
  }
}

/** The first `max` bytes of `chunks` as one array (all of them when they hold fewer). */
export function joinChunks(chunks: Uint8Array[], max = Number.POSITIVE_INFINITY): Uint8Array {
  const total = Math.min(
    max,
    chunks.reduce((n, c) => n + c.byteLength, 0),
  );
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= total) break;
    const part = chunk.subarray(0, total - at);
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
