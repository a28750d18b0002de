// report.html: one self-contained file (inline style and script, no external asset) to read a run in a
// browser or as a CI artifact. A dashboard first (verdict, what was tested, counts per level and suite, the
// MUST failures with expected against actual), then the findings, requirement coverage as a grid, the
// timeline, and every check with its evidence on demand (filters and search run in the page, no server).
import { drawnAtDepth, type Exchange } from "../check/index.ts";
import type { CheckResult, RunResult } from "../result/model.ts";
import { evidenceLocation } from "./citations.ts";
import { CURL_VARIABLES, curlForCheck } from "./curl.ts";
import { escapeHtml as h } from "./escape.ts";
import { citedBecause, detailRows } from "./failure-detail.ts";
import { coverageSection, reqId } from "./html-coverage.ts";
import { failuresSection, overview, suiteBars, waiverText } from "./html-overview.ts";
import { script, style } from "./html-page.ts";
import { timelineSection } from "./html-timeline.ts";
import { trafficTimeSection } from "./html-traffic.ts";
import {
  clientHeadline,
  commandEnd,
  commandOf,
  countOutcomes,
  outcomeBadge,
  outcomeCount,
  outcomeLabel,
  outcomeOf,
  presentOutcomes,
  replayCommand,
  subjectName,
  subjectWord,
  targetOf,
} from "./outcome.ts";
import { RETRIES_MEAN, retryCount, retryLines, retrySummary } from "./retries.ts";
import { durationText } from "./timeline.ts";

export function renderHtml(result: RunResult): string {
  const suites = [...new Set(result.checks.map((c) => c.suite))].sort();
  const ordered = orderedChecks(result.checks);
  const outcomes = presentOutcomes(countOutcomes(result.checks));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(`${result.verdict}: ${subjectName(result)} (${result.runId})`)}</title>
<style>${style}</style>
</head>
<body>
<header class="verdict ${verdictClass(result.verdict)}">
<h1>${h(result.verdict)}${((cause) => (cause === undefined ? "" : `: ${h(cause)}`))(clientHeadline(result))}</h1>
<p>${h(result.verdictReason)}</p>
<p class="tally">${h(`${result.checks.length} checks: ${outcomes.map((o) => outcomeCount(o, countOutcomes(result.checks)[o] ?? 0)).join(" · ")}`)}</p>
<nav aria-label="Sections"><a href="#failures">Failures and findings</a> · <a href="#coverage">Requirement coverage</a> · <a href="#timeline">Timeline</a>${result.subject.kind === "traffic" && result.subject.timeline ? ' · <a href="#traffic-time">Traffic over time</a>' : ""} · <a href="#checks">All checks</a> · <a href="#run">Run facts</a></nav>
${retriesLine(result)}
${result.interruption ? `<p>The run ended early (${h(result.interruption.cause)} at ${h(result.interruption.at)}): ${h(result.interruption.message)}.</p>` : ""}
${(result.configuration?.leftChanged.length ?? 0) > 0 ? `<p>Configuration left changed: ${h(result.configuration?.leftChanged.join("; ") ?? "")}. Put it back with <code>lckit restore ${h(result.configuration?.journal ?? "<journal>")} --target &lt;target file&gt;</code>.</p>` : ""}
</header>
<main>
${overview(result)}
${failuresSection(ordered, rowId)}
${suiteBars(result)}
${coverageSection(result, rowId)}
${timelineSection(result, rowId)}
${trafficTimeSection(result, rowId)}
<section id="checks-section" aria-labelledby="checks">
<h2 id="checks">Checks</h2>
<form class="filters" aria-label="Filter checks" onsubmit="return false">
<label>Search <input type="search" data-search placeholder="check id, requirement id, text"></label>
<label>Outcome <select data-filter="outcome"><option value="">all</option>${outcomes.map((o) => `<option value="${h(o)}">${h(outcomeLabel(o))}</option>`).join("")}</select></label>
<label>Level <select data-filter="level"><option value="">all</option><option>MUST</option><option>SHOULD</option><option>MAY</option></select></label>
<label>Suite <select data-filter="suite"><option value="">all</option>${suites.map((s) => `<option>${h(s)}</option>`).join("")}</select></label>
<output id="shown" aria-live="polite"></output>
</form>
<table class="checks">
<thead><tr><th scope="col">Outcome</th><th scope="col">Check</th><th scope="col">Level</th><th scope="col">Requirements</th><th scope="col">Time</th><th scope="col">Details</th></tr></thead>
<tbody>
${((budget) => ordered.map((c) => checkRow(result, c, budget)).join("\n"))({ left: EVIDENCE_BUDGET })}
</tbody>
</table>
</section>
<section id="run"><h2>Run facts</h2>${facts(result)}</section>
</main>
<script>${script}</script>
</body>
</html>
`;
}

/** The facts of what the run judged: the target and its URLs, the stream, the team's command. */

function subjectFacts(result: RunResult): [string, string][] {
  const { subject } = result;
  const target = targetOf(result);
  const rows: [string, string][] =
    target === undefined
      ? [[subjectWord(result), subjectName(result)]]
      : [
          ["Target", subjectName(result)],
          ["Base URL", target.baseUrl],
          ["Lookup-data URL", target.rdmUrl],
          ["Tenant", target.tenant],
          ["Credential roles", target.roles.join(", ") || "none"],
        ];
  rows.push(["Run", result.runId]);
  if (subject.kind === "events") rows.push(["Messages read", String(subject.messages)]);
  if (subject.kind === "consumer")
    rows.push([
      "Stream",
      `producer choice ${subject.choice}, delivered by ${subject.delivery}: ${subject.delivered} of ${subject.messages} messages`,
    ]);
  if (subject.kind === "provider")
    rows.push([
      "Seed / runs per property",
      `${result.seed} / ${result.runs}${drawnAtDepth(result.runs, result.depth)}`,
    ]);
  const command = commandOf(result);
  if (command === undefined) return rows;
  const choice = subject.kind === "caller" ? ` (provider choice ${subject.choice})` : "";
  rows.push([
    "Your command",
    `${command.argv.join(" ")}: ${command.startError ?? commandEnd(command)}${choice}`,
  ]);
  if (command.outputTail !== undefined) rows.push(["Its output (last lines)", command.outputTail]);
  return rows;
}

function facts(result: RunResult): string {
  const rows: [string, string][] = [
    ...subjectFacts(result),
    ["Started", result.startedAt],
    ["Duration", `${(result.durationMs / 1000).toFixed(1)} s`],
    ...(targetOf(result) === undefined
      ? []
      : ([["Requests sent", String(result.requestsSent)]] as [string, string][])),
    ...(result.configuration
      ? ([
          [
            "Configuration changes",
            `${result.configuration.changes} made, ${result.configuration.leftChanged.length} left changed` +
              (result.configuration.journal === null ? "" : ` (journal ${result.configuration.journal})`),
          ],
        ] as [string, string][])
      : []),
    ["Kit", `${result.kit.name} ${result.kit.version}`],
    [
      "Requirement catalogue",
      `${result.spec.catalogue.file} ${result.spec.catalogue.version} (${result.spec.catalogue.requirements} requirements), sha256 ${result.spec.catalogue.sha256}`,
    ],
    ["Contract", `${result.spec.contractVersion}, sha256 ${result.spec.contract}`],
    [
      "Interface document sha256",
      result.spec.interfaceDocument === null
        ? "not given (--interface-document FILE hashes your copy into the report)"
        : `${result.spec.interfaceDocument} (${result.spec.interfaceDocumentFile ?? "your copy"})`,
    ],
    ["Command", result.command],
    ...(result.baseline
      ? ([
          [
            "Baseline (known failures)",
            `${result.baseline.file} sha256 ${result.baseline.sha256}: ${result.baseline.waived.length} failures waived, ` +
              `${result.baseline.expired.length} waivers expired (failing again), ${result.baseline.unused.length} unused`,
          ],
        ] as [string, string][])
      : []),
    ...(result.certification
      ? ([
          [
            "Certification",
            `${result.certification.certified ? "granted" : "REFUSED"}: ${result.certification.reason}`,
          ],
          ["Target /version", JSON.stringify(result.certification.targetVersion)],
          ["Profile", JSON.stringify(result.certification.profile)],
          ...result.certification.missing.map(
            (m) => [`Not run: ${m.id}`, `${m.reason}; to run it: ${m.fix}`] as [string, string],
          ),
        ] as [string, string][])
      : []),
  ];
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join("")}</dl>`;
}

/** Failures, kit faults and findings before the rest; within each MUST first, then suite, then id. */
const outcomeRank: Record<string, number> = {
  broken: 0,
  failure: 1,
  finding: 2,
  waived: 3,
  skipped: 5,
  passed: 6,
};
const levelRank: Record<CheckResult["level"], number> = { MUST: 0, SHOULD: 1, MAY: 2 };

function orderedChecks(checks: readonly CheckResult[]): CheckResult[] {
  // A status the model adds later (inconclusive) sits between the findings and the skipped checks.
  const rank = (c: CheckResult) => outcomeRank[outcomeOf(c)] ?? 4;
  return [...checks].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      levelRank[a.level] - levelRank[b.level] ||
      a.suite.localeCompare(b.suite) ||
      a.id.localeCompare(b.id),
  );
}

function rowId(c: CheckResult): string {
  return `check-${c.id.replace(/[^\w-]/g, "-")}`;
}

/** Characters of raw exchanges report.html holds at most, so the file stays under 2 MB whatever the run:
 *  checks come in reading order (failures first), so a later one's exchanges are the ones left out. */
const EVIDENCE_BUDGET = 1_000_000;
type Budget = { left: number };

function checkRow(result: RunResult, c: CheckResult, budget: Budget): string {
  const o = outcomeOf(c);
  const attrs = `data-suite="${h(c.suite)}" data-level="${c.level}" data-status="${h(c.status)}" data-outcome="${h(o)}" id="${h(rowId(c))}"`;
  const requirements = c.requirements
    .map((r) => `<a class="req" href="#${h(reqId(r))}">${h(r)}</a>`)
    .join(" ");
  const time = [
    durationText(c.durationMs),
    // A provider's check sends requests; a rule judges what was observed.
    ...(result.subject.kind === "provider" ? [`${c.requests} req`] : []),
    ...(c.opportunities === undefined ? [] : [`${c.opportunities} judged`]),
    ...(c.waitMs ? [`waited ${durationText(c.waitMs)}`] : []),
  ].join(" · ");
  return `<tr class="${h(c.status)}" ${attrs}><td><span class="badge o-${h(o)}">${h(outcomeBadge(o))}</span></td><td><code>${h(c.id)}</code><br><small>${h(c.title)}</small></td><td>${c.level}</td><td>${requirements}</td><td>${h(time)}</td><td>${details(result, c, budget)}</td></tr>`;
}

/** The run's retries in one line under the verdict; nothing when no request was retried. */
function retriesLine(result: RunResult): string {
  const summary = retrySummary(result);
  return summary === undefined ? "" : `<p class="retries-summary">${h(summary)}; ${h(RETRIES_MEAN)}.</p>`;
}

/** A check's retries, folded (a count, then one line each). A passed or skipped check also says where its
 *  evidence is (a failed or broken one says so beside its message); a passed check without retries shows
 *  nothing, as ever. */
function retried(c: CheckResult): string {
  const lines = retryLines(c);
  if (lines.length === 0) return "";
  const failed = c.status === "failed" || c.status === "broken";
  return `<details class="retries"><summary>${h(retryCount(c))} (no finding by itself)</summary><ul>${lines.map((l) => `<li>${h(l)}</li>`).join("")}</ul>${failed ? "" : location(c)}</details>`;
}

/** Where the check's evidence is in the report folder (evidence.har entries, events.ndjson lines). */
function location(c: CheckResult): string {
  const where = evidenceLocation(c);
  return where === undefined
    ? ""
    : `<p class="evidence-location"><b>evidence</b> <code>${h(where)}</code></p>`;
}

/** What a reader needs first (the message, expected / actual / request, the departures grouped), then how to
 *  reproduce it, then the raw material folded: retries, stack, exchanges, log. */
function details(result: RunResult, c: CheckResult, budget: Budget): string {
  if (c.status === "passed") return retried(c);
  if (c.status === "skipped") return `<p>${h(c.reason ?? "")}</p>${retried(c)}`;
  if (c.status === "not-exercised")
    return `<p class="message">${h(`${c.exerciseRequired ? "Required (--fail-on not-exercised) and " : ""}not exercised: ${c.reason ?? ""}`)}</p>`;
  if (c.status === "inconclusive")
    return `<p class="message">${h(c.reason ?? "")}</p>${undecided(c)}${location(c)}${retried(c)}`;
  // With the departures listed apart, the message's first line (what kind, how many) says the rest.
  const message = c.message ?? c.reason ?? "";
  const shown = (c.details?.departures ?? []).length > 0 ? (message.split("\n")[0] ?? "") : message;
  const parts = [`<p class="message">${h(shown)}${waiverText(c)}</p>`];
  // A two-column grid, not a nested <table>: the filters count the rows of the checks table.
  const rows = detailRows(c);
  if (rows.length > 0)
    parts.push(
      `<dl class="detail">${rows.map((r) => `<dt>${r.label}</dt><dd class="detail-${r.label}">${r.label === "expected" ? h(r.value) : `<code>${h(r.value)}</code>`}</dd>`).join("")}</dl>`,
    );
  parts.push(departures(c));
  if (c.counterexample)
    parts.push(
      `<p><b>counterexample</b> <code>${h(c.counterexample.value)}</code></p><p><b>replay</b> <code>${h(c.counterexample.replay)}</code></p>`,
    );
  else if (c.status === "failed")
    parts.push(`<p><b>rerun</b> <code>${h(replayCommand(result, c))}</code></p>`);
  const curl = c.status === "failed" ? curlForCheck(c) : undefined;
  if (curl !== undefined)
    parts.push(
      `<p><b>curl</b> (set ${CURL_VARIABLES.map((v) => `$${v}`).join(", ")} as needed) <code>${h(curl)}</code></p>`,
    );
  parts.push(location(c), retried(c));
  if (c.details?.stack)
    parts.push(`<details><summary>stack</summary><pre>${h(c.details.stack)}</pre></details>`);
  if (c.evidence && c.evidence.length > 0)
    parts.push(
      `<details><summary>evidence: last ${c.evidence.length} exchange${c.evidence.length === 1 ? "" : "s"}</summary>${c.evidence.map((x) => exchange(x, budget, citedBecause(c, x))).join("")}</details>`,
    );
  if (c.log && c.log.length > 0)
    parts.push(`<details><summary>log</summary><pre>${h(c.log.join("\n"))}</pre></details>`);
  return parts.join("");
}

/** An inconclusive check: what the kit saw, the reading that conforms and the one that does not, and
 *  what would decide it next time. */
function undecided(c: CheckResult): string {
  const u = c.undecided;
  if (u === undefined) return "";
  const rows: [string, string][] = [
    ["saw", u.saw],
    ["conforming if", u.readings[0]],
    ["not if", u.readings[1]],
    ["decided by", u.decideBy],
  ];
  return `<dl class="detail">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${h(v)}</dd>`).join("")}</dl>`;
}

/** Departures from the contract, one line per (status, JSON pointer): how often, and one example. */
function departures(c: CheckResult): string {
  const list = c.details?.departures ?? [];
  if (list.length === 0) return "";
  const total = list.reduce((n, d) => n + d.count, 0);
  return `<div class="departures"><p><b>departures</b> ${total} in ${list.length} place${list.length === 1 ? "" : "s"} (status, JSON pointer; indexes as *)</p><ul>${list
    .map(
      (d) =>
        `<li><span class="count">×${d.count}</span> <code>${d.status}</code> <code>${h(d.pointer)}</code><br><small>e.g. <code>${h(d.example)}</code></small></li>`,
    )
    .join("")}</ul></div>`;
}

/** cited: why the failure's detail points at this exchange (its request, or the page holding the record at
 *  fault); such an exchange is marked so a reader finds it among the others. */
function exchange(x: Exchange, budget: Budget, cited?: string): string {
  const headers = (hs: Record<string, string>) =>
    Object.entries(hs)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n");
  const request = `${x.request.method} ${x.request.url}\n${headers(x.request.headers)}${x.request.body === undefined ? "" : `\n\n${x.request.body}`}`;
  const response = x.response
    ? `${x.response.status} (${x.durationMs} ms)\n${headers(x.response.headers)}\n\n${x.response.body}`
    : `no answer after ${x.durationMs} ms: ${x.error ?? "unknown error"}`;
  // Counted as written: escaping makes a JSON body longer.
  const requestHtml = h(request);
  const responseHtml = h(response);
  const size = requestHtml.length + responseHtml.length;
  if (size > budget.left)
    return `<div class="exchange"><p class="note">${h(`${x.request.method} ${x.request.url}`)}: left out of report.html to keep it under 2 MB; report.json and evidence.har.gz hold it.</p></div>`;
  budget.left -= size;
  // The transport's note (a retry, a wait for Retry-After, a redirect not followed) is part of the evidence.
  const note = x.note === undefined ? "" : `<p class="note">${h(x.note)}</p>`;
  const mark = cited === undefined ? "" : `<p class="cited">${h(cited)}</p>`;
  return `<div class="exchange${cited === undefined ? "" : " cited"}">${mark}${note}<pre class="request">${requestHtml}</pre><pre class="response">${responseHtml}</pre></div>`;
}

function verdictClass(verdict: RunResult["verdict"]): string {
  return verdict
    .toLowerCase()
    .replace(/[^a-z]+/g, "-")
    .replace(/-$/, "");
}
