// Judging an endless day in bounded memory: many copies of two example clients' real traffic (one with its
// wrong scroll id), judged with small bounds. The exchanges held never pass the bound, and the judgement is
// the one of unbounded judging: the same finding blamed on the same client, once per copy, none invented
// at a window's edge. Past the bound of open scrolls, a scroll is dropped as undecided, never passed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/result/model.ts";
import { judgeExchanges, judgeTraffic } from "../../src/traffic/judge.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";
import type { TrafficJudge } from "../../src/traffic/traffic-judge.ts";
import { harEntriesOf, twoExampleClients, writeHarCopies } from "./har-copies.ts";

const RULE = "client/scan-passes-previous-scroll-id";
const COPIES = 100;
const SMALL = {
  reorder: 8,
  window: 20,
  context: 6,
  pagesPerScan: 2,
  scans: 3,
  maxClients: 2,
  maxOpenScrolls: 4,
  tokens: 16,
};
const failed = (r: RunResult) => r.checks.filter((c) => c.status === "failed");

let har: string;
let perCopy: number;
beforeAll(async () => {
  const both = await twoExampleClients();
  perCopy = both.length;
  const dir = mkdtempSync(join(tmpdir(), "lckit-bounded-"));
  har = join(dir, "day.har");
  await writeHarCopies(har, harEntriesOf(both), COPIES);
}, 120_000);

describe("lckit judge in bounded memory", () => {
  it("holds no more exchanges than its bounds, whatever the traffic's length", async () => {
    let peak = 0;
    const onExchange = (judge: TrafficJudge) => {
      peak = Math.max(peak, judge.retained);
    };
    const small = await judgeTraffic({ source: har, limits: SMALL, onExchange });
    const context = SMALL.context + SMALL.pagesPerScan * SMALL.scans;
    const bound = SMALL.reorder + 1 + SMALL.maxClients * (SMALL.window + context);
    expect(small.result.subject).toMatchObject({ exchanges: perCopy * COPIES });
    expect(perCopy * COPIES).toBeGreaterThan(10 * bound);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(bound);

    // The same judgement as the whole traffic read at once (no window, no bound).
    const whole = { reorder: 1e9, window: 1e9, maxClients: 1e9 };
    const roomy = await judgeTraffic({ source: har, limits: whole });
    const summary = (r: RunResult) => failed(r).map((c) => [c.suite, c.id, c.message]);
    expect(summary(small.result)).toEqual(summary(roomy.result));
    expect(failed(small.result).map((c) => c.id)).toEqual([`${RULE}[nightly-sync]`]);
    // Found in every copy, as the whole traffic shows it: none lost or doubled at a window's edge.
    const count = Number(/at fault: (\d+) of /.exec(failed(small.result)[0]?.message ?? "")?.[1]);
    expect(count).toBeGreaterThanOrEqual(COPIES);
    const statuses = (r: RunResult) => r.checks.map((c) => [c.id, c.status]);
    expect(statuses(small.result)).toEqual(statuses(roomy.result));
    // Opportunities counted once each, whatever the windows.
    const opportunities = (r: RunResult) => r.checks.map((c) => [c.id, c.opportunities]);
    expect(opportunities(small.result)).toEqual(opportunities(roomy.result));
  }, 120_000);
});

describe("the bound of open scrolls", () => {
  const RDM = "https://rdm.example";
  let seq = 0;
  const page = (path: string, values: string[], sent?: string, next?: string): ReadExchange => {
    seq += 1;
    return {
      seq,
      at: 1_700_000_000_000 + seq,
      method: "POST",
      url: `${RDM}${path}`,
      headers: { authorization: "Bearer [redacted]" },
      ...(sent === undefined ? {} : { body: JSON.stringify({ scrollId: sent }) }),
      status: 200,
      responseHeaders: { "content-type": "application/json" },
      responseBody: JSON.stringify({
        values: values.map((code) => ({ code, type: "rdm/lookupTypes/Country" })),
        ...(next === undefined ? {} : { scrollId: next }),
      }),
      durationMs: 1,
    };
  };
  /** Scrolls opened together, then each continued with a repeat: the repeats show only if followed. */
  const traffic = (n: number) => {
    const firsts = Array.from({ length: n }, (_, i) =>
      page(`/lookups/t${i}/_scan`, ["A", "B"], undefined, `s${i}`),
    );
    const repeats = Array.from({ length: n }, (_, i) => page(`/lookups/t${i}/_scan`, ["B"], `s${i}`));
    return [...firsts, ...repeats];
  };
  const once = (r: RunResult) => r.checks.find((c) => c.id === "service/scroll-every-record-once");

  it("followed within the bound, every repeat is caught", () => {
    const { result } = judgeExchanges(traffic(4), { source: "t.har", limits: { maxOpenScrolls: 4 } });
    expect(once(result)?.message).toMatch(/^service at fault: 4 of 4/);
  });

  it("past it, the oldest are dropped as undecided: said, never passed", () => {
    const { result } = judgeExchanges(traffic(10), { source: "t.har", limits: { maxOpenScrolls: 4 } });
    expect(once(result)?.message).toMatch(/^service at fault: 4 of 4/);
    expect(once(result)?.log?.join("\n")).toMatch(/not decided: 6 scrolls no longer followed/);
  });
});
