// lckit events consumer check --variants: the consumer once per producer choice the document leaves open,
// each with its own stream, a few at a time; and what the sweep leaves for CI: a line per choice as it
// finishes, sweep.json, one junit.xml whose test cases name the choice, and summary.md.
import { CONSUMER_COMMAND_CHECK_ID } from "../../events/consumer/consumer-result.ts";
import type { ProducerChoice } from "../../events/consumer/producer-choices.ts";
import { ruleCase, sweepHead, sweepJunit, sweepMarkdown } from "../../report/sweep.ts";
import type { RunResult } from "../../result/model.ts";
import { runSweep, type Sweep } from "../sweep.ts";
import { consumerCheck } from "./check.ts";
import type { ConsumerCheckOptions } from "./request.ts";
import type { ConsumerCheckRun } from "./result.ts";

export interface ConsumerSweepRun {
  choice: ProducerChoice;
  run: ConsumerCheckRun;
  /** The command's own output as it came, its head cut when very long. */
  output: string;
}

export type ConsumerSweep = Sweep<ConsumerSweepRun>;

export interface ConsumerSweepOptions extends Omit<ConsumerCheckOptions, "choice" | "output"> {
  choices: readonly ProducerChoice[];
  parallel: number;
  onFinished?: (entry: ConsumerSweepRun, finished: number, total: number) => void;
}

export async function consumerSweep(options: ConsumerSweepOptions): Promise<ConsumerSweep> {
  const { choices, parallel, onFinished, ...common } = options;
  return runSweep(
    choices,
    { parallel, ...(common.signal ? { signal: common.signal } : {}), ...(onFinished ? { onFinished } : {}) },
    (choice, output) => consumerCheck({ ...common, choice, output }),
    (choice, run, output): ConsumerSweepRun => ({ choice, run, output }),
  );
}

const brokenRules = (result: RunResult) =>
  result.checks.filter((c) => c.status === "failed" && c.id !== CONSUMER_COMMAND_CHECK_ID);

function exitText(run: ConsumerCheckRun): string {
  if (run.outcome.timedOut) return "command timed out";
  return `command exit ${run.outcome.exitCode ?? run.outcome.signal ?? "none"}`;
}

/** One producer choice in sweep.json. */
export function sweepChoiceOf({ choice, run }: ConsumerSweepRun) {
  return {
    choice: choice.name,
    description: choice.description,
    outcome: run.exitCode === 0 ? ("passed" as const) : ("failed" as const),
    verdict: run.result.verdict,
    exitCode: run.exitCode,
    commandExit: run.outcome.exitCode,
    signal: run.outcome.signal,
    timedOut: run.outcome.timedOut,
    brokenRules: brokenRules(run.result).map((c) => ({
      id: c.id,
      level: c.level,
      requirements: c.requirements,
    })),
    notExercised: run.result.checks.filter((c) => c.status === "not-exercised").map((c) => c.id),
    folder: choice.name,
    runId: run.result.runId,
    durationMs: Math.round(run.outcome.durationMs),
  };
}

export function consumerSweepDocument(
  sweep: ConsumerSweep,
  meta: { command: string; startedAt: Date; finishedAt: Date },
) {
  return { ...sweepHead("lckit-consumer-sweep", sweep, meta), runs: sweep.runs.map(sweepChoiceOf) };
}

/** The line printed as a choice finishes; for a failed one, the rules it broke or what the command did. */
export function consumerProgressLine(entry: ConsumerSweepRun, finished: number, total: number): string {
  const width = String(total).length;
  const ok = entry.run.exitCode === 0;
  const broken = brokenRules(entry.run.result).map((c) => `${c.id} (${c.level})`);
  const seconds = (entry.run.outcome.durationMs / 1000).toFixed(1);
  const line = `[${String(finished).padStart(width)}/${total}] ${ok ? "ok  " : "FAIL"} ${entry.choice.name.padEnd(24)} ${exitText(entry.run)} (${seconds} s)${broken.length > 0 ? `; broken: ${broken.join(", ")}` : ""}`;
  return `${line}${ok ? "" : `\n       the choice: ${entry.choice.description}; ${entry.run.result.verdictReason}`}\n`;
}

export function consumerSweepClosing(sweep: ConsumerSweep): string {
  const failed = sweep.runs.filter(({ run }) => run.exitCode !== 0).map(({ choice }) => choice.name);
  return `consumer check over ${sweep.runs.length} producer choice(s): ${sweep.passed} passed, ${failed.length} did not${failed.length > 0 ? ` (${failed.join(", ")})` : ""}\n`;
}

/** The consumer sweep's words in its renderings: a producer choice, junit classes consumer.<choice>. */
const CONSUMER_SWEEP = { classPrefix: "consumer", choiceWord: "producer" } as const;

/** The columns of summary.md after the choice's. */
const COLUMNS = ["Result", "Command exit", "Broken consumer rules", "Not exercised", "Folder"];

export function renderConsumerSweepMarkdown(sweep: ConsumerSweep): string {
  const rows = sweep.runs.map((entry) => {
    const row = sweepChoiceOf(entry);
    return [
      `${row.choice}: ${row.description}`,
      row.outcome === "passed" ? "passed" : "FAILED",
      String(row.commandExit ?? row.signal ?? "none"),
      row.brokenRules.map((r) => `${r.id} (${r.level})`).join(", ") || "none",
      row.notExercised.join(", ") || "none",
      `${row.folder}/`,
    ];
  });
  return sweepMarkdown("lckit events consumer check", CONSUMER_SWEEP, sweep.passed, COLUMNS, rows);
}

/** One junit.xml for the sweep: a testsuite per producer choice, test cases "<choice> · <check>". */
export function renderConsumerSweepJunit(sweep: ConsumerSweep): string {
  const kind = CONSUMER_SWEEP;
  return sweepJunit(
    consumerSweepClosing(sweep),
    sweep.runs.map(({ choice, run }) => ({
      name: `consumer check · ${choice.name}`,
      cases: run.result.checks.flatMap((check) => ruleCase(choice.name, check, kind)),
      tests: run.result.checks.length,
      durationMs: run.outcome.durationMs,
      startedAt: run.result.startedAt,
    })),
  );
}
