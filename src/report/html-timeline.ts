// Where the time went, in report.html: each lane a row, each check a bar along the run's time (a link to
// its row), its waits on the target's clock hatched inside it; then the slowest checks with their requests
// and waits, so a reader sees why a live run took what it took.
import type { CheckResult, RunResult } from "../result/model.ts";
import { escapeHtml as h } from "./escape.ts";
import { outcomeOf } from "./outcome.ts";
import { durationText, slowestChecks, timelineOf } from "./timeline.ts";

const SLOWEST = 10;
// A bar is at least 3 px wide (CSS min-width): one that starts at the end is moved left to stay inside.

export function timelineSection(result: RunResult, rowId: (c: CheckResult) => string): string {
  const timeline = timelineOf(result);
  if (timeline === undefined)
    return `<section id="timeline"><h2>Timeline</h2><p>This result holds no start times of its checks (an event check reads a stream, not a target; or the report comes from an older kit), so there is no timeline.</p></section>`;
  const span = timeline.spanMs;
  const pct = (ms: number) => `${((100 * ms) / span).toFixed(3)}%`;
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((t) => `<span class="tick" style="left:${t * 100}%">${h(durationText(t * span))}</span>`)
    .join("");
  const rows = timeline.rows
    .map((row) => {
      const bars = row.bars
        .map((b) => {
          const o = outcomeOf(b.check);
          const label = `${b.check.id}: ${o}, ${durationText(b.durationMs)}, ${b.check.requests} request${b.check.requests === 1 ? "" : "s"}${b.check.waitMs ? `, waited ${durationText(b.check.waitMs)}` : ""}`;
          const waits = b.waits
            .filter((w) => w.ms > 0 && b.durationMs > 0)
            .map(
              (w) =>
                `<span class="wait" style="left:${(((w.startMs - b.startMs) / b.durationMs) * 100).toFixed(2)}%;width:${((w.ms / b.durationMs) * 100).toFixed(2)}%"></span>`,
            )
            .join("");
          return `<a class="tbar o-${h(o)}" href="#${h(rowId(b.check))}" style="left:min(${pct(b.startMs)},calc(100% - 3px));width:${pct(b.durationMs)}" title="${h(label)}" aria-label="${h(label)}">${waits}</a>`;
        })
        .join("");
      return `<div class="lane"><div class="lane-name">${h(row.label)}<small>${row.bars.length} checks · busy ${h(durationText(row.busyMs))}${row.waitedMs > 0 ? ` · waiting ${h(durationText(row.waitedMs))}` : ""}</small></div><div class="track">${bars}</div></div>`;
    })
    .join("");
  const slow = slowestChecks(result, SLOWEST);
  const table = `<div class="scroll"><table class="slowest"><caption>The ${slow.length} slowest checks (lane –: run one at a time)</caption><thead><tr><th scope="col">Check</th><th scope="col">Lane</th><th scope="col">Took</th><th scope="col">Waiting</th><th scope="col">Requests</th></tr></thead><tbody>${slow
    .map(
      (c) =>
        `<tr><td><a href="#${h(rowId(c))}"><code>${h(c.id)}</code></a></td><td>${c.lane === undefined ? "–" : c.lane + 1}</td><td class="n">${h(durationText(c.durationMs))}</td><td class="n">${c.waitMs ? h(durationText(c.waitMs)) : ""}</td><td class="n">${c.requests}</td></tr>`,
    )
    .join("")}</tbody></table></div>`;
  const waited = result.checks.reduce((n, c) => n + (c.waitMs ?? 0), 0);
  return `<section id="timeline"><h2>Timeline</h2>
<p>${h(durationText(result.durationMs))} in all, ${result.requestsSent} requests, ${timeline.rows.length} lane${timeline.rows.length === 1 ? "" : "s"}; the checks waited ${h(durationText(waited))} in all on the target's clock (token validity, Retry-After, tasks): <span class="wait-key" aria-hidden="true"></span> hatched in the bars.${timeline.unplaced > 0 ? ` ${timeline.unplaced} checks carry no start time and are not drawn.` : ""}</p>
<div class="timeline"><div class="axis" aria-hidden="true">${ticks}</div>${rows}</div>
${table}
</section>`;
}
