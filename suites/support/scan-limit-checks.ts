// The check factories about a scan's limit: no page above it, the range 1..100, and limits above 100.
import fc from "fast-check";
import { type Check, explore, fail } from "../../src/check/index.ts";
import { describeResponse } from "../../src/client/index.ts";
import { checkProperty } from "./property.ts";
import { isClientError } from "./response-judges.ts";
import { judgeCaseLimit } from "./scan-case-judges.ts";
import { exploreSpace } from "./scan-explorer.ts";
import { ensureEnded, overfullPage } from "./scan-judges.ts";
import { limitArb, limitRuns, partialLimits, partialScroll } from "./scan-limits.ts";
import { fewerThanAPage, readScroll, referenceRead } from "./scan-reads.ts";
import { type Ids, type ScanSubject, subjectReadCheck } from "./scan-subject.ts";
import { scrollEncodingFor } from "./scroll-encoding.ts";
import { clientOf } from "./target-client.ts";

/** No page holds more records than the limit asked for. */
export function pageWithinLimitCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const all = await referenceRead(ctx, subject);
    for (const limit of partialLimits(all.length)) {
      const result = await partialScroll(ctx, subject, limit);
      overfullPage(subject, result, limit);
    }
    await checkProperty(
      ctx,
      fc.asyncProperty(limitArb(all.length), async (limit) => {
        const { result } = await readScroll(ctx, subject, { limit }, all.length, { untilCap: true });
        overfullPage(subject, result, limit);
      }),
      { numRuns: limitRuns(ctx) },
    );
    // Sorted and filtered scrolls page through the same limit.
    await exploreSpace(ctx, subject, all, judgeCaseLimit);
  });
}

/** Outside 1..100 the limit is refused with 400. */
export function limitOutOfRangeCheck(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    for (const limit of [0, -1, 101, 1000, "ten"]) {
      const response = await clientOf(ctx).scanFirst(await ctx.token(subject.role), subject.endpoint(ctx), {
        limit,
      });
      if (response.status !== 400) fail(`limit=${limit}: expected 400, got ${describeResponse(response)}`);
    }
  });
}

/** A limit above 100 never yields a page above 100: refused (4xx), or clamped. The profile may pin which. */
export function limitAbove100Check(subject: ScanSubject, ids: Ids): Check {
  return subjectReadCheck(subject, ids, async (ctx) => {
    const clamps = ctx.target.profile.clampsLimit;
    const endpoint = subject.endpoint(ctx);
    const encoding = await scrollEncodingFor(ctx, subject.role, endpoint);
    explore(ctx, "scan", subject.scan ?? subject.name);
    let judged = false;
    for (const limit of [101, 150, 1000]) {
      explore(ctx, "limit", limit);
      const result = await clientOf(ctx).scanAll(await ctx.token(subject.role), endpoint, {
        query: { limit },
        encoding,
        maxPages: 50,
      });
      const refused =
        result.end === "error" && result.pages.length === 0 && isClientError(result.failure?.status ?? 0);
      if (refused) {
        if (clamps === true)
          fail(`limit=${limit}: the profile says the target clamps the limit, but it refused it`);
        judged = true;
        continue;
      }
      if (clamps === false)
        fail(`limit=${limit}: the profile says the target refuses limits above 100, but it answered a page`);
      ensureEnded(result, `${subject.name} with limit=${limit}`);
      for (const [index, page] of result.pages.entries())
        if (page.values.length > 100)
          fail(
            `${subject.name} with limit=${limit}: page ${index + 1} holds ${page.values.length} records; at most 100`,
          );
      judged ||= result.records.length > 100;
    }
    if (!judged) fewerThanAPage(ctx, subject, "limits above 100 were answered");
  });
}
