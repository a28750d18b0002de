// Read once, judge many: the run's recordings of scan scrolls, shared by its read checks. A scroll is
// recorded by (scan, query, encoding) as far as it was read; a check that needs fewer pages is answered from
// the recording, one that needs more goes on reading the same scroll where it stopped. The runner hands the
// recordings to read checks only and drops them before a check that may change data, so a recording never
// outlives the data it shows; without them (a check that writes, a bare context) every read is sent.
import type { CheckContext, CredentialRole } from "../../src/check/index.ts";
import type { FullScanResult, ScanEndpoint, ScanQuery, ScrollIdEncoding } from "../../src/client/index.ts";
import { clientOf } from "./target-client.ts";

/**
 * One recorded answer (or any read) by key: the first asker sends it, later askers get the same promise. A
 * read that threw (a check ending, a refused request) is no recording: the next asker reads anew.
 */
export async function recorded<T>(ctx: CheckContext, key: unknown, read: () => Promise<T>): Promise<T> {
  const recordings = ctx.recordings;
  if (!recordings) return read();
  const k = JSON.stringify(key);
  const known = recordings.get(k) as Promise<T> | undefined;
  if (known) return known;
  const reading = read();
  recordings.set(k, reading);
  reading.catch(() => {
    if (recordings.get(k) === reading) recordings.delete(k);
  });
  return reading;
}

/** How far a scroll was read: its pages, and whether it ended (any end but the page cap of a read). */
interface ScrollRecording {
  result: FullScanResult<unknown>;
  ended: boolean;
}

export interface ScrollRead {
  role: CredentialRole;
  endpoint: ScanEndpoint;
  query: ScanQuery;
  encoding: ScrollIdEncoding;
}

/**
 * The first `maxPages` pages of a scroll, as scanAll with that page cap answers them (end "page-cap" when
 * the scroll goes on), from the run's recording of the same scroll where it reaches that far.
 */
export async function readPages(
  ctx: CheckContext,
  read: ScrollRead,
  maxPages: number,
): Promise<FullScanResult<unknown>> {
  const recordings = ctx.recordings;
  if (!recordings) return (await extend(ctx, read, undefined, maxPages)).result;
  const key = JSON.stringify(["scroll", read.role, read.endpoint, read.query, read.encoding]);
  for (;;) {
    const known = recordings.get(key) as Promise<ScrollRecording> | undefined;
    const recording = known ? await known.catch(() => undefined) : undefined;
    if (recording && (recording.ended || recording.result.pages.length >= maxPages))
      return prefix(recording, maxPages);
    // Another check may have gone on with the scroll while this one waited: look again.
    if (recordings.get(key) !== known) continue;
    const reading = extend(ctx, read, recording, maxPages);
    recordings.set(key, reading);
    reading.catch(() => {
      if (recordings.get(key) === reading) recordings.delete(key);
    });
    return prefix(await reading, maxPages);
  }
}

/** The recording cut to `maxPages` pages, as a read with that cap would have ended. */
function prefix(recording: ScrollRecording, maxPages: number): FullScanResult<unknown> {
  const { result } = recording;
  if (result.pages.length <= maxPages) return result;
  const pages = result.pages.slice(0, maxPages);
  return { pages, records: pages.flatMap((p) => p.values), end: "page-cap", capped: "pages" };
}

/** Reads the scroll up to `maxPages` pages, going on from `recording` where there is one. */
async function extend(
  ctx: CheckContext,
  read: ScrollRead,
  recording: ScrollRecording | undefined,
  maxPages: number,
): Promise<ScrollRecording> {
  const client = clientOf(ctx);
  const auth = await ctx.token(read.role);
  const options = { query: read.query, encoding: read.encoding };
  const last = recording?.result.pages.at(-1);
  if (recording && last?.scrollId !== undefined) {
    const more = await client.scanAll(auth, read.endpoint, {
      ...options,
      maxPages: maxPages - recording.result.pages.length,
      after: { scrollId: last.scrollId, values: last.values },
    });
    // A scroll id that expired since it was recorded answers no page: read the scroll anew instead.
    if (more.pages.length > 0 || more.end === "empty-page" || more.end === "repeated-scroll-id") {
      const pages = [...recording.result.pages, ...more.pages];
      const result: FullScanResult<unknown> = { ...more, pages, records: pages.flatMap((p) => p.values) };
      return { result, ended: !(more.end === "page-cap" && more.capped === "pages") };
    }
  }
  const result = await client.scanAll(auth, read.endpoint, { ...options, maxPages });
  return { result, ended: !(result.end === "page-cap" && result.capped === "pages") };
}
