// Reading whole scrolls of a scan (from the run's recordings where they reach): the reference read every other
// read is compared with, and what a scan that answers too little leaves undecided.
import { type CheckContext, inconclusive } from "../../src/check/index.ts";
import type { FullScanResult, ScanQuery } from "../../src/client/index.ts";
import { readPages } from "./recorded-scrolls.ts";
import { ensureEnded, failFinding, identityFinding, pageIdentities } from "./scan-judges.ts";
import type { ScanRecordShape, ScanSubject } from "./scan-subject.ts";
import { scrollEncodingFor } from "./scroll-encoding.ts";

/** Against a large live data set, small limits would mean thousands of requests: keep scrolls <= 200 pages. */
export function smallestLimit(total: number): number {
  return Math.min(100, Math.max(1, Math.ceil(total / 200)));
}

export interface ScanRead {
  result: FullScanResult<ScanRecordShape>;
  records: ScanRecordShape[];
}

/**
 * Every page of one scroll. `expectedTotal` bounds the page count (twice the pages needed, plus slack).
 * Fails on an answer that is not a page; a scroll that does not end is a failure too unless `untilCap`
 * (checks that judge pages, not the end, look at what came).
 */
export async function readScroll(
  ctx: CheckContext,
  subject: ScanSubject,
  query: ScanQuery,
  expectedTotal?: number,
  options: { untilCap?: boolean } = {},
): Promise<ScanRead> {
  const limit = typeof query.limit === "number" ? query.limit : 100;
  const maxPages = expectedTotal === undefined ? 1000 : 2 * Math.ceil(expectedTotal / limit) + 10;
  const result = await scrollPages(ctx, subject, query, maxPages);
  const endless = result.end === "page-cap" || result.end === "repeated-scroll-id";
  if (!(options.untilCap && endless)) ensureEnded(result, `${subject.name} ${JSON.stringify(query)}`);
  return { result, records: result.records as ScanRecordShape[] };
}

/** The first `maxPages` pages of a scroll of the subject, from the run's recordings where they reach. */
export async function scrollPages(
  ctx: CheckContext,
  subject: ScanSubject,
  query: ScanQuery,
  maxPages: number,
): Promise<FullScanResult<ScanRecordShape>> {
  const endpoint = subject.endpoint(ctx);
  const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
  const read = { role: subject.role, endpoint, query, encoding };
  return (await readPages(ctx, read, maxPages)) as FullScanResult<ScanRecordShape>;
}

/** The unfiltered, default-ordered contents: what every other read is compared with. Repeats are a
 *  finding of the exactly-once checks only (`strict`); other checks work on the distinct records, so
 *  that one fault fails the checks of its rule and not every check that reads. */
export async function referenceRead(
  ctx: CheckContext,
  subject: ScanSubject,
  options: { strict?: boolean } = {},
): Promise<ScanRecordShape[]> {
  const { result, records } = await readScroll(ctx, subject, {});
  if (records.length === 0) nothingToJudge(ctx, subject);
  const ids = records.map(subject.identity);
  if (options.strict)
    failFinding(
      identityFinding(ids, ids, { pages: pageIdentities(subject, result) }),
      `${subject.name} without parameters`,
      result.pages[0]?.response.request,
    );
  return distinct(subject, records);
}

/** A scan that answered no record leaves a rule about its records nothing to judge: an empty tenant and a
 *  scan that answers nothing look the same, and neither may pass for a judged scan. */
export function nothingToJudge(ctx: CheckContext, subject: ScanSubject): never {
  inconclusive({
    saw: `${subject.name} of tenant ${ctx.target.tenant} answered no record`,
    readings: ["the tenant holds none", "the scan answers nothing"],
    decideBy: `certify with a tenant whose data ${subject.name} lists (the target file's tenant)`,
  });
}

/** At most 100 records fit one page whatever limit a scan applies: a page cap of 100 is not judged. */
export function fewerThanAPage(ctx: CheckContext, subject: ScanSubject, what: string): never {
  inconclusive({
    saw: `${what}, and ${subject.name} of tenant ${ctx.target.tenant} holds at most 100 records`,
    readings: ["pages are held to 100 records", "a larger page would come with more records"],
    decideBy: `certify with a tenant whose data ${subject.name} lists holds more than 100 records`,
  });
}

export function distinct(subject: ScanSubject, records: ScanRecordShape[]): ScanRecordShape[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const id = subject.identity(record);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
