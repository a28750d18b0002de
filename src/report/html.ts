// report.html: one self-contained file (inline style and script, no external asset) to read a run in a
// browser or as a CI artifact: verdict, filters, evidence of each failure, requirement coverage. Failures
// come first (grouped by suite, MUST before SHOULD/MAY) so a reader never scrolls past passes to find them.
import { type Exchange, LEVELS } from "../check/index.ts";
import {
  CHECK_STATUSES,
  type CheckResult,
  type RequirementCoverage,
  type RunResult,
} from "../result/model.ts";
import { isWaived } from "../result/verdict.ts";
import { evidenceLocation } from "./citations.ts";
import { CURL_VARIABLES, curlForCheck } from "./curl.ts";
import { escapeHtml as h } from "./escape.ts";
import { citedBecause, detailRows, pagesText } from "./failure-detail.ts";
import { RETRIES_MEAN, retryCount, retryLines, retrySummary } from "./retries.ts";

export function renderHtml(result: RunResult): string {
  const suites = [...new Set(result.checks.map((c) => c.suite))].sort();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(`${result.verdict}: ${result.target.name} (${result.runId})`)}</title>
<style>${style}</style>
</head>
<body>
<header class="verdict ${verdictClass(result.verdict)}">
<h1>${h(result.verdict)}</h1>
<p>${h(result.verdictReason)}</p>
<p><a href="#coverage">Requirement coverage</a> · <a href="#failures">Failures</a> · <a href="#checks">All checks</a></p>
${retriesLine(result)}
${result.interruption ? `<p>The run ended early (${h(result.interruption.cause)} at ${h(result.interruption.at)}): ${h(result.interruption.message)}.</p>` : ""}
${(result.configuration?.leftChanged.length ?? 0) > 0 ? `<p>Configuration left changed: ${h(result.configuration?.leftChanged.join("; ") ?? "")}. Put it back with <code>lckit restore ${h(result.configuration?.journal ?? "<journal>")} --target &lt;target file&gt;</code>.</p>` : ""}
</header>
<main>
${failures(result)}
${facts(result)}
${counts(result)}
<h2 id="checks">Checks</h2>
<form class="filters" aria-label="Filter checks">
<label>Suite <select data-filter="suite"><option value="">all</option>${suites.map((s) => `<option>${h(s)}</option>`).join("")}</select></label>
<label>Level <select data-filter="level"><option value="">all</option><option>MUST</option><option>SHOULD</option><option>MAY</option></select></label>
<label>Status <select data-filter="status"><option value="">all</option><option>passed</option><option>failed</option><option>inconclusive</option><option>skipped</option><option>broken</option></select></label>
<span id="shown"></span>
</form>
<table class="checks">
<thead><tr><th>Status</th><th>Check</th><th>Level</th><th>Requirements</th><th>Time</th><th>Details</th></tr></thead>
<tbody>
${orderedChecks(result.checks)
  .map((c) => checkRow(result, c))
  .join("\n")}
</tbody>
</table>
${coverage(result)}
</main>
<script>${script}</script>
</body>
</html>
`;
}

function facts(result: RunResult): string {
  const rows: [string, string][] = [
    ["Target", `${result.target.name}`],
    ["Base URL", result.target.baseUrl],
    ["Lookup-data URL", result.target.rdmUrl],
    ["Tenant", result.target.tenant],
    ["Credential roles", result.target.roles.join(", ") || "none"],
    ["Run", result.runId],
    ["Seed / runs per property", `${result.seed} / ${result.runs}`],
    ["Started", result.startedAt],
    ["Duration", `${(result.durationMs / 1000).toFixed(1)} s`],
    ["Requests sent", String(result.requestsSent)],
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

/** Failed and broken checks before the rest; within each status MUST first, then suite, then id. */
const statusRank: Record<CheckResult["status"], number> = {
  broken: 0,
  failed: 1,
  inconclusive: 2,
  skipped: 3,
  passed: 4,
};
const levelRank: Record<CheckResult["level"], number> = { MUST: 0, SHOULD: 1, MAY: 2 };

function orderedChecks(checks: readonly CheckResult[]): CheckResult[] {
  return [...checks].sort(
    (a, b) =>
      statusRank[a.status] - statusRank[b.status] ||
      levelRank[a.level] - levelRank[b.level] ||
      a.suite.localeCompare(b.suite) ||
      a.id.localeCompare(b.id),
  );
}

/** The findings, grouped by suite, each linking to its row (with its evidence) in the checks table. */
function failures(result: RunResult): string {
  const found = orderedChecks(result.checks).filter((c) => c.status === "failed" || c.status === "broken");
  if (found.length === 0)
    return `<section id="failures"><h2>Failures</h2><p>No check failed or broke.</p></section>`;
  const bySuite = new Map<string, CheckResult[]>();
  for (const c of found) bySuite.set(c.suite, [...(bySuite.get(c.suite) ?? []), c]);
  const groups = [...bySuite.entries()].map(
    ([suite, checks]) =>
      `<h3>${h(suite)} (${checks.length})</h3><ul>${checks
        .map(
          (c) =>
            `<li class="finding"><span class="badge ${findingKind(c)}">${findingKind(c)}</span> <a href="#${rowId(c)}"><code>${h(c.id)}</code></a> ${c.level}: ${h(c.message ?? "")}${pinpoint(c)}${waiverText(c)}</li>`,
        )
        .join("")}</ul>`,
  );
  return `<section id="failures"><h2>Failures (${found.length})</h2>${groups.join("\n")}</section>`;
}

/** The record at fault and where it was seen, after the finding's sentence: "record R at page 3 and
 *  page 7" tells a reader of a scan failure where to look before opening the evidence. */
function pinpoint(c: CheckResult): string {
  const d = c.details;
  if (d?.record === undefined) return "";
  const where = d.pages !== undefined && d.pages.length > 0 ? ` at ${pagesText(d.pages)}` : "";
  const field = d.field === undefined ? "" : `, field <code>${h(d.field)}</code>`;
  return ` <span class="pinpoint">(record <code>${h(d.record)}</code>${field}${h(where)})</span>`;
}

/** A failure under an unexpired waiver is a known failure ("waived"); an expired one fails again. */
function findingKind(c: CheckResult): string {
  if (isWaived(c)) return "waived";
  return warning(c) ? "warning" : c.status;
}

function waiverText(c: CheckResult): string {
  const w = c.waiver;
  if (w === undefined) return "";
  return ` <em>(${w.expired ? "waiver EXPIRED" : "waived"} until ${h(w.expires)} by ${h(w.who)}: ${h(w.reason)})</em>`;
}

/** A failed SHOULD/MAY check does not fail the run: it is listed as a warning. */
function warning(c: CheckResult): boolean {
  return c.status === "failed" && c.level !== "MUST";
}

function rowId(c: CheckResult): string {
  return `check-${c.id.replace(/[^\w-]/g, "-")}`;
}

function counts(result: RunResult): string {
  const rows = LEVELS.map(
    (l) =>
      `<tr><th>${l}</th>${CHECK_STATUSES.map((s) => `<td>${result.counts.byLevel[l][s]}</td>`).join("")}</tr>`,
  );
  const total = `<tr class="total"><th>all</th>${CHECK_STATUSES.map((s) => `<td>${result.counts.byStatus[s]}</td>`).join("")}</tr>`;
  const notSelected =
    result.counts.notSelected > 0 ? `<p>${result.counts.notSelected} checks were not selected.</p>` : "";
  return `<table class="counts"><thead><tr><th>Level</th>${CHECK_STATUSES.map((s) => `<th>${s}</th>`).join("")}</tr></thead><tbody>${rows.join("")}${total}</tbody></table>${notSelected}`;
}

function checkRow(result: RunResult, c: CheckResult): string {
  const attrs = `data-suite="${h(c.suite)}" data-level="${c.level}" data-status="${c.status}" id="${h(rowId(c))}"`;
  return `<tr class="${c.status}" ${attrs}><td><span class="badge ${c.status}">${c.status}</span></td><td><code>${h(c.id)}</code><br><small>${h(c.title)}</small></td><td>${c.level}</td><td>${h(c.requirements.join(", "))}</td><td>${c.durationMs} ms</td><td>${details(result, c)}</td></tr>`;
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

function details(result: RunResult, c: CheckResult): string {
  if (c.status === "passed") return retried(c);
  if (c.status === "skipped") return `<p>${h(c.reason ?? "")}</p>${retried(c)}`;
  if (c.status === "inconclusive")
    return `<p class="message">${h(c.reason ?? "")}</p>${location(c)}${retried(c)}`;
  const parts = [`<p class="message">${h(c.message ?? "")}${waiverText(c)}</p>`];
  // A two-column grid, not a nested <table>: the filters count the rows of the checks table.
  const rows = detailRows(c);
  if (rows.length > 0)
    parts.push(
      `<dl class="detail">${rows.map((r) => `<dt>${r.label}</dt><dd class="detail-${r.label}">${r.label === "expected" ? h(r.value) : `<code>${h(r.value)}</code>`}</dd>`).join("")}</dl>`,
    );
  if (c.counterexample)
    parts.push(
      `<p><b>counterexample</b> <code>${h(c.counterexample.value)}</code></p><p><b>replay</b> <code>${h(c.counterexample.replay)}</code></p>`,
    );
  else if (c.status === "failed")
    parts.push(
      `<p><b>rerun</b> <code>${h(`${result.command} --check ${c.id} --seed ${result.seed}`)}</code></p>`,
    );
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
      `<details><summary>evidence: last ${c.evidence.length} exchange${c.evidence.length === 1 ? "" : "s"}</summary>${c.evidence.map((x) => exchange(x, citedBecause(c, x))).join("")}</details>`,
    );
  if (c.log && c.log.length > 0)
    parts.push(`<details><summary>log</summary><pre>${h(c.log.join("\n"))}</pre></details>`);
  return parts.join("");
}

/** cited: why the failure's detail points at this exchange (its request, or the page holding the record at
 *  fault); such an exchange is marked so a reader finds it among the others. */
function exchange(x: Exchange, cited?: string): string {
  const headers = (hs: Record<string, string>) =>
    Object.entries(hs)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n");
  const request = `${x.request.method} ${x.request.url}\n${headers(x.request.headers)}${x.request.body === undefined ? "" : `\n\n${x.request.body}`}`;
  const response = x.response
    ? `${x.response.status} (${x.durationMs} ms)\n${headers(x.response.headers)}\n\n${x.response.body}`
    : `no answer after ${x.durationMs} ms: ${x.error ?? "unknown error"}`;
  // The transport's note (a retry, a wait for Retry-After, a redirect not followed) is part of the evidence.
  const note = x.note === undefined ? "" : `<p class="note">${h(x.note)}</p>`;
  const mark = cited === undefined ? "" : `<p class="cited">${h(cited)}</p>`;
  return `<div class="exchange${cited === undefined ? "" : " cited"}">${mark}${note}<pre class="request">${h(request)}</pre><pre class="response">${h(response)}</pre></div>`;
}

function coverage(result: RunResult): string {
  const cov = result.coverage;
  if (cov.catalogue === null)
    return `<h2 id="coverage">Requirement coverage</h2><p>No requirement catalogue was found.</p>`;
  const f = cov.figures;
  const untested = cov.requirements.filter((r) => r.status === "untested");
  const unknown =
    cov.unknown.length === 0
      ? ""
      : `<p>Requirement ids used by checks but missing from the catalogue: ${cov.unknown.map((u) => `<code>${h(u.id)}</code>`).join(", ")}</p>`;
  return `<h2 id="coverage">Requirement coverage</h2>
<p>${f.proven} of ${f.total} proven, ${f.failing} failing, ${f.broken} broken, ${f.undecided} undecided, ${f["not-run"]} not run, ${f.untested} untested, ${f.elsewhere} checked by another command (catalogue <code>${h(cov.catalogue)}</code>).</p>
${unknown}
<table class="coverage"><thead><tr><th>Requirement</th><th>Level</th><th>Status</th><th>Checks</th><th>Text</th></tr></thead><tbody>
${cov.requirements.map(requirementRow).join("\n")}
</tbody></table>
<h3 id="untested">Untested requirements (${untested.length})</h3>
${untested.length === 0 ? "<p>None: every requirement has a check.</p>" : `<ul>${untested.map((r) => `<li><code>${h(r.id)}</code> ${h(r.text ?? "")}</li>`).join("")}</ul>`}`;
}

function requirementRow(r: RequirementCoverage): string {
  const checks =
    r.status === "elsewhere"
      ? `checked by <code>${h(r.checkedBy ?? "")}</code>`
      : r.checks.map((c) => `<code>${h(c.id)}</code> ${h(c.status)}`).join("<br>");
  return `<tr class="cov-${r.status}"><td><code>${h(r.id)}</code></td><td>${h(r.level ?? "")}</td><td>${h(r.status)}</td><td>${checks}</td><td>${h(r.text ?? "")}</td></tr>`;
}

function verdictClass(verdict: RunResult["verdict"]): string {
  return verdict
    .toLowerCase()
    .replace(/[^a-z]+/g, "-")
    .replace(/-$/, "");
}

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
main{padding:0 1.5rem 2rem}
.verdict{padding:1rem 1.5rem;color:#fff}.verdict h1{margin:0;font-size:1.8rem}.verdict p{margin:.3rem 0 0}
.certified{background:#116329}.conformant{background:#1a7f37}.passed-subset{background:#0969da}.not-conformant{background:#cf222e}.incomplete{background:#9a6700}.broken{background:#6e40c9}.interrupted{background:#57606a}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}.facts dt{font-weight:600}.facts dd{margin:0;word-break:break-all}
table{border-collapse:collapse;margin:1rem 0;width:100%}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
table.counts{width:auto}table.counts td{text-align:right}.total{font-weight:700}
.badge{display:inline-block;padding:0 .4rem;border-radius:.6rem;color:#fff;font-size:.85em}
.badge.waived{background:#57606a}.badge.warning{background:#9a6700}.badge.passed{background:#1a7f37}.badge.failed{background:#cf222e}.badge.skipped{background:#6e7781}.badge.inconclusive{background:#9a6700}.badge.broken{background:#6e40c9}
tr.failed{background:#fff5f5}tr.broken{background:#f8f4ff}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.5rem;margin:.3rem 0;max-height:24rem;overflow:auto}
.exchange{border-left:3px solid #d0d7de;padding-left:.5rem;margin:.5rem 0}
.exchange .note{font-style:italic;margin:.25rem 0}
.exchange.cited{border-left-color:#cf222e}
.exchange .cited{font-weight:bold;margin:.25rem 0}
.detail{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .75rem;margin:.25rem 0}
.detail dt{font-weight:600}.detail dd{margin:0;word-break:break-all}
.filters{display:flex;gap:1rem;align-items:center}
.retries ul{margin:.25rem 0;padding-left:1.2rem}.retries summary{color:#9a6700}
.evidence-location{margin:.25rem 0}.evidence-location code{word-break:break-all}
.retries-summary{font-weight:600}
.cov-failing td:nth-child(3),.cov-broken td:nth-child(3){color:#cf222e;font-weight:600}.cov-untested td:nth-child(3){color:#9a6700}
`;

// Filters rows by the data-* attributes of each check row; no library, no network.
const script = `
(function(){
  var selects = document.querySelectorAll("select[data-filter]");
  var rows = document.querySelectorAll("table.checks tbody tr");
  function apply(){
    var want = {};
    selects.forEach(function(s){ want[s.getAttribute("data-filter")] = s.value; });
    var shown = 0;
    rows.forEach(function(r){
      var ok = Object.keys(want).every(function(k){ return !want[k] || r.getAttribute("data-" + k) === want[k]; });
      r.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById("shown").textContent = shown + " of " + rows.length + " checks";
  }
  selects.forEach(function(s){ s.addEventListener("change", apply); });
  apply();
})();
`;
