// What the traffic judge judged when, in report.html: per party a picture of its opportunities and
// findings along the traffic's own time, then one per rule of that party that had any. Inline SVG, no
// script; readable without colour: opportunities rise above the line, findings hang below it, and every
// bucket and picture says its counts in words (title, label).
import type { CheckResult, RunResult, TrafficTimeline } from "../result/model.ts";
import { escapeHtml as h } from "./escape.ts";
import { outcomeLabel, outcomeOf } from "./outcome.ts";
import { durationText } from "./timeline.ts";

/** Parties drawn at most (the service, then the clients with the most findings): report.json holds all. */
const PARTIES_DRAWN = 50;
const BAR = 10;
const UP = 40;
const DOWN = 20;

type Series = TrafficTimeline["series"][number];
const sum = (row: readonly number[]) => row.reduce((a, b) => a + b, 0);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** Adds rows bucket by bucket. */
const added = (rows: readonly (readonly number[])[], length: number) =>
  Array.from({ length }, (_, i) => rows.reduce((a, row) => a + (row[i] ?? 0), 0));

/** The time of day a bucket begins, UTC, to the millisecond when buckets are that fine. */
function clock(t: TrafficTimeline, i: number): string {
  const at = new Date(Date.parse(t.start as string) + i * t.bucketMs).toISOString();
  return t.bucketMs < 1000 ? at.slice(11, 23) : at.slice(11, 19);
}

/** One picture: opportunities as bars above the line, findings below it, a title per bucket. */
function chart(t: TrafficTimeline, label: string, opportunities: number[], findings: number[]): string {
  const topO = Math.max(1, ...opportunities);
  const topF = Math.max(1, ...findings);
  const bars = opportunities
    .map((o, i) => {
      const f = findings[i] ?? 0;
      if (o === 0 && f === 0) return "";
      const x = i * BAR + 1;
      const up = o === 0 ? 0 : Math.max(1.5, (UP - 2) * (o / topO));
      const down = f === 0 ? 0 : Math.max(2, (DOWN - 2) * (f / topF));
      return `<g><title>${h(`${clock(t, i)} UTC, ${durationText(t.bucketMs)}: ${plural(o, "opportunity", "opportunities")}, ${plural(f, "finding")}`)}</title>${up > 0 ? `<rect class="t-opp" x="${x}" y="${(UP - up).toFixed(1)}" width="${BAR - 2}" height="${up.toFixed(1)}"/>` : ""}${down > 0 ? `<rect class="t-find" x="${x}" y="${UP + 1}" width="${BAR - 2}" height="${down.toFixed(1)}"/>` : ""}</g>`;
    })
    .join("");
  const width = Math.max(1, t.buckets) * BAR;
  const findingAt = findings.flatMap((f, i) => (f > 0 ? [clock(t, i)] : []));
  const words = `${label}: ${plural(sum(opportunities), "opportunity", "opportunities")}, ${plural(sum(findings), "finding")}${findingAt.length > 0 ? `, findings in the buckets from ${findingAt.slice(0, 5).join(", ")}${findingAt.length > 5 ? " …" : ""}` : ""}`;
  return `<svg class="tchart" viewBox="0 0 ${width} ${UP + DOWN}" preserveAspectRatio="none" role="img" aria-label="${h(words)}"><title>${h(words)}</title><line class="t-line" x1="0" y1="${UP}" x2="${width}" y2="${UP}"/>${bars}</svg>`;
}

const untimedText = (s: { opportunities: number; findings: number }) =>
  s.opportunities + s.findings > 0
    ? ` (and at exchanges without a time: ${plural(s.opportunities, "opportunity", "opportunities")}, ${plural(s.findings, "finding")})`
    : "";

function partyBlock(
  result: RunResult,
  t: TrafficTimeline,
  party: string,
  series: Series[],
  rowId: (c: CheckResult) => string,
): string {
  const exchanges = t.parties.find((p) => p.party === party);
  const opportunities = added(
    series.map((s) => s.opportunities),
    t.buckets,
  );
  const findings = added(
    series.map((s) => s.findings),
    t.buckets,
  );
  const untimed = {
    opportunities: sum(series.map((s) => s.untimed.opportunities)),
    findings: sum(series.map((s) => s.untimed.findings)),
  };
  const rules = series
    .filter((s) => sum(s.opportunities) + sum(s.findings) + s.untimed.opportunities + s.untimed.findings > 0)
    .map((s) => {
      const check = result.checks.find((c) => c.id === s.check);
      const name =
        check === undefined
          ? `<code>${h(s.check)}</code>`
          : `<a href="#${h(rowId(check))}"><code>${h(s.check)}</code></a> (${h(outcomeLabel(outcomeOf(check)))})`;
      return `<figure class="trule"><figcaption>${name}: ${h(plural(sum(s.opportunities), "opportunity", "opportunities"))}, ${h(plural(sum(s.findings), "finding"))}${h(untimedText(s.untimed))}</figcaption>${chart(t, `${party}, ${s.check}`, s.opportunities, s.findings)}</figure>`;
    })
    .join("");
  const seen = exchanges === undefined ? 0 : sum(exchanges.exchanges) + exchanges.untimed;
  return `<section class="tparty" aria-label="${h(party)}"><h3>${h(party)}</h3>
<figure class="tparty-all"><figcaption>${h(`${plural(seen, "exchange")} of the interface; every rule together: ${plural(sum(opportunities), "opportunity", "opportunities")} judged, ${plural(sum(findings), "finding")}${untimedText(untimed)}`)}</figcaption>${chart(t, `${party}, every rule`, opportunities, findings)}</figure>
<details${sum(findings) + untimed.findings > 0 ? " open" : ""}><summary>${h(`Per rule (${plural(series.length, "rule")} with opportunities)`)}</summary><div class="trules">${rules}</div></details>
</section>`;
}

/** The section, for a traffic judgement that holds a timeline; "" otherwise. */
export function trafficTimeSection(result: RunResult, rowId: (c: CheckResult) => string): string {
  const { subject } = result;
  if (subject.kind !== "traffic" || subject.timeline === undefined) return "";
  const t = subject.timeline;
  const seriesOf = (party: string) =>
    t.series.filter(
      (s) =>
        s.party === party &&
        sum(s.opportunities) + s.untimed.opportunities + sum(s.findings) + s.untimed.findings > 0,
    );
  const findingsOf = (party: string) => sum(seriesOf(party).map((s) => sum(s.findings) + s.untimed.findings));
  const parties = subject.parties.filter((p) => seriesOf(p).length > 0);
  const drawn = [
    ...parties.filter((p) => p === "service"),
    ...parties
      .filter((p) => p !== "service")
      .sort((a, b) => findingsOf(b) - findingsOf(a) || (a < b ? -1 : 1)),
  ].slice(0, PARTIES_DRAWN);
  const end = t.start === undefined ? undefined : new Date(Date.parse(t.start) + t.buckets * t.bucketMs);
  const span =
    t.start === undefined
      ? "No exchange of this traffic carried a time, so nothing is drawn along it; the counts below are those of exchanges without a time."
      : `From ${t.start} to ${(end as Date).toISOString()}: ${plural(t.buckets, "bucket")} of ${durationText(t.bucketMs)} of the traffic's own time (its exchanges' times).`;
  const untimed =
    t.untimedExchanges > 0
      ? ` ${plural(t.untimedExchanges, "exchange")} carried no time: what was judged at them is counted apart, not drawn.`
      : "";
  const left =
    parties.length > drawn.length
      ? `<p>${parties.length - drawn.length} more parties are not drawn here; report.json holds their timelines (subject.timeline).</p>`
      : "";
  return `<section id="traffic-time"><h2>Traffic over time</h2>
<p>${h(span)}${h(untimed)} In each picture, bars above the line are the opportunities judged in a bucket, bars below it the findings; each bucket's title says its counts.</p>
${parties.length === 0 ? "<p>No rule had an opportunity in this traffic, so there is nothing to draw.</p>" : drawn.map((p) => partyBlock(result, t, p, seriesOf(p), rowId)).join("\n")}
${left}</section>`;
}
