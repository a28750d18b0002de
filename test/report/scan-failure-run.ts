// A run whose scan check fails with a structured detail: record key-0021 served on page 2 and again on page 7
// of a nine-page scan (the correct scan passes), plus a check that fails with a bare sentence. Used by the
// failure-detail test and by the browser test of report.html.
import { type CheckContext, fail, requestOf } from "../../src/check/index.ts";
import type { RunResult } from "../../src/result/model.ts";
import { planRun } from "../../src/runner/plan.ts";
import { runPlan } from "../../src/runner/run.ts";
import { systemClock } from "../../src/target/system-clock.ts";
import { check, fakeTarget } from "../runner/fake-target.ts";

export const PAGES = 9;
/** The record a faulty scan serves twice: on page 2 and again on page 7. */
export const REPEATED = "key-0021";

/** A paged scan: page n holds keys n1 and n2, except that the faulty one serves page 2's first key again on
 *  page 7 (where key-0071 belongs). */
function scanFetch(faulty: boolean) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== "/scan") return Response.json({ error: "not_found" }, { status: 404 });
    const page = Number(url.searchParams.get("page"));
    const keys = [`key-00${page}1`, `key-00${page}2`];
    if (faulty && page === 7) keys[0] = REPEATED;
    return Response.json({ items: keys.map((key) => ({ key, value: `v-${key}` })), last: page === PAGES });
  };
}

/** A check that reads every page and fails, with the detail, on the first record it sees twice. */
async function everyRecordOnce(ctx: CheckContext): Promise<void> {
  const firstPage = new Map<string, number>();
  for (let page = 1; page <= PAGES; page++) {
    const url = `${ctx.target.rdmUrl}/scan?page=${page}`;
    const body = (await (await ctx.fetch(url)).json()) as { items: { key: string }[] };
    for (const [i, item] of body.items.entries()) {
      const seen = firstPage.get(item.key);
      if (seen !== undefined)
        fail(`record ${item.key} came twice: on page ${seen} and again on page ${page}`, {
          expected: "each record once in a scan",
          actual: `${item.key} on page ${seen} and on page ${page}`,
          request: requestOf("GET", url),
          record: item.key,
          field: `items.${i}.key`,
          pages: [seen, page],
        });
      firstPage.set(item.key, page);
    }
  }
}

export async function scanFailureRun(faulty: boolean): Promise<RunResult> {
  const target = fakeTarget({ loopback: false });
  const checks = [
    check("lookup-scan/every-record-once", everyRecordOnce, { requirements: ["SCAN-01"] }),
    // A failure with a bare sentence: reported as it always was, with no details at all.
    check("lookup-scan/bare", async () => fail("a sentence and nothing else"), { requirements: ["SCAN-02"] }),
  ];
  return runPlan(planRun(checks, { target }), {
    fetch: scanFetch(faulty),
    clock: systemClock(),
    seed: 1,
    runs: 1,
    timeoutMs: 1000,
    command: "lckit run --target target.yaml",
    catalogue: {
      path: "requirements/catalogue.yaml",
      requirements: ["SCAN-01", "SCAN-02"].map((id) => ({ id, section: "S", level: "MUST", text: id })),
    },
  });
}
