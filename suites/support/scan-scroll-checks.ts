// The check factories about scrolling itself: the scan ends, the first request may carry a null body, and the
// kit's choices for the next-page body, the end without scrollId and an unknown scroll id.
import { type Check, explore, fail, requestOf } from "../../src/check/index.ts";
import {
  describeResponse,
  type InterfaceClient,
  pageOf,
  type ScanEndpoint,
  type ScrollIdEncoding,
  scrollIdEncodings,
} from "../../src/client/index.ts";
import { judgeSuccess } from "./response-judges.ts";
import { noteScroll } from "./scan-explorer.ts";
import { ensureEnded, few, requestDetail } from "./scan-judges.ts";
import { boundaryLimits } from "./scan-limits.ts";
import { nothingToJudge, scrollPages } from "./scan-reads.ts";
import { type Ids, type ScanRecordShape, type ScanSubject, subjectReadCheck } from "./scan-subject.ts";
import { scrollEncodingFor } from "./scroll-encoding.ts";
import { clientOf } from "./target-client.ts";

/** The scan ends after finitely many pages: no scrollId, or an empty page after which nothing follows. */
export function endsCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const endpoint = subject.endpoint(ctx);
    const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
    const client = clientOf(ctx);
    const auth = await ctx.token(subject.role);
    // Two page sizes, the second small enough for many pages yet within a whole scroll's page budget
    // (the size of the set comes from the first scroll): the smallest limit the exactly-once check reads
    // whole, so both scrolls are usually recorded already.
    let total: number | undefined;
    for (const limit of [100, 7]) {
      const size = total === undefined ? limit : (boundaryLimits(total, limit)[0] ?? 100);
      const first = await scrollPages(ctx, subject, { limit: size }, 2000);
      total ??= first.records.length;
      noteScroll(ctx, subject, { limit: size }, first);
      ensureEnded(first, `${subject.name} with limit=${size}`);
      // A scroll of nothing ends at once whatever the scan does after its records.
      if (total === 0) nothingToJudge(ctx, subject);
      if (first.end !== "empty-page") continue;
      // An empty page may precede the end (deployments differ); nothing may follow it.
      const last = first.pages.at(-1)?.scrollId;
      const emptyPage =
        last === undefined ? undefined : await followEmpty(client, auth, endpoint, last, encoding);
      if (emptyPage)
        fail(`${subject.name} with limit=${size}: ${emptyPage}`, {
          expected: "nothing after an empty page",
          actual: emptyPage,
          pages: [first.pages.length + 1],
          ...requestDetail(first),
        });
    }
  });
}

async function followEmpty(
  client: InterfaceClient,
  auth: string,
  endpoint: ScanEndpoint,
  lastScrollId: string,
  encoding: ScrollIdEncoding,
): Promise<string | undefined> {
  // The page after the last non-empty one was empty; follow the scroll twice more to see that it stays so.
  const afterLast = pageOf(await client.scanNext(auth, endpoint, lastScrollId, encoding));
  let scrollId = afterLast?.scrollId;
  for (let i = 0; i < 2 && scrollId; i++) {
    const next = await client.scanNext(auth, endpoint, scrollId, encoding);
    const page = pageOf(next);
    if (!page) return undefined; // refused after the end: an end all the same
    if (page.values.length > 0)
      return `records came after an empty page (${page.values.length} on a later page)`;
    scrollId = page.scrollId;
  }
  return undefined;
}

/** The first request may carry a JSON null body: same first page as with no body. */
export function firstPageNullBodyCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const client = clientOf(ctx);
    const auth = await ctx.token(subject.role);
    const endpoint = subject.endpoint(ctx);
    explore(ctx, "scan", subject.scan ?? subject.name);
    const none = await client.scanFirst(auth, endpoint, { limit: 5 });
    const nullBody = await client.scanFirst(auth, endpoint, { limit: 5 }, { firstBody: "null" });
    for (const [what, response] of [
      ["no body", none],
      ["a null body", nullBody],
    ] as const) {
      const problem = judgeSuccess(response, `the first request of ${subject.name} with ${what}`);
      if (problem !== undefined || !pageOf(response))
        fail(
          problem ??
            `expected {"scrollId", "values": [...]} for the first page with ${what}, got ${describeResponse(response)}`,
          {
            expected: `a first page for a request with ${what}`,
            actual: `${response.status} ${response.text.slice(0, 200)}`,
            request: requestOf(response.request.method, response.request.url),
          },
        );
    }
    const a = pageOf(none)?.values.map((r) => subject.identity(r as ScanRecordShape));
    const b = pageOf(nullBody)?.values.map((r) => subject.identity(r as ScanRecordShape));
    if (JSON.stringify(a) !== JSON.stringify(b))
      fail(
        `the first page with a null body differs from the first page with no body: ${few(b ?? [])} vs ${few(a ?? [])}`,
      );
  });
}

/** Each of the three encodings of the next-page body is accepted ({"scrollId"} is the kit's choice). */
export function scrollBodyCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const client = clientOf(ctx);
    const auth = await ctx.token(subject.role);
    const endpoint = subject.endpoint(ctx);
    for (const encoding of scrollIdEncodings) {
      const first = pageOf(await client.scanFirst(auth, endpoint, { limit: 2 }));
      if (!first?.scrollId) return; // a single page: no next-page request to judge
      const next = await client.scanNext(auth, endpoint, first.scrollId, encoding);
      const page = pageOf(next);
      if (!page)
        fail(`expected the next page for a scroll id sent as ${encoding}, got ${describeResponse(next)}`);
    }
  });
}

/** The end of results is a response without scrollId (the kit's choice), at most after empty pages. */
export function endWithoutScrollIdCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    // Any whole scroll shows how it ends: the one at limit 100 is recorded by the other checks already.
    const result = await scrollPages(ctx, subject, { limit: 100 }, 2000);
    ensureEnded(result, subject.name);
    const lastPage = result.pages.at(-1);
    if (result.end !== "no-scroll-id" || lastPage?.scrollId !== undefined)
      fail(
        `expected the last page of ${subject.name} to carry no scrollId; the scan ended with ${result.end}` +
          (lastPage?.scrollId ? ` and the last non-empty page carries scrollId ${lastPage.scrollId}` : ""),
        {
          expected: "a last page without scrollId",
          actual: `the scan ended with ${result.end === "empty-page" ? "an empty page" : result.end}`,
          field: "scrollId",
          pages: [result.pages.length],
          ...requestDetail(result),
        },
      );
  });
}

/** An unknown scroll id is refused with 400. */
export function unknownScrollIdCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const endpoint = subject.endpoint(ctx);
    const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
    const response = await clientOf(ctx).scanNext(
      await ctx.token(subject.role),
      endpoint,
      "lckit-unknown-scroll-id-0000",
      encoding,
    );
    if (response.status !== 400)
      fail(`expected 400 for an unknown scroll id, got ${describeResponse(response)}`);
  });
}
