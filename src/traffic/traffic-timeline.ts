// What the traffic judge judged when, per party and per rule, over the traffic's own time (its exchanges'
// times, not the clock of the judging), in memory bounded whatever the traffic's length: the buckets are
// fixed in number; when the traffic outgrows them, each bucket doubles in width (neighbours added up), so
// a day of traffic ends with as many buckets as a minute of it. An exchange without a time is counted
// apart, never drawn at a time it does not have.
import type { TrafficTimeline } from "../result/model.ts";

/** The most buckets: the width doubles past it, so the traffic ends in between half of it and it. */
export const MAX_BUCKETS = 60;

/** A time of the traffic (epoch ms), or undefined: the exchange carried none. */
export type Moment = number | undefined;

type Row = number[];

interface Series {
  party: string;
  check: string;
  opportunities: Row;
  findings: Row;
  untimed: { opportunities: number; findings: number };
}

const add = (row: Row, i: number, n: number) => {
  while (row.length <= i) row.push(0);
  row[i] = (row[i] as number) + n;
};

/** Neighbours added up: the row at twice the width. */
const widened = (row: Row): Row => {
  const out: Row = [];
  for (let i = 0; i < row.length; i += 2) out.push((row[i] as number) + (row[i + 1] ?? 0));
  return out;
};

const padded = (row: Row, length: number): Row => [...row, ...new Array<number>(length - row.length).fill(0)];

export class TimelineRecorder {
  private origin: number | undefined;
  private width = 1;
  /** Buckets in use: the last one that holds a time judged, plus one. */
  private used = 0;
  private untimedExchanges = 0;
  private readonly parties = new Map<string, { exchanges: Row; untimed: number }>();
  private readonly series = new Map<string, Series>();

  /** The bucket of a time, the buckets widened to hold it; undefined: no time. A time before the first
   *  exchange judged (later than the reorder buffer could place it) goes in the first bucket. */
  bucketOf(at: Moment): number | undefined {
    if (at === undefined) return undefined;
    this.origin ??= at;
    let i = Math.floor((at - this.origin) / this.width);
    if (i < 0) return 0;
    while (i >= MAX_BUCKETS) {
      this.widen();
      i = Math.floor((at - this.origin) / this.width);
    }
    this.used = Math.max(this.used, i + 1);
    return i;
  }

  private widen(): void {
    this.width *= 2;
    this.used = Math.ceil(this.used / 2);
    for (const p of this.parties.values()) p.exchanges = widened(p.exchanges);
    for (const s of this.series.values()) {
      s.opportunities = widened(s.opportunities);
      s.findings = widened(s.findings);
    }
  }

  /** An exchange of the interface judged, taken part in by `parties` (the service, and its client). */
  exchange(parties: readonly string[], at: Moment): void {
    const i = this.bucketOf(at);
    if (i === undefined) this.untimedExchanges += 1;
    for (const party of parties) {
      let p = this.parties.get(party);
      if (p === undefined) {
        p = { exchanges: [], untimed: 0 };
        this.parties.set(party, p);
      }
      if (i === undefined) p.untimed += 1;
      else add(p.exchanges, i, 1);
    }
  }

  /** `n` opportunities (or findings) of a party's rule, at a time of the traffic. */
  count(party: string, check: string, kind: "opportunities" | "findings", at: Moment, n = 1): void {
    if (n <= 0) return;
    const s = this.seriesOf(party, check);
    const i = this.bucketOf(at);
    if (i === undefined) s.untimed[kind] += n;
    else add(s[kind], i, n);
  }

  private seriesOf(party: string, check: string): Series {
    const key = `${party}\u0000${check}`;
    let s = this.series.get(key);
    if (s === undefined) {
      s = { party, check, opportunities: [], findings: [], untimed: { opportunities: 0, findings: 0 } };
      this.series.set(key, s);
    }
    return s;
  }

  /** The timeline so far, with `pending` counts the judge holds open (a scroll not ended) added to the
   *  picture without being recorded: the judge goes on afterwards. */
  snapshot(
    pending: readonly { party: string; check: string; kind: "opportunities" | "findings"; at: Moment }[] = [],
  ): TrafficTimeline {
    const buckets = this.used;
    const series = new Map(
      [...this.series].map(([key, s]) => [
        key,
        {
          party: s.party,
          check: s.check,
          opportunities: padded(s.opportunities, buckets),
          findings: padded(s.findings, buckets),
          untimed: { ...s.untimed },
        },
      ]),
    );
    for (const p of pending) {
      const key = `${p.party}\u0000${p.check}`;
      let s = series.get(key);
      if (s === undefined) {
        s = {
          party: p.party,
          check: p.check,
          opportunities: new Array<number>(buckets).fill(0),
          findings: new Array<number>(buckets).fill(0),
          untimed: { opportunities: 0, findings: 0 },
        };
        series.set(key, s);
      }
      // Times already judged: inside the buckets in use.
      const i =
        p.at === undefined || this.origin === undefined
          ? undefined
          : Math.min(buckets - 1, Math.max(0, Math.floor((p.at - this.origin) / this.width)));
      if (i === undefined || i < 0) s.untimed[p.kind] += 1;
      else s[p.kind][i] = (s[p.kind][i] as number) + 1;
    }
    return {
      ...(this.origin === undefined ? {} : { start: new Date(this.origin).toISOString() }),
      bucketMs: this.width,
      buckets,
      untimedExchanges: this.untimedExchanges,
      parties: [...this.parties].map(([party, p]) => ({
        party,
        exchanges: padded(p.exchanges, buckets),
        untimed: p.untimed,
      })),
      series: [...series.values()],
    };
  }
}
