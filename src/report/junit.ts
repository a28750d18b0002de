// junit.xml: one testcase per check, grouped by suite, for CI test-report views. Valid against the common
// JUnit XSD (Jenkins junit-10.xsd): <testsuites> carries no "skipped" attribute (only each <testsuite>
// does), and only MUST failures are <failure>s. A failed SHOULD/MAY check is a passed testcase with a
// "WARNING" line in its <system-out>: it does not fail the run (exit 0), so it must not turn a CI test view
// red; the warning and report.html still name it.

import type { CheckResult, RunResult } from "../result/model.ts";
import { isWaived } from "../result/verdict.ts";
import { evidenceLocation } from "./citations.ts";
import { escapeXml } from "./escape.ts";
import { detailRows } from "./failure-detail.ts";
import { clientHeadline, JUDGING_COMMAND, subjectName, targetOf } from "./outcome.ts";
import { RETRIES_MEAN, retryLines, retrySummary } from "./retries.ts";

export function renderJunit(result: RunResult): string {
  const suites = new Map<string, CheckResult[]>();
  for (const check of result.checks) suites.set(check.suite, [...(suites.get(check.suite) ?? []), check]);
  const totals = result.counts.byStatus;
  const failures = result.checks.filter(isFailure).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(`${JUDGING_COMMAND[result.subject.kind]} ${result.runId}: ${result.verdict}${((cause) => (cause === undefined ? "" : ` (${cause})`))(clientHeadline(result))}`)}" tests="${result.checks.length}" ` +
      `failures="${failures}" errors="${totals.broken}" time="${seconds(result.durationMs)}">`,
  ];
  let first = true;
  for (const [suite, checks] of suites) {
    const count = (status: CheckResult["status"]) => checks.filter((c) => c.status === status).length;
    const time = checks.reduce((sum, c) => sum + c.durationMs, 0);
    lines.push(
      `  <testsuite name="${escapeXml(suite)}" tests="${checks.length}" failures="${checks.filter(isFailure).length}" ` +
        `errors="${count("broken")}" skipped="${count("skipped") + checks.filter((c) => c.status === "not-exercised" && !isFailure(c)).length}" time="${seconds(time)}" ` +
        `timestamp="${escapeXml(result.startedAt)}">`,
    );
    // JUnit keeps run-wide facts in <properties>, which only a testsuite may hold: the first one does.
    if (first) lines.push(properties(result));
    first = false;
    for (const check of checks) lines.push(...testcase(check));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}

/** What the run judged: a provider's target and its seed; a stream; a team's command (no seed or property
 *  runs), how it ended and the choice it ran under. */
function subjectProperties(result: RunResult): [string, string][] {
  const { subject } = result;
  const target = targetOf(result);
  const where: [string, string][] =
    target === undefined
      ? [[subject.kind, subjectName(result)]]
      : [
          ["target", `${subjectName(result)} (${target.baseUrl})`],
          ["tenant", target.tenant],
        ];
  switch (subject.kind) {
    case "provider":
      return [...where, ["seed", String(result.seed)], ["runs", String(result.runs)]];
    case "events":
      return [...where, ["messages", String(subject.messages)]];
    case "traffic":
      return [...where, ["exchanges", String(subject.exchanges)], ["parties", subject.parties.join(", ")]];
    case "caller":
    case "consumer": {
      const { command } = subject;
      return [
        ...where,
        ["command", command.argv.join(" ")],
        ["commandExit", String(command.exitCode ?? command.signal ?? "none")],
        ...((subject.kind === "caller"
          ? [["variant", subject.choice]]
          : [
              ["producerChoice", subject.choice],
              ["delivery", subject.delivery],
            ]) as [string, string][]),
      ];
    }
  }
}

function properties(result: RunResult): string {
  const retries = retrySummary(result);
  const props: [string, string][] = [
    ...subjectProperties(result),
    ["kit", `${result.kit.name} ${result.kit.version}`],
    ["verdict", result.verdict],
    ["verdictReason", result.verdictReason],
    [
      "catalogue",
      `${result.spec.catalogue.file} ${result.spec.catalogue.version} sha256:${result.spec.catalogue.sha256}`,
    ],
    ["contract", `${result.spec.contractVersion} sha256:${result.spec.contract}`],
    [
      "shouldWarnings",
      String(result.checks.filter((c) => c.status === "failed" && c.level !== "MUST").length),
    ],
    ...(result.interruption ? ([["interrupted", result.interruption.message]] as [string, string][]) : []),
    // A flaky target in one line; each retried check says which of its requests in its <system-out>.
    ...(retries === undefined ? [] : ([["retries", `${retries}; ${RETRIES_MEAN}`]] as [string, string][])),
    ...(result.baseline
      ? ([
          ["baseline", `${result.baseline.file} sha256:${result.baseline.sha256}`],
          ["waived", result.baseline.waived.join(",")],
          ["waiversExpired", result.baseline.expired.join(",")],
        ] as [string, string][])
      : []),
    ...(result.certification
      ? ([
          ["certified", String(result.certification.certified)],
          ["certification", result.certification.reason],
          ["targetVersion", JSON.stringify(result.certification.targetVersion)],
        ] as [string, string][])
      : []),
  ];
  const items = props.map(([n, v]) => `      <property name="${escapeXml(n)}" value="${escapeXml(v)}"/>`);
  return ["    <properties>", ...items, "    </properties>"].join("\n");
}

function testcase(check: CheckResult): string[] {
  const open = `    <testcase name="${escapeXml(check.id)}" classname="${escapeXml(check.suite)}" time="${seconds(check.durationMs)}">`;
  const about = `${check.title}\nlevel: ${check.level}; requirements: ${check.requirements.join(", ") || "none"}`;
  // A retried request is no finding, but the test view shows it (a passed check without one stays one line).
  const retried = retryText(check);
  const out = retried === "" ? [] : [`      <system-out>${escapeXml(retried)}</system-out>`];
  switch (check.status) {
    case "passed":
      return out.length === 0 ? [`${open.slice(0, -1)}/>`] : [open, ...out, "    </testcase>"];
    case "skipped":
      return [open, `      <skipped message="${escapeXml(check.reason ?? "")}"/>`, ...out, "    </testcase>"];
    case "not-exercised":
      // A caller rule the client's traffic gave nothing to judge: no pass; a failure when the run requires it.
      if (!isFailure(check))
        return [
          open,
          `      <skipped message="${escapeXml(`not exercised: ${check.reason ?? ""}`)}"/>`,
          "    </testcase>",
        ];
      return [
        open,
        `      <failure message="${escapeXml(`not exercised: ${check.reason ?? ""}`)}" type="not-exercised">${escapeXml(`${about}\nnot exercised, and the run requires MUST rules exercised (--fail-on not-exercised): ${check.reason ?? ""}`)}</failure>`,
        "    </testcase>",
      ];
    case "failed":
      if (!isFailure(check))
        return [
          open,
          `      <system-out>${escapeXml(`${isWaived(check) ? `WAIVED: ${check.level} check failed, a known failure of the baseline (${check.waiver?.reason}; ${check.waiver?.who}; until ${check.waiver?.expires})` : `WARNING: ${check.level} finding, not a failure (does not fail the run)`}\n${failureText(check, about)}`)}</system-out>`,
          "    </testcase>",
        ];
      return [
        open,
        `      <failure message="${escapeXml(check.message ?? "")}" type="${check.level}">${escapeXml(failureText(check, about))}</failure>`,
        "    </testcase>",
      ];
    case "inconclusive":
      // An undecided MUST check fails the job by default (--fail-on inconclusive), so CI shows it red.
      if (!isFailure(check))
        return [
          open,
          `      <system-out>${escapeXml(`UNDECIDED: ${check.level} check could not decide (does not fail the run)\n${about}\n${check.reason ?? ""}`)}</system-out>`,
          "    </testcase>",
        ];
      return [
        open,
        `      <failure message="${escapeXml(check.reason ?? "")}" type="inconclusive">${escapeXml(`${about}\n${check.reason ?? ""}`)}</failure>`,
        "    </testcase>",
      ];
    case "broken":
      return [
        open,
        `      <error message="${escapeXml(check.message ?? "")}" type="broken">${escapeXml(
          [about, check.message ?? "", check.details?.stack ?? "", ...whereText(check)].join("\n"),
        )}</error>`,
        "    </testcase>",
      ];
  }
}

/** Only a failed or undecided MUST check is a <failure>: SHOULD and MAY failures are warnings, and so are
 *  failures the baseline waives (only new failures fail the job; report.json keeps the status "failed"). */
export function isFailure(check: CheckResult): boolean {
  if (check.status === "inconclusive") return check.level === "MUST";
  if (check.status === "not-exercised") return check.level === "MUST" && check.exerciseRequired === true;
  return check.status === "failed" && check.level === "MUST" && !isWaived(check);
}

/** A failed check as text: what, the failure's details, the replay, the evidence (shared with ctrf.json). */
export function failureText(check: CheckResult, about: string): string {
  const parts = [about, check.message ?? ""];
  for (const row of detailRows(check)) parts.push(`${row.label}: ${row.value}`);
  if (check.counterexample)
    parts.push(`counterexample: ${check.counterexample.value}`, `replay: ${check.counterexample.replay}`);
  for (const x of check.evidence ?? []) {
    parts.push(`> ${x.request.method} ${x.request.url}`);
    parts.push(
      x.response ? `< ${x.response.status} ${x.response.body.slice(0, 500)}` : `< ${x.error ?? "no answer"}`,
    );
  }
  parts.push(...whereText(check));
  return parts.join("\n");
}

/** Where a failed or broken check's evidence is, and its retries (a <failure>, <error> or warning text). */
function whereText(check: CheckResult): string[] {
  const where = evidenceLocation(check);
  const lines = retryLines(check);
  return [
    ...(where === undefined ? [] : [`evidence: ${where}`]),
    ...(lines.length === 0 ? [] : [`retried (no finding by itself):`, ...lines.map((l) => `  ${l}`)]),
  ];
}

/** The <system-out> of a passed or skipped check the transport retried for: what, and where the evidence
 *  is; empty without retries. Failed and broken checks carry the same lines in their failure text. */
function retryText(check: CheckResult): string {
  if (check.status === "failed" || check.status === "broken") return "";
  const lines = retryLines(check);
  if (lines.length === 0) return "";
  const where = evidenceLocation(check);
  return [
    `RETRIED: ${lines.length} ${lines.length === 1 ? "request" : "requests"} sent again (no finding by itself)`,
    ...lines,
    ...(where === undefined ? [] : [`evidence: ${where}`]),
  ].join("\n");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}
