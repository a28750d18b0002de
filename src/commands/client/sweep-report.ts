// What a variant sweep leaves for CI: a line per provider choice as it finishes, a folder per choice named
// by it (the run's report, exchanges.ndjson, command.log), and beside them sweep.json, one junit.xml whose
// test cases name the choice, and summary.md. Each failed choice carries why: the choice the sandbox took
// and the first refusal the client met.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxChoice } from "../../reference/index.ts";
import { escapeXml } from "../../report/escape.ts";
import { ruleCase, seconds, sweepHead, sweepJunit } from "../../report/sweep.ts";
import { writeManifest } from "../../report-folder/manifest.ts";
import { writeReport } from "../../report-folder/write.ts";
import { COMMAND_CHECK_ID } from "../../result/client-verdict.ts";
import type { CheckResult, RunResult } from "../../result/model.ts";
import type { ExitCode } from "../../result/verdict.ts";
import { COMMAND_LOG } from "../sweep.ts";
import type { ClientSweep, ClientSweepRun } from "./sweep.ts";

/** The file a choice's folder holds beside the report and the command's output. */
export const EXCHANGES_FILE = "exchanges.ndjson";

/** A rule the client broke under one choice. */
export interface SweepBrokenRule {
  id: string;
  level: CheckResult["level"];
  requirements: string[];
}

/** One provider choice in sweep.json (and in --format json, which adds the run's full result). */
export interface SweepChoice {
  /** The variant name, or "default" (the reference's own choices). */
  choice: string;
  /** What the sandbox did differently (the variant's description); absent for the default. */
  description?: string;
  /** "passed" when the kit exits 0 for this choice: the command passed and no MUST caller rule broke. */
  outcome: "passed" | "failed";
  /** The run's verdict (CONFORMANT, NOT CONFORMANT, ...). */
  verdict: RunResult["verdict"];
  /** The kit's exit code for this choice (0, 1, 2 or 3, as lckit client check exits). */
  exitCode: ExitCode;
  /** The command's own exit code; null when it did not exit by itself (signal, time limit, not started). */
  commandExit: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Caller rules that failed, at any level (MUST ones fail the choice). */
  brokenRules: SweepBrokenRule[];
  /** The first answer of the sandbox that refused the client (redacted), when there was one. */
  firstRefusal?: string;
  /** For a failed choice: the choice and the first refusal, in one sentence. */
  why?: string;
  /** The command failed under this choice only (it passed under the default) and the choice is not
   *  required: a SHOULD finding naming the point the document does not show that the choice pins. */
  dependsOnChoice?: { silentPoint: string; finding: string };
  /** The choice's folder, relative to the sweep's folder (its name is the choice). */
  folder: string;
  runId: string;
  durationMs: number;
}

export interface SweepDocument {
  kind: "lckit-client-sweep";
  command: string;
  /** Provider choices run, passed, failed; exitCode is the worst of them (what the command exits). */
  choices: number;
  passed: number;
  failed: number;
  exitCode: ExitCode;
  startedAt: string;
  finishedAt: string;
  runs: SweepChoice[];
}

function describe(choice: string): string | undefined {
  return sandboxChoice(choice)?.description;
}

/** A command that failed only under this choice, which the document leaves open (client/command at SHOULD):
 *  the choice passes, with this finding. */
export function dependsOnChoice({ run }: ClientSweepRun): boolean {
  return run.result.checks.some(
    (c) => c.id === COMMAND_CHECK_ID && c.status === "failed" && c.level !== "MUST",
  );
}

/** Why a choice failed, or what a choice the command depends on did: the choice the sandbox took, the first
 *  refusal, or what the command did. */
export function whyFailed({ variant, run }: ClientSweepRun): string | undefined {
  if (run.exitCode === 0 && !dependsOnChoice({ variant, run } as ClientSweepRun)) return undefined;
  const choice = describe(variant);
  const parts = [
    choice ? `the choice: ${choice}` : "",
    run.firstRefusal ? `first refusal: ${run.firstRefusal}` : "",
  ].filter(Boolean);
  if (parts.length > 0) return parts.join("; ");
  const outcome = run.outcome;
  if (outcome.startError) return `the command could not start: ${outcome.startError}`;
  if (outcome.timedOut) return "the command did not finish within --timeout";
  const broken = run.result.checks.filter(
    (c) => c.status === "failed" && c.level === "MUST" && c.id !== COMMAND_CHECK_ID,
  );
  if (broken.length > 0) return `MUST caller rule broken: ${broken.map((c) => c.id).join(", ")}`;
  return `the command exited ${outcome.exitCode ?? outcome.signal ?? "without a code"}; see ${COMMAND_LOG}`;
}

export function sweepChoice(entry: ClientSweepRun): SweepChoice {
  const { variant, run } = entry;
  const description = describe(variant);
  const why = whyFailed(entry);
  return {
    choice: variant,
    ...(description === undefined ? {} : { description }),
    outcome: run.exitCode === 0 ? "passed" : "failed",
    verdict: run.result.verdict,
    exitCode: run.exitCode,
    commandExit: run.outcome.exitCode,
    signal: run.outcome.signal,
    timedOut: run.outcome.timedOut,
    // The command's own check is the command exit beside them, not a rule the client broke.
    brokenRules: run.result.checks
      .filter((check) => check.status === "failed" && check.id !== COMMAND_CHECK_ID)
      .map((check) => ({ id: check.id, level: check.level, requirements: check.requirements })),
    ...(run.firstRefusal === undefined ? {} : { firstRefusal: run.firstRefusal }),
    ...(why === undefined ? {} : { why }),
    ...(dependsOnChoice(entry)
      ? {
          dependsOnChoice: {
            silentPoint: sandboxChoice(variant)?.silentPoint ?? "",
            finding: run.result.checks.find((c) => c.id === COMMAND_CHECK_ID)?.message?.split("\n")[0] ?? "",
          },
        }
      : {}),
    folder: variant,
    runId: run.result.runId,
    durationMs: Math.round(run.outcome.durationMs),
  };
}

export function sweepDocument(
  sweep: ClientSweep,
  meta: { command: string; startedAt: Date; finishedAt: Date },
): SweepDocument {
  return { ...sweepHead("lckit-client-sweep", sweep, meta), runs: sweep.runs.map(sweepChoice) };
}

function exitText(entry: ClientSweepRun): string {
  const { outcome } = entry.run;
  if (outcome.timedOut) return "command timed out";
  return `command exit ${outcome.exitCode ?? outcome.signal ?? "none"}`;
}

/** The lines printed as a choice finishes (progress count, outcome, choice, how the command ended), and for a
 *  failed choice the rules it broke and why, so a CI log explains it before the sweep ends. */
export function progressLines(entry: ClientSweepRun, finished: number, total: number): string {
  const width = String(total).length;
  const ok = entry.run.exitCode === 0;
  const should = dependsOnChoice(entry);
  // The command's own check is the "command exit" the line already gives, not a rule the client broke.
  const broken = entry.run.result.checks
    .filter((c) => c.status === "failed" && c.id !== COMMAND_CHECK_ID)
    .map((c) => `${c.id} (${c.level})`);
  const seconds = (entry.run.outcome.durationMs / 1000).toFixed(1);
  const lines = [
    `[${String(finished).padStart(width)}/${total}] ${ok ? (should ? "WARN" : "ok  ") : "FAIL"} ${entry.variant.padEnd(34)} ${exitText(entry)} (${seconds} s)${broken.length > 0 ? `; broken: ${broken.join(", ")}` : ""}`,
  ];
  if (should) {
    const point = sandboxChoice(entry.variant)?.silentPoint;
    lines.push(
      `       SHOULD: your command fails under this choice only (the default passed); the document does not show ${point?.replace(/: not shown$/, "") ?? "this point"}; --require-choice ${entry.variant} makes it a MUST failure`,
    );
  }
  if (!ok || should) {
    const choice = describe(entry.variant);
    if (choice) lines.push(`       the choice: ${choice}`);
    if (entry.run.firstRefusal) lines.push(`       first refusal: ${entry.run.firstRefusal}`);
    if (!choice && !entry.run.firstRefusal) lines.push(`       ${whyFailed(entry)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The closing lines: the count, and the choices that failed. */
export function sweepClosing(sweep: ClientSweep): string {
  const failed = sweep.runs.filter(({ run }) => run.exitCode !== 0).map(({ variant }) => variant);
  const depends = sweep.runs.filter(dependsOnChoice).map(({ variant }) => variant);
  return `client check over ${sweep.runs.length} provider choice(s): ${sweep.passed} passed, ${failed.length} did not${failed.length > 0 ? ` (${failed.join(", ")})` : ""}${depends.length > 0 ? `; SHOULD: your command fails under ${depends.join(", ")} only, choice(s) the document leaves open (--require-choice pins one)` : ""}\n`;
}

/** Writes one choice's folder, named by the choice: the run's report, its exchanges and the command's output. */
export function writeChoiceFolder(sweepDir: string, entry: ClientSweepRun): string {
  const { run } = entry;
  const { dir } = writeReport(run.result, sweepDir, entry.variant);
  writeFileSync(join(dir, EXCHANGES_FILE), run.exchanges.map((x) => `${JSON.stringify(x)}\n`).join(""));
  writeFileSync(join(dir, COMMAND_LOG), entry.output);
  // Last, so that it lists every file of the folder.
  writeManifest(dir, run.result.runId);
  return dir;
}

/** The tail of a command's output, for a failed test case. */
function tail(text: string, lines = 40): string {
  return text.split("\n").slice(-lines).join("\n");
}

/** The command's own check (client/command) as the test case "<choice> · command": failed when the command
 *  did, with how it ended, why the choice failed and the tail of its output. */
function commandCase(entry: ClientSweepRun): string[] {
  const { run, variant } = entry;
  const check = run.result.checks.find((c) => c.id === COMMAND_CHECK_ID);
  const name = `${variant} · command`;
  const open = `    <testcase name="${escapeXml(name)}" classname="${escapeXml(`client.${variant}`)}" time="${seconds(run.outcome.durationMs)}">`;
  const commandFailed =
    check !== undefined
      ? check.status === "failed"
      : run.outcome.startError !== undefined || run.outcome.timedOut || run.outcome.exitCode !== 0;
  if (!commandFailed) return [`${open.slice(0, -1)}/>`];
  const why = whyFailed(entry) ?? "";
  const about =
    check === undefined
      ? (run.result.command ?? "")
      : `${check.title}\nlevel: ${check.level} (${COMMAND_CHECK_ID}); provider choice: ${variant}`;
  const headline = check?.message?.split("\n")[0];
  // Failed under a choice the document leaves open only: a SHOULD warning, not a failure of the suite.
  if (check !== undefined && check.level !== "MUST")
    return [
      open,
      `      <system-out>${escapeXml(`WARNING: ${check.level} finding, not a failure\n${about}\n${headline ?? ""}\n${why}\n--- tail of ${COMMAND_LOG} ---\n${tail(entry.output)}`)}</system-out>`,
      "    </testcase>",
    ];
  return [
    open,
    `      <failure message="${escapeXml(`${exitText(entry)}; ${why}`)}" type="${check?.level ?? "MUST"}">${escapeXml(`${about}\n${headline === undefined ? "" : `${headline}\n`}${why}\n--- tail of ${COMMAND_LOG} ---\n${tail(entry.output)}`)}</failure>`,
    "    </testcase>",
  ];
}

/** One junit.xml for the whole sweep: a testsuite per choice, test cases named "<choice> · command" (the
 *  command's own check) and "<choice> · <rule>", so merged results tell the choices apart; its name says
 *  which choices did not pass. */
export function renderSweepJunit(sweep: ClientSweep): string {
  return sweepJunit(
    sweepClosing(sweep),
    sweep.runs.map((entry) => {
      // The command's own check is the "<choice> · command" case; the caller rules follow it.
      const rules = entry.run.result.checks.filter((check) => check.id !== COMMAND_CHECK_ID);
      return {
        name: `client check · ${entry.variant}`,
        cases: [...commandCase(entry), ...rules.flatMap((check) => ruleCase(entry.variant, check))],
        tests: rules.length + 1,
        durationMs: entry.run.outcome.durationMs,
        startedAt: entry.run.result.startedAt,
      };
    }),
  );
}
