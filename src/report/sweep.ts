// What both sweeps (lckit client check and lckit events consumer check over their choices) render alike: the
// head of sweep.json, what --format json prints, the table of summary.md and one junit.xml with a testsuite
// per choice. Renderers only: the sweep's folders are written by its command (src/commands).

import type { CheckResult, RunResult } from "../result/model.ts";
import type { ExitCode } from "../result/verdict.ts";
import { escapeMarkdown, escapeXml } from "./escape.ts";
import { isFailure } from "./junit.ts";

/** The head of a sweep document, of either sweep (client and event consumer): its counts and times. */
export function sweepHead<Kind extends string>(
  kind: Kind,
  sweep: { runs: readonly unknown[]; passed: number; exitCode: ExitCode },
  meta: { command: string; startedAt: Date; finishedAt: Date },
) {
  return {
    kind,
    command: meta.command,
    choices: sweep.runs.length,
    passed: sweep.passed,
    failed: sweep.runs.length - sweep.passed,
    exitCode: sweep.exitCode,
    startedAt: meta.startedAt.toISOString(),
    finishedAt: meta.finishedAt.toISOString(),
  };
}

/** What --format json prints, of either sweep: the sweep document, where it was written, each choice with
 *  its full result. */
export type SweepOutput<D extends { runs: readonly { choice: string }[] }> = Omit<D, "runs"> & {
  folder: string;
  runs: (D["runs"][number] & { result: RunResult })[];
};

export function sweepOutput<D extends { runs: readonly { choice: string }[] }>(
  document: D,
  results: ReadonlyMap<string, RunResult>,
  folder: string,
): SweepOutput<D> {
  return {
    ...document,
    folder,
    runs: document.runs.map((entry) => ({ ...entry, result: results.get(entry.choice) as RunResult })),
  };
}

/** summary.md of either sweep: its title, how many of its choices passed, and a table of one row a choice
 *  (`columns` after the choice's; each row's cells as text, escaped here). */
export function sweepMarkdown(
  title: string,
  kind: Pick<SweepKind, "choiceWord">,
  passed: number,
  columns: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const choice = `${kind.choiceWord[0]?.toUpperCase()}${kind.choiceWord.slice(1)} choice`;
  return `${[
    `# ${title}: every ${kind.choiceWord} choice`,
    "",
    `${passed} of ${rows.length} ${kind.choiceWord} choice(s) passed.`,
    "",
    `| ${[choice, ...columns].join(" | ")} |`,
    `|${[choice, ...columns].map(() => "---").join("|")}|`,
    ...rows.map((cells) => `| ${cells.map(escapeMarkdown).join(" | ")} |`),
  ].join("\n")}\n`;
}

export const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** Which sweep a junit test case is of: the prefix of its class name and the kind of choice it ran under. */
export interface SweepKind {
  classPrefix: "client" | "consumer";
  choiceWord: "provider" | "producer";
}

const CLIENT_SWEEP: SweepKind = { classPrefix: "client", choiceWord: "provider" };

/** A rule's check under one choice as the junit test case "<choice> · <rule>", of either sweep: passed,
 *  a failure, a SHOULD/MAY warning in its output, or skipped (any status that judged nothing). */
export function ruleCase(choice: string, check: CheckResult, kind: SweepKind = CLIENT_SWEEP): string[] {
  const open = `    <testcase name="${escapeXml(`${choice} · ${check.id}`)}" classname="${escapeXml(`${kind.classPrefix}.${choice}`)}" time="${seconds(check.durationMs)}">`;
  const about = `${check.title}\nlevel: ${check.level}; requirements: ${check.requirements.join(", ")}; ${kind.choiceWord} choice: ${choice}`;
  if (check.status === "passed") return [`${open.slice(0, -1)}/>`];
  if (isFailure(check))
    return [
      open,
      `      <failure message="${escapeXml(check.message ?? check.reason ?? "")}" type="${check.level}">${escapeXml(`${about}\n${check.message ?? check.reason ?? ""}\n${(check.log ?? []).join("\n")}`)}</failure>`,
      "    </testcase>",
    ];
  if (check.status === "failed")
    return [
      open,
      `      <system-out>${escapeXml(`WARNING: ${check.level} finding, not a failure\n${about}\n${check.message ?? ""}`)}</system-out>`,
      "    </testcase>",
    ];
  // Skipped, and any status that judged nothing: not a pass, not a failure.
  return [
    open,
    `      <skipped message="${escapeXml(`${check.status}: ${check.reason ?? check.message ?? ""}`)}"/>`,
    "    </testcase>",
  ];
}

/** One choice of a sweep as a junit testsuite. */
export interface SweepSuite {
  name: string;
  cases: string[];
  tests: number;
  durationMs: number;
  startedAt: string;
}

/** The junit.xml of either sweep: a testsuite per choice, named after the sweep's closing line. */
export function sweepJunit(closing: string, suites: readonly SweepSuite[]): string {
  const lines = suites.flatMap((suite) => {
    const failures = suite.cases.filter((line) => line.includes("<failure ")).length;
    const skipped = suite.cases.filter((line) => line.includes("<skipped ")).length;
    return [
      `  <testsuite name="${escapeXml(suite.name)}" tests="${suite.tests}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(suite.durationMs)}" timestamp="${escapeXml(suite.startedAt)}">`,
      ...suite.cases,
      "  </testsuite>",
    ];
  });
  const tests = suites.reduce((sum, suite) => sum + suite.tests, 0);
  const failures = lines.filter((line) => line.includes("<failure ")).length;
  const time = suites.reduce((sum, suite) => sum + suite.durationMs, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(`lckit ${closing.trimEnd()}`)}" tests="${tests}" failures="${failures}" errors="0" time="${seconds(time)}">`,
    ...lines,
    "</testsuites>",
    "",
  ].join("\n");
}
