// What `lckit run` prints: the start line, the plan (--list), live progress, and the closing summary with
// replay commands. Printing only; the run session (src/session/run-session.ts) returns what is printed.
import { drawnAtDepth } from "../../check/index.ts";
import { curlForCheck } from "../../report/curl.ts";
import { terminalSafe } from "../../report/escape.ts";
import { explorationFigures } from "../../report/exploration.ts";
import { notCheckableLines } from "../../report/not-checkable.ts";
import { RETRIES_MEAN, retrySummary } from "../../report/retries.ts";
import type { CheckStatus, RunResult } from "../../result/model.ts";
import type { ProgressEvent } from "../../runner/run.ts";
import { displayPath, type RunSession, type SessionEvent } from "../../session/run-session.ts";
import type { CliIo } from "../io.ts";

export function printStart(io: CliIo, event: Extract<SessionEvent, { type: "starting" }>): void {
  io.err(
    `lckit run: ${event.target.name} (${event.target.baseUrl}), ${event.running} checks to run, ${event.skipped} skipped; ` +
      `seed ${event.seed}${event.seedGiven ? "" : ` (random; replay with --seed ${event.seed})`}, ${event.runs} runs per property${drawnAtDepth(event.runs, event.depth)}\n`,
  );
  if (event.journalFile !== undefined)
    io.err(`configuration changes are journalled in ${displayPath(io.cwd, event.journalFile)}\n`);
  if (event.scheduleNote !== undefined) io.err(`lckit run: ${event.scheduleNote}\n`);
}

export function planAsText(plan: ReturnType<RunSession["planData"]>): string {
  const width = Math.max(10, ...plan.checks.map((c) => c.id.length));
  const lines = plan.checks.map((c) =>
    c.action === "run"
      ? `run   ${c.id.padEnd(width)}  ${c.level.padEnd(6)} ${c.safety}`
      : `skip  ${c.id.padEnd(width)}  ${c.level.padEnd(6)} ${c.reason ?? ""}`,
  );
  const runs = plan.checks.filter((c) => c.action === "run").length;
  const unset =
    plan.unsetVariables === undefined
      ? ""
      : `\nnot set (the run needs them, the plan does not): ${plan.unsetVariables.join(", ")}; export them before running\n`;
  return `${lines.join("\n")}\n\n${runs} to run, ${plan.checks.length - runs} skipped${plan.notSelected > 0 ? `, ${plan.notSelected} not selected` : ""} (target ${plan.target.name}; nothing was sent)\n${unset}`;
}

const mark: Record<CheckStatus, string> = {
  passed: "passed ",
  failed: "FAILED ",
  inconclusive: "UNDECIDED",
  "not-exercised": "not exercised",
  skipped: "skipped",
  broken: "BROKEN ",
};

/** Live progress on a terminal (one rewritten line, findings kept), plain lines otherwise (CI logs). */
export function progressPrinter(io: CliIo) {
  let live = false;
  const tally: Record<CheckStatus, number> = {
    passed: 0,
    failed: 0,
    inconclusive: 0,
    "not-exercised": 0,
    skipped: 0,
    broken: 0,
  };
  const clear = () => {
    if (live) io.err("\r\x1b[2K");
    live = false;
  };
  return {
    onEvent(event: ProgressEvent) {
      if (event.type === "run-stopping") {
        clear();
        io.err(
          `lckit run: stopping: ${oneLine(event.interruption.message)}; ${event.notRun} checks not run\n`,
        );
        return;
      }
      if (event.type === "restore") {
        clear();
        io.err(`${event.ok ? "restored" : "NOT RESTORED"}: ${oneLine(event.message)}\n`);
        return;
      }
      const counter = `[${event.index + 1}/${event.total}]`;
      if (event.type === "check-started") {
        if (io.isTty) {
          clear();
          const counts = `${tally.passed} passed, ${tally.failed} failed, ${tally.broken} broken`;
          io.err(`${counter} ${counts} · ${event.id} ...`.slice(0, 110));
          live = true;
        }
        return;
      }
      const r = event.result;
      tally[r.status] += 1;
      // A SHOULD/MAY failure is a finding, never shown as FAILED.
      const shown = r.status === "failed" && r.level !== "MUST" ? "finding" : mark[r.status];
      const line = `${shown} ${r.id} ${r.durationMs} ms${r.status === "passed" ? "" : `: ${oneLine(r.message ?? r.reason ?? "")}`}\n`;
      if (io.isTty) {
        clear();
        // On a terminal only findings stay on screen; passes scroll by in the live line.
        if (r.status !== "passed" && r.status !== "skipped") io.err(`${counter} ${line}`);
      } else io.err(`${counter} ${line}`);
    },
    done: clear,
  };
}

/** A target-derived message on one terminal line: whitespace flattened, control characters escaped. */
function oneLine(text: string): string {
  const flat = terminalSafe(text.replace(/\s+/g, " "));
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}

export function summaryText(result: RunResult, dir: string): string {
  const s = result.counts.byStatus;
  const mustFailed = result.counts.byLevel.MUST.failed;
  const lines = [
    "",
    `${result.checks.length} checks: ${s.passed} passed, ${mustFailed} failed, ` +
      `${s.failed - mustFailed > 0 ? `${s.failed - mustFailed} SHOULD/MAY findings (warnings, not failures), ` : ""}` +
      `${s.inconclusive > 0 ? `${s.inconclusive} could not decide, ` : ""}${s.skipped} skipped, ${s.broken} broken; ` +
      `${result.requestsSent} requests in ${(result.durationMs / 1000).toFixed(1)} s; seed ${result.seed}`,
  ];
  // A flaky target is said at once, and that it is no failure; the report lists each retry.
  const retries = retrySummary(result);
  if (retries !== undefined) lines.push(`retries: ${terminalSafe(retries)}; ${RETRIES_MEAN}`);
  const failed = result.checks.filter((c) => c.status === "failed");
  for (const c of failed.slice(0, 20)) {
    lines.push(
      `  ${c.level === "MUST" ? "MUST" : `${c.level} finding`} ${c.id}: ${oneLine(c.message ?? "")}`,
    );
    lines.push(
      `    replay: ${c.counterexample?.replay ?? `${result.command} --check ${c.id} --seed ${result.seed}`}`,
    );
    const curl = curlForCheck(c);
    if (curl !== undefined) lines.push(`    curl:   ${terminalSafe(curl)}`);
  }
  if (failed.length > 20) lines.push(`  ... and ${failed.length - 20} more (see the report)`);
  const undecided = result.checks.filter((c) => c.status === "inconclusive");
  for (const c of undecided.slice(0, 20))
    lines.push(`  ${c.level} ${c.id} UNDECIDED: ${oneLine(c.reason ?? "")}`);
  if (undecided.length > 20) lines.push(`  ... and ${undecided.length - 20} more undecided (see the report)`);
  const left = result.configuration?.leftChanged ?? [];
  if (left.length > 0)
    lines.push(
      `configuration left changed: ${left.join("; ")}`,
      `  put it back with: lckit restore ${result.configuration?.journal ?? "<journal>"} --target <target file>`,
    );
  lines.push(...notCheckableLines(result.coverage));
  const explored = explorationFigures(result);
  if (explored !== undefined)
    lines.push(`${explored} See the report's coverage for the values and the gaps.`);
  lines.push(`report: ${dir}`, `verdict: ${result.verdict} (${result.verdictReason})`, "");
  return lines.join("\n");
}
