// What the traffic judge judged when: recorded traffic with findings at known times lands in the buckets of
// those times, per party and per rule; an exchange without a time is counted apart and said; the buckets
// stay fixed in number however long the traffic.
import { describe, expect, it } from "vitest";
import type { TrafficTimeline } from "../../src/result/model.ts";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";
import { MAX_BUCKETS, TimelineRecorder } from "../../src/traffic/traffic-timeline.ts";
import { reportValidator } from "../report/report-schema.ts";
import { MINUTE_OF_TRAFFIC, S, scan, T0, token } from "./timed-traffic.ts";

const seriesOf = (t: TrafficTimeline, party: string, check: string) =>
  t.series.find((s) => s.party === party && s.check === check);
const timelineOf = (exchanges: ReadExchange[]) => {
  const { result } = judgeExchanges(exchanges, { source: "t.har" });
  if (result.subject.kind !== "traffic" || result.subject.timeline === undefined)
    throw new Error("no timeline in the traffic's result");
  return { result, timeline: result.subject.timeline };
};
/** Where a time of the traffic lands, by the timeline's own buckets. */
const bucket = (t: TrafficTimeline, at: number) =>
  Math.floor((at - Date.parse(t.start as string)) / t.bucketMs);
const only = (t: TrafficTimeline, at: number[]) => {
  const row = new Array<number>(t.buckets).fill(0);
  for (const a of at) row[bucket(t, a)] = (row[bucket(t, a)] as number) + 1;
  return row;
};

describe("the traffic's timeline", () => {
  const traffic = () => MINUTE_OF_TRAFFIC("alpha");

  it("cuts the traffic's span into between half the most buckets and the most, from its first exchange", () => {
    const { timeline } = timelineOf(traffic());
    expect(timeline.start).toBe(new Date(T0).toISOString());
    expect(timeline.buckets).toBeGreaterThanOrEqual(MAX_BUCKETS / 2);
    expect(timeline.buckets).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(timeline.buckets * timeline.bucketMs).toBeGreaterThan(59 * S);
    expect(timeline.untimedExchanges).toBe(0);
  });

  it("places the service's finding and opportunity at the exchange that showed them", () => {
    const { timeline } = timelineOf(traffic());
    const missing = seriesOf(timeline, "service", "service/refuses-missing-token");
    expect(missing?.findings).toEqual(only(timeline, [T0 + 30 * S]));
    expect(missing?.opportunities).toEqual(only(timeline, [T0 + 30 * S]));
  });

  it("places a client's rule's opportunities and finding at the times of its exchanges, under its own id", () => {
    const { timeline, result } = timelineOf(traffic());
    const check = "client/query-parameters-defined[alpha]";
    const rule = seriesOf(timeline, "client alpha", check);
    expect(rule?.findings).toEqual(only(timeline, [T0 + 45 * S]));
    expect(rule?.opportunities).toEqual(
      only(timeline, [T0 + 5 * S, T0 + 20 * S, T0 + 40 * S, T0 + 45 * S, T0 + 59 * S]),
    );
    // The picture adds up to the verdict.
    const verdict = result.checks.find((c) => c.id === check);
    expect(verdict?.status).toBe("failed");
    expect(rule?.opportunities.reduce((a, b) => a + b, 0)).toBe(verdict?.opportunities);
  });

  it("counts each party's exchanges: the service all, a client its own", () => {
    const { timeline } = timelineOf(traffic());
    const party = (p: string) => timeline.parties.find((q) => q.party === p)?.exchanges;
    const alpha = [T0, 5, 20, 40, 45, 59].map((s, i) => (i === 0 ? s : T0 + s * S));
    expect(party("client alpha")).toEqual(only(timeline, alpha));
    expect(party("service")).toEqual(only(timeline, [...alpha, T0 + 30 * S]));
  });

  it("is in report.json's schema", () => {
    const { result } = timelineOf(traffic());
    const validate = reportValidator();
    expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
  });

  it("counts apart, and says, what was judged at an exchange without a time", () => {
    const { timeline } = timelineOf([
      token("alpha", "tok-alpha", T0),
      scan("?limit=2", T0 + 10 * S, "tok-alpha"),
      scan("?limit=2", undefined),
      scan("?limit=2", T0 + 20 * S, "tok-alpha"),
    ]);
    expect(timeline.untimedExchanges).toBe(1);
    const missing = seriesOf(timeline, "service", "service/refuses-missing-token");
    expect(missing?.untimed).toEqual({ opportunities: 1, findings: 1 });
    expect(missing?.findings.every((n) => n === 0)).toBe(true);
    expect(timeline.parties.find((p) => p.party === "service")?.untimed).toBe(1);
  });

  it("has no buckets when no exchange had a time: everything is counted apart", () => {
    const { timeline } = timelineOf([
      token("alpha", "tok-alpha", undefined),
      scan("?limt=2", undefined, "tok-alpha"),
    ]);
    expect(timeline.start).toBeUndefined();
    expect(timeline.buckets).toBe(0);
    expect(timeline.untimedExchanges).toBe(2);
    expect(seriesOf(timeline, "client alpha", "client/query-parameters-defined[alpha]")?.untimed).toEqual({
      opportunities: 1,
      findings: 1,
    });
  });
});

describe("the timeline's recorder", () => {
  it("keeps at most the fixed number of buckets over a day, every count kept", () => {
    const recorder = new TimelineRecorder();
    const day = 24 * 3600 * 1000;
    let n = 0;
    for (let at = 0; at <= day; at += 60_000) {
      recorder.exchange(["service"], T0 + at);
      recorder.count("service", "r", "findings", T0 + at);
      n += 1;
    }
    const t = recorder.snapshot();
    expect(t.buckets).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(t.buckets).toBeGreaterThanOrEqual(MAX_BUCKETS / 2);
    expect(t.series[0]?.findings.length).toBe(t.buckets);
    expect(t.series[0]?.findings.reduce((a, b) => a + b, 0)).toBe(n);
    expect(t.parties[0]?.exchanges.reduce((a, b) => a + b, 0)).toBe(n);
    // The last moment lands in the last bucket, the first in the first.
    expect(t.series[0]?.findings[0]).toBeGreaterThan(0);
    expect(t.series[0]?.findings[t.buckets - 1]).toBeGreaterThan(0);
  });

  it("puts a time before the first one judged in the first bucket, and a snapshot's pending counts only in the picture", () => {
    const recorder = new TimelineRecorder();
    recorder.exchange(["service"], T0 + 1000);
    recorder.exchange(["service"], T0 + 5000);
    recorder.count("service", "r", "opportunities", T0);
    const first = recorder.snapshot([{ party: "service", check: "r", kind: "findings", at: T0 + 5000 }]);
    expect(first.series[0]?.opportunities[0]).toBe(1);
    expect(first.series[0]?.findings[first.buckets - 1]).toBe(1);
    expect(recorder.snapshot().series[0]?.findings.reduce((a, b) => a + b, 0)).toBe(0);
  });
});
