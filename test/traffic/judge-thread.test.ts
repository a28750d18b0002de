// The judge off the forwarding path: a JudgeThread gives the judgement the in-process judge gives on the
// same exchanges, and an exchange that finds its bounded queue full is counted and said in the report,
// never passed in silence.
import { describe, expect, it } from "vitest";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import { JudgeThread } from "../../src/traffic/judge-thread.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";
import type { ProxyCounts } from "../../src/traffic/traffic-judge.ts";
import { reportValidator } from "../report/report-schema.ts";
import { closedAfterEach } from "./proxy-in-process.ts";

const T0 = 1_700_000_000_000;
const page = (i: number, codes: string[], next?: string): ReadExchange => ({
  seq: i,
  at: T0 + i * 10,
  method: "POST",
  url: "https://rdm.example/lookups/acme/_scan",
  headers: { authorization: "Bearer tok-abcdef" },
  ...(i === 0 ? {} : { body: JSON.stringify({ scrollId: `s${i}` }) }),
  status: 200,
  responseHeaders: { "content-type": "application/json" },
  responseBody: JSON.stringify({
    values: codes.map((code) => ({ code, type: "rdm/lookupTypes/Country" })),
    ...(next ? { scrollId: next } : {}),
  }),
  durationMs: 1,
});
/** A scroll that returns B twice: one service finding. */
const exchanges = [page(0, ["A", "B"], "s1"), page(1, ["B", "C"])];
const counts = (): ProxyCounts => ({
  forwarded: 3,
  upstreamTimedOut: 0,
  upstreamReset: 0,
  malformedRequests: 0,
  clientAborted: 0,
  firstFailures: [],
});

const opened = closedAfterEach();

describe("JudgeThread", () => {
  it("judges in its thread as the judge does in process", async () => {
    const thread = opened(new JudgeThread());
    for (const x of exchanges) thread.add(x);
    const { result } = await thread.judgement({ source: "proxy", startedAt: new Date() });
    const inProcess = judgeExchanges(exchanges, { source: "proxy" }).result;
    const statuses = (r: typeof result) => r.checks.map((c) => `${c.id} ${c.status}`);
    expect(statuses(result)).toEqual(statuses(inProcess));
    expect(result.checks.find((c) => c.id === "service/scroll-every-record-once")?.status).toBe("failed");
    expect(thread.notJudged).toBe(0);
  }, 30_000);

  it("counts what its full queue turned away and the report says so", async () => {
    const thread = opened(new JudgeThread({}, { exchanges: 1 }));
    for (const x of [...exchanges, page(2, ["D"])]) thread.add(x);
    expect(thread.notJudged).toBe(2);
    const { result } = await thread.judgement({ source: "proxy", startedAt: new Date(), proxy: counts() });
    expect(result.verdictReason).toMatch(
      /2 exchanges forwarded but not judged \(the judge's queue was full\)/,
    );
    expect(result.subject).toMatchObject({ proxy: { notJudged: 2 } });
    expect(reportValidator()(result), JSON.stringify(reportValidator().errors)).toBe(true);
  }, 30_000);
});
