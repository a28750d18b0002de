// A caller rule counts a client's window as a whole; its opportunities are placed in the timeline by
// judging the window's prefixes. A client whose window spans many buckets (a scan a minute for half an
// hour) with a few opportunities among them gets each placed in its own bucket, beside its finding, not in
// a later bucket.
import { describe, expect, it } from "vitest";
import type { TrafficTimeline } from "../../src/result/model.ts";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import { S, scan, T0, token } from "./timed-traffic.ts";

const MINUTE = 60 * S;
const CHECK = "client/query-parameters-defined[alpha]";

describe("the timeline of a client's window spread over many buckets", () => {
  it("places each opportunity in the bucket of its exchange, and the picture adds up to the verdict", () => {
    // A scan a minute; two of them with a query string (an opportunity), the second's parameter undefined.
    const traffic = [token("alpha", "tok-alpha", T0)];
    for (let m = 1; m <= 30; m++)
      traffic.push(scan(m === 8 ? "?limit=2" : m === 22 ? "?limt=2" : "", T0 + m * MINUTE, "tok-alpha"));
    const { result } = judgeExchanges(traffic, { source: "t.har" });
    if (result.subject.kind !== "traffic" || result.subject.timeline === undefined)
      throw new Error("no timeline in the traffic's result");
    const timeline: TrafficTimeline = result.subject.timeline;
    const bucket = (at: number) => Math.floor((at - T0) / timeline.bucketMs);
    // Every scan in a bucket of its own: the window spans more buckets than it is cut at.
    expect(new Set(traffic.map((x) => bucket(x.at as number))).size).toBe(31);
    const series = timeline.series.find((s) => s.check === CHECK);
    const only = (...minutes: number[]) => {
      const row = new Array<number>(timeline.buckets).fill(0);
      for (const m of minutes) row[bucket(T0 + m * MINUTE)] = 1;
      return row;
    };
    expect(series?.opportunities).toEqual(only(8, 22));
    expect(series?.findings).toEqual(only(22));
    const verdict = result.checks.find((c) => c.id === CHECK);
    expect(verdict).toMatchObject({ status: "failed", opportunities: 2 });
  });
});
