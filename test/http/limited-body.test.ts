// Reading a body within a size limit (src/http/limited-body.ts): the one loop behind the reference's 413,
// the transport's ResponseTooLarge and the HAR writer's truncated entries.
import { describe, expect, it } from "vitest";
import { announcedBeyond, joinChunks, readWithinLimit } from "../../src/http/index.ts";

/** A stream of the given chunks; with `breakAfter`, it errors after that many chunks instead of ending. */
function streamOf(chunks: number[], breakAfter?: number) {
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (breakAfter !== undefined && sent === breakAfter) return controller.error(new Error("reset"));
      const size = chunks[sent];
      if (size === undefined) return controller.close();
      controller.enqueue(new Uint8Array(size).fill(sent + 1));
      sent += 1;
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, read: () => sent, cancelled: () => cancelled };
}

describe("readWithinLimit", () => {
  it("reads a body at the limit whole", async () => {
    const source = streamOf([3, 3, 4]);
    const read = await readWithinLimit(source.stream, 10);
    expect(read).toMatchObject({ size: 10, over: false });
    expect("error" in read).toBe(false);
    expect(joinChunks(read.chunks)).toEqual(new Uint8Array([1, 1, 1, 2, 2, 2, 3, 3, 3, 3]));
    expect(source.cancelled()).toBe(false);
  });

  it("stops at the chunk that passes the limit and cancels the stream", async () => {
    const source = streamOf([4, 4, 4, 4, 4]);
    const read = await readWithinLimit(source.stream, 10);
    expect(read).toMatchObject({ size: 12, over: true });
    expect(read.chunks).toHaveLength(3);
    expect(source.read()).toBe(3);
    expect(source.cancelled()).toBe(true);
  });

  it("answers a broken stream with what came before and the error, without rejecting", async () => {
    const read = await readWithinLimit(streamOf([2, 2, 2], 2).stream, 100);
    expect(read).toMatchObject({ size: 4, over: false });
    expect(read.error).toBeInstanceOf(Error);
    expect(joinChunks(read.chunks)).toEqual(new Uint8Array([1, 1, 2, 2]));
  });
});

describe("announcedBeyond", () => {
  it("names a Content-Length above the limit only", () => {
    expect(announcedBeyond(new Headers({ "content-length": "11" }), 10)).toBe("11");
    expect(announcedBeyond(new Headers({ "content-length": "10" }), 10)).toBeUndefined();
    expect(announcedBeyond(new Headers(), 10)).toBeUndefined();
    // Not a number: the body is read and counted instead.
    expect(announcedBeyond(new Headers({ "content-length": "lots" }), 10)).toBeUndefined();
  });
});

describe("joinChunks", () => {
  it("joins chunks, cut to at most max bytes", () => {
    const chunks = [new Uint8Array([1, 2]), new Uint8Array([3, 4, 5])];
    expect(joinChunks(chunks)).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
    expect(joinChunks(chunks, 3)).toEqual(new Uint8Array([1, 2, 3]));
    expect(joinChunks(chunks, 99)).toHaveLength(5);
    expect(joinChunks([])).toHaveLength(0);
  });
});
