// report.html's traffic over time: one picture per party and one per rule of that party that had
// opportunities, every id escaped, drawn inline (SVG, no script, no asset), readable without colour (each
// picture and bucket says its counts in words); nothing of it for a run that is not traffic.
import { describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html.ts";
import { trafficTimeSection } from "../../src/report/html-traffic.ts";
import { HOSTILE_CLIENT, judgedMinutes } from "../traffic/timed-traffic.ts";
import { sampleRun } from "./sample-run.ts";

const HOSTILE = HOSTILE_CLIENT;
const rowId = (c: { id: string }) => `row-${c.id}`;
const judged = judgedMinutes;

const count = (html: string, what: string) => html.split(what).length - 1;

describe("report.html's traffic over time", () => {
  it("draws one picture per party and one per rule of it that had opportunities, no more", () => {
    const result = judged();
    if (result.subject.kind !== "traffic" || result.subject.timeline === undefined)
      throw new Error("no timeline");
    const html = trafficTimeSection(result, rowId);
    const series = result.subject.timeline.series.filter(
      (s) => s.opportunities.some((n) => n > 0) || s.untimed.opportunities > 0,
    );
    const parties = new Set(series.map((s) => s.party));
    expect([...parties].sort()).toEqual(["client a<b>&\"c'", "client alpha", "service"]);
    expect(count(html, '<section class="tparty"')).toBe(parties.size);
    expect(count(html, '<figure class="trule">')).toBe(series.length);
    expect(count(html, '<svg class="tchart"')).toBe(parties.size + series.length);
    // Each rule's picture links to its row and says its counts in words.
    const query = "client/query-parameters-defined[alpha]";
    expect(html).toContain(`href="#row-${query}"`);
    expect(html).toMatch(
      /client alpha, client\/query-parameters-defined\[alpha\]: 6 opportunities, 1 finding, findings in the buckets from \d\d:\d\d:\d\d/,
    );
  });

  it("escapes every id a client chose, in text and attributes", () => {
    const html = trafficTimeSection(judged(), rowId);
    expect(html).toContain("client a&lt;b&gt;&amp;&quot;c&#39;");
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain("<b>");
  });

  it("needs no script and no asset from elsewhere", () => {
    const html = trafficTimeSection(judged(), rowId);
    expect(html).not.toMatch(/<script|<img|<link|\ssrc=|href="(?!#)/);
  });

  it("sits in the page with its link in the navigation; a run that is not traffic has none", async () => {
    const page = renderHtml(judged());
    expect(page).toContain('<section id="traffic-time">');
    expect(page).toContain('href="#traffic-time"');
    const run = renderHtml(await sampleRun());
    expect(run).not.toContain("traffic-time");
  });
});
