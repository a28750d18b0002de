// The first screen of report.html: can this target be trusted? The verdict (in the header), what was
// tested and with what (target, its /version, kit, catalogue, contract), the checks counted per level and
// per suite as bars, and the few MUST failures with expected against actual. SHOULD/MAY findings are
// warnings: amber, listed apart, never called failures.
import { LEVELS } from "../check/index.ts";
import type { CheckResult, RunResult } from "../result/model.ts";
import { escapeHtml as h } from "./escape.ts";
import { detailRows, pagesText } from "./failure-detail.ts";
import {
  countOutcomes,
  OUTCOMES,
  outcomeBadge,
  outcomeCount,
  outcomeLabel,
  outcomeOf,
  outcomeShort,
  presentOutcomes,
  subjectName,
  subjectWord,
  suiteOutcomes,
  targetOf,
  targetVersionText,
} from "./outcome.ts";
import { durationText } from "./timeline.ts";

/** MUST failures shown in full on the first screen; the rest are one line each. */
const FIRST_SCREEN_FAILURES = 5;
/** Findings listed open; more are folded behind their count. */
const OPEN_FINDINGS = 10;

export function overview(result: RunResult): string {
  return `<section id="overview" aria-label="Overview">
<div class="overview">
${identity(result)}
${levelCounts(result)}
</div>
</section>`;
}

function identity(result: RunResult): string {
  const version = targetVersionText(result);
  const cat = result.spec.catalogue;
  const run = `${result.runId} · ${result.startedAt} · ${durationText(result.durationMs)}`;
  const target = targetOf(result);
  const rows: [string, string][] =
    target === undefined
      ? [[subjectWord(result), subjectName(result)]]
      : [
          ["Target", subjectName(result)],
          [
            "URLs",
            target.rdmUrl === target.baseUrl ? target.baseUrl : `${target.baseUrl} · ${target.rdmUrl}`,
          ],
          ["Target /version", version ?? "not asked (lckit run --certify asks GET /version)"],
        ];
  rows.push(
    ["Kit", `${result.kit.name} ${result.kit.version}`],
    ["Catalogue", `${cat.version}, ${cat.requirements} requirements, sha256 ${cat.sha256.slice(0, 16)}…`],
    ["Contract", `${result.spec.contractVersion}, sha256 ${result.spec.contract.slice(0, 16)}…`],
    ["Run", target === undefined ? run : `${run} · ${result.requestsSent} requests`],
  );
  const cert = result.certification;
  if (cert !== undefined)
    rows.unshift([
      "Certificate",
      `${cert.certified ? "granted" : "refused"}: ${cert.reason}${cert.missing.length > 0 ? ` (${cert.missing.length} MUST checks did not run: see Run facts)` : ""}`,
    ]);
  return `<div class="card"><h2>What was tested</h2><dl class="identity">${rows.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join("")}</dl></div>`;
}

function levelCounts(result: RunResult): string {
  const all = countOutcomes(result.checks);
  const shown = presentOutcomes(all);
  const columns = shown.length > 0 ? shown : ["passed"];
  const rows = LEVELS.map((level) => {
    const counts = countOutcomes(result.checks.filter((c) => c.level === level));
    return `<tr><th scope="row">${level}</th>${columns.map((o) => `<td class="n">${counts[o] ?? 0}</td>`).join("")}</tr>`;
  });
  const total = `<tr class="total"><th scope="row">all</th>${columns.map((o) => `<td class="n">${all[o] ?? 0}</td>`).join("")}</tr>`;
  const notSelected =
    result.counts.notSelected > 0 ? `<p>${result.counts.notSelected} checks were not selected.</p>` : "";
  return `<div class="card"><h2>Checks per level</h2><div class="scroll"><table class="counts"><thead><tr><th scope="col">Level</th>${columns.map((o) => `<th scope="col"><span class="dot o-${h(o)}" aria-hidden="true"></span>${h(outcomeShort(o))}</th>`).join("")}</tr></thead><tbody>${rows.join("")}${total}</tbody></table></div><p class="note">failures: MUST checks that failed; findings: SHOULD/MAY checks that failed (warnings, not failures).</p>${notSelected}</div>`;
}

/** One bar per suite: its checks by outcome, widths in proportion, the figures beside it in words. */
export function suiteBars(result: RunResult): string {
  const suites = suiteOutcomes(result);
  if (suites.length === 0) return `<section id="suites"><p>No check ran.</p></section>`;
  const legend = OUTCOMES.filter((o) => suites.some((s) => (s.counts[o] ?? 0) > 0));
  const rows = suites.map(({ suite, total, counts }) => {
    const present = presentOutcomes(counts);
    const segments = present
      .map((o) => {
        const n = counts[o] ?? 0;
        return `<span class="seg o-${h(o)}" style="flex-grow:${n}" title="${h(outcomeCount(o, n))}"></span>`;
      })
      .join("");
    const words = present.map((o) => outcomeCount(o, counts[o] ?? 0)).join(", ");
    return `<li><span class="suite-name">${h(suite)}</span><span class="bar" aria-hidden="true">${segments}</span><span class="suite-figures">${total}: ${h(words)}</span></li>`;
  });
  return `<section id="suites" class="card suites"><h2>Suites</h2><p class="legend">${legend.map((o) => `<span><span class="dot o-${h(o)}" aria-hidden="true"></span>${h(outcomeLabel(o))}</span>`).join(" ")}</p><ul class="suite-bars">${rows.join("")}</ul></section>`;
}

/** The failures (MUST, expected against actual, first few in full), the kit's faults, then the findings
 *  (SHOULD/MAY: warnings) folded, each linking to its row and evidence in the checks table. */
export function failuresSection(ordered: readonly CheckResult[], rowId: (c: CheckResult) => string): string {
  const failures = ordered.filter((c) => outcomeOf(c) === "failure");
  const waived = ordered.filter((c) => outcomeOf(c) === "waived");
  const broken = ordered.filter((c) => c.status === "broken");
  const findings = ordered.filter((c) => outcomeOf(c) === "finding");
  const parts: string[] = [];
  if (failures.length === 0)
    parts.push(`<h2>MUST failures (0)</h2><p class="none">No MUST check failed.</p>`);
  else {
    parts.push(`<h2>MUST failures (${failures.length})</h2>`);
    parts.push(
      `<ol class="must-failures">${failures.map((c, i) => (i < FIRST_SCREEN_FAILURES ? fullFailure(c, rowId) : finding(c, rowId))).join("")}</ol>`,
    );
  }
  const undecided = ordered.filter((c) => c.status === "inconclusive");
  if (undecided.length > 0)
    parts.push(
      `<h3>Could not decide (${undecided.length}): the target's answers allow both readings</h3><ul>${undecided.map((c) => finding(c, rowId)).join("")}</ul>`,
    );
  if (broken.length > 0)
    parts.push(
      `<h3>Broken: faults of the kit, not of the target (${broken.length})</h3><ul>${broken.map((c) => finding(c, rowId)).join("")}</ul>`,
    );
  if (waived.length > 0)
    parts.push(
      `<h3>Known failures under a waiver (${waived.length})</h3><ul>${waived.map((c) => finding(c, rowId)).join("")}</ul>`,
    );
  if (findings.length > 0)
    parts.push(
      `<details class="findings"${findings.length <= OPEN_FINDINGS ? " open" : ""}><summary>SHOULD/MAY findings (${findings.length}): warnings, not failures</summary><ul>${findings.map((c) => finding(c, rowId)).join("")}</ul></details>`,
    );
  else parts.push(`<p class="none">No SHOULD/MAY finding.</p>`);
  return `<section id="failures">${parts.join("\n")}</section>`;
}

function fullFailure(c: CheckResult, rowId: (c: CheckResult) => string): string {
  const rows = detailRows(c).filter(
    (r) => r.label === "expected" || r.label === "actual" || r.label === "request",
  );
  const grid =
    rows.length === 0
      ? ""
      : `<dl class="detail">${rows.map((r) => `<dt>${r.label}</dt><dd><code>${h(clip(r.value, 400))}</code></dd>`).join("")}</dl>`;
  return `<li class="finding"><span class="badge o-failure">failed</span> <a href="#${h(rowId(c))}"><code>${h(c.id)}</code></a> ${c.level}: ${h(clip(c.message ?? "", 400))}${pinpoint(c)}${grid}</li>`;
}

function finding(c: CheckResult, rowId: (c: CheckResult) => string): string {
  const o = outcomeOf(c);
  return `<li class="finding"><span class="badge o-${h(o)}">${h(outcomeBadge(o))}</span> <a href="#${h(rowId(c))}"><code>${h(c.id)}</code></a> ${c.level}: ${h(clip(c.message ?? c.reason ?? "", 300))}${pinpoint(c)}${waiverText(c)}</li>`;
}

/** The record at fault and where it was seen: "record R at page 3 and page 7" tells a reader of a scan
 *  failure where to look before opening the evidence. */
export function pinpoint(c: CheckResult): string {
  const d = c.details;
  if (d?.record === undefined) return "";
  const where = d.pages !== undefined && d.pages.length > 0 ? ` at ${pagesText(d.pages)}` : "";
  const field = d.field === undefined ? "" : `, field <code>${h(d.field)}</code>`;
  return ` <span class="pinpoint">(record <code>${h(d.record)}</code>${field}${h(where)})</span>`;
}

export function waiverText(c: CheckResult): string {
  const w = c.waiver;
  if (w === undefined) return "";
  return ` <em>(${w.expired ? "waiver EXPIRED" : "waived"} until ${h(w.expires)} by ${h(w.who)}: ${h(w.reason)})</em>`;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
