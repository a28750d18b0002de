// Requirement coverage in report.html: the catalogue as a grid (one cell per requirement id, grouped by
// the section of the document it comes from, coloured by what the run proved), each cell linking to its
// row of the coverage table, whose checks link to their rows (and evidence) in the checks table.
import type { CheckResult, RequirementCoverage, RunResult } from "../result/model.ts";
import { escapeHtml as h } from "./escape.ts";
import { explorationFigures, exploredText, gapsText } from "./exploration.ts";

/** What a cell shows: coverage status, except that a requirement failing only by SHOULD/MAY checks is a
 *  finding (amber), not a failure. */
type CellState = RequirementCoverage["status"] | "finding";

const STATES: { state: CellState; label: string; mark: string }[] = [
  { state: "proven", label: "proven", mark: "✓" },
  { state: "failing", label: "failing (MUST)", mark: "✗" },
  { state: "finding", label: "finding (SHOULD/MAY)", mark: "!" },
  { state: "broken", label: "broken check", mark: "⚠" },
  { state: "undecided", label: "undecided", mark: "?" },
  { state: "not-run", label: "not run", mark: "○" },
  { state: "untested", label: "untested", mark: "·" },
  { state: "elsewhere", label: "other command", mark: "↗" },
];

export function reqId(id: string): string {
  return `req-${id.replace(/[^\w-]/g, "-")}`;
}

function cellState(r: RequirementCoverage, levels: Map<string, CheckResult>): CellState {
  if (r.status !== "failing") return r.status;
  const mustFailed = r.checks.some((c) => c.status === "failed" && levels.get(c.id)?.level === "MUST");
  return mustFailed ? "failing" : "finding";
}

export function coverageSection(result: RunResult, rowId: (c: CheckResult) => string): string {
  const cov = result.coverage;
  if (cov.catalogue === null)
    return `<section id="coverage"><h2>Requirement coverage</h2><p>No requirement catalogue was found.</p></section>`;
  const byId = new Map(result.checks.map((c) => [c.id, c]));
  const states = new Map(cov.requirements.map((r) => [r.id, cellState(r, byId)]));
  const figures = STATES.map((s) => ({
    ...s,
    n: cov.requirements.filter((r) => states.get(r.id) === s.state).length,
  })).filter((s) => s.n > 0);
  const legend = `<p class="legend">${figures.map((s) => `<span><span class="cell-mark c-${s.state}" aria-hidden="true">${s.mark}</span> ${s.n} ${h(s.label)}</span>`).join(" ")}</p>`;
  const sections = new Map<string, RequirementCoverage[]>();
  for (const r of cov.requirements) {
    const section = (r.section ?? "Other").split(";")[0]?.trim() || "Other";
    sections.set(section, [...(sections.get(section) ?? []), r]);
  }
  const grid = [...sections.entries()]
    .map(
      ([section, reqs]) =>
        `<div class="grid-section"><h3>${h(section)} <small>(${reqs.length})</small></h3><div class="grid">${reqs
          .map((r) => {
            const state = states.get(r.id) ?? r.status;
            const label = STATES.find((s) => s.state === state);
            return `<a class="cell c-${state}" href="#${h(reqId(r.id))}" title="${h(`${r.id} (${r.level ?? "?"}): ${label?.label ?? state}${r.notCheckable === undefined ? "" : ", not checkable"}. ${r.text ?? ""}`)}"><span aria-hidden="true">${label?.mark ?? ""}</span> ${h(r.id)}<span class="sr-only"> ${h(label?.label ?? state)}</span></a>`;
          })
          .join("")}</div></div>`,
    )
    .join("");
  const f = cov.figures;
  const unknown =
    cov.unknown.length === 0
      ? ""
      : `<p>Requirement ids used by checks but missing from the catalogue: ${cov.unknown.map((u) => `<code>${h(u.id)}</code>`).join(", ")}</p>`;
  const untested = cov.requirements.filter((r) => r.status === "untested");
  return `<section id="coverage"><h2>Requirement coverage</h2>
<p>${f.proven} of ${f.total} proven, ${f.failing} failing, ${f.broken} broken, ${f.undecided ?? 0} undecided, ${f["not-run"]} not run, ${f.untested} untested, ${f.elsewhere} checked by another command (catalogue <code>${h(cov.catalogue)}</code>).</p>
${legend}
<div class="coverage-grid">${grid}</div>
${unknown}
${explorationLine(result)}<details class="coverage-table"><summary>Every requirement with its checks (${cov.requirements.length})</summary>
<div class="scroll"><table class="coverage"><thead><tr><th scope="col">Requirement</th><th scope="col">Level</th><th scope="col">Status</th><th scope="col">Checks</th><th scope="col">Explored</th><th scope="col">Text</th></tr></thead><tbody>
${cov.requirements.map((r) => requirementRow(r, states.get(r.id) ?? r.status, byId, rowId)).join("\n")}
</tbody></table></div></details>
<h3 id="untested">Untested requirements (${untested.length})</h3>
${untested.length === 0 ? "<p>None: every requirement has a check.</p>" : `<ul>${untested.map((r) => `<li><code>${h(r.id)}</code> ${h(r.text ?? "")}${r.notCheckable === undefined ? "" : ` <strong>Not checkable:</strong> ${h(r.notCheckable)}`}</li>`).join("")}</ul>`}
</section>`;
}

function requirementRow(
  r: RequirementCoverage,
  state: CellState,
  byId: Map<string, CheckResult>,
  rowId: (c: CheckResult) => string,
): string {
  const checks =
    r.status === "elsewhere"
      ? `checked by <code>${h(r.checkedBy ?? "")}</code>`
      : r.notCheckable !== undefined
        ? `not checkable: ${h(r.notCheckable)}`
        : r.checks
            .map((c) => {
              const ran = byId.get(c.id);
              const name = `<code>${h(c.id)}</code>`;
              return `${ran ? `<a href="#${h(rowId(ran))}">${name}</a>` : name} ${h(c.status)}`;
            })
            .join("<br>");
  return `<tr id="${h(reqId(r.id))}" class="cov-${state}"><td><code>${h(r.id)}</code></td><td>${h(r.level ?? "")}</td><td>${h(state)}</td><td>${checks}</td><td>${explored(r)}</td><td>${h(r.text ?? "")}</td></tr>`;
}

function explorationLine(result: RunResult): string {
  const figures = explorationFigures(result);
  return figures === undefined
    ? ""
    : `<p class="exploration">${h(figures)} The table's Explored column names them.</p>\n`;
}

function explored(r: RequirementCoverage): string {
  const reached = exploredText(r);
  const gaps = gapsText(r);
  return `${h(reached)}${gaps === "" ? "" : `${reached === "" ? "" : "<br>"}<strong>Gaps:</strong> ${h(gaps)}`}`;
}
