// junit.xml: one testcase per check, grouped by suite, for CI test-report views.
import { escapeXml } from "./escape.ts";
import type { CheckResult, RunResult } from "./model.ts";

export function renderJunit(result: RunResult): string {
  const suites = new Map<string, CheckResult[]>();
  for (const check of result.checks) suites.set(check.suite, [...(suites.get(check.suite) ?? []), check]);
  const totals = result.counts.byStatus;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(`lckit run ${result.runId}: ${result.verdict}`)}" tests="${result.checks.length}" ` +
      `failures="${totals.failed}" errors="${totals.broken}" skipped="${totals.skipped}" time="${seconds(result.durationMs)}">`,
  ];
  let first = true;
  for (const [suite, checks] of suites) {
    const count = (status: CheckResult["status"]) => checks.filter((c) => c.status === status).length;
    const time = checks.reduce((sum, c) => sum + c.durationMs, 0);
    lines.push(
      `  <testsuite name="${escapeXml(suite)}" tests="${checks.length}" failures="${count("failed")}" ` +
        `errors="${count("broken")}" skipped="${count("skipped")}" time="${seconds(time)}" ` +
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

function properties(result: RunResult): string {
  const props: [string, string][] = [
    ["target", `${result.target.name} (${result.target.baseUrl})`],
    ["tenant", result.target.tenant],
    ["seed", String(result.seed)],
    ["runs", String(result.runs)],
    ["kit", `${result.kit.name} ${result.kit.version}`],
    ["verdict", result.verdict],
    ...(result.interruption ? ([["interrupted", result.interruption.message]] as [string, string][]) : []),
  ];
  const items = props.map(([n, v]) => `      <property name="${escapeXml(n)}" value="${escapeXml(v)}"/>`);
  return ["    <properties>", ...items, "    </properties>"].join("\n");
}

function testcase(check: CheckResult): string[] {
  const open = `    <testcase name="${escapeXml(check.id)}" classname="${escapeXml(check.suite)}" time="${seconds(check.durationMs)}">`;
  const about = `${check.title}\nlevel: ${check.level}; requirements: ${check.requirements.join(", ") || "none"}`;
  switch (check.status) {
    case "passed":
      return [`${open.slice(0, -1)}/>`];
    case "skipped":
      return [open, `      <skipped message="${escapeXml(check.reason ?? "")}"/>`, "    </testcase>"];
    case "failed":
      return [
        open,
        `      <failure message="${escapeXml(check.message ?? "")}" type="${check.level}">${escapeXml(failureText(check, about))}</failure>`,
        "    </testcase>",
      ];
    case "broken":
      return [
        open,
        `      <error message="${escapeXml(check.message ?? "")}" type="broken">${escapeXml(
          [about, check.message ?? "", check.details?.stack ?? ""].join("\n"),
        )}</error>`,
        "    </testcase>",
      ];
  }
}

function failureText(check: CheckResult, about: string): string {
  const parts = [about, check.message ?? ""];
  if (check.details?.expected !== undefined) parts.push(`expected: ${check.details.expected}`);
  if (check.details?.actual !== undefined) parts.push(`actual: ${check.details.actual}`);
  if (check.counterexample)
    parts.push(`counterexample: ${check.counterexample.value}`, `replay: ${check.counterexample.replay}`);
  for (const x of check.evidence ?? []) {
    parts.push(`> ${x.request.method} ${x.request.url}`);
    parts.push(
      x.response ? `< ${x.response.status} ${x.response.body.slice(0, 500)}` : `< ${x.error ?? "no answer"}`,
    );
  }
  return parts.join("\n");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}
