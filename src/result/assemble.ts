// One function assembles a run result from what a run produced: the HTTP runner (src/runner) and the event
// checker (src/events) both call it, so run id, kit and spec identity, counts, coverage and verdict are
// derived in one place and the two kinds of report cannot drift apart.
import { randomBytes } from "node:crypto";
import { optional } from "../optional-field.ts";
import type { CatalogueView } from "./catalogue-view.ts";
import { type CoverageScope, type CoveredCheck, computeCoverage, tracedElsewhere } from "./coverage.ts";
import { kitInfo, specHashes } from "./kit-info.ts";
import {
  type CheckResult,
  type Interruption,
  JUDGING_COMMANDS,
  type RunResult,
  reportVersion,
  type Subject,
} from "./model.ts";
import { countResults, decideVerdict } from "./verdict.ts";

/** What a run produced; everything else of a RunResult is derived from it. */
export interface RunRecord {
  /** Default: a new id from startedAt (see newRunId). */
  runId?: string;
  /** The results of the checks the run chose (ran or skipped), in report order. */
  checks: CheckResult[];
  /** Every check the kit knows for this kind of run, with its result when chosen: the coverage counts a
   *  requirement whose checks the selection left out as "not-run", not "untested". Default: `checks`. */
  known?: readonly CoveredCheck[];
  /** Checks the selection (--suite/--check/--level) left out. Default: none. */
  notSelected?: number;
  catalogue: CatalogueView;
  /** Requirement kinds another command of the kit proves, and that command. Default: every other
   *  command's, by the subject's kind. */
  coverageScope?: CoverageScope;
  /** The user's copy of the interface document, hashed into spec.interfaceDocument. */
  interfaceDocument?: string;
  /** What the run judged (see Subject). */
  subject: Subject;
  /** The target requests went to: a provider's, or a caller's sandbox. */
  target?: RunResult["target"];
  selection: RunResult["selection"];
  seed?: number;
  runs?: number;
  /** How far the checks explored (HTTP runs). */
  depth?: RunResult["depth"];
  replayPath?: string;
  command: string;
  startedAt: Date;
  finishedAt: Date;
  /** Default: finishedAt - startedAt (whole ms); a caller that timed the run itself gives its figure. */
  durationMs?: number;
  requestsSent: number;
  interruption?: Interruption;
  configuration?: RunResult["configuration"];
  /** Rewrites the verdict's sentence with what only the caller knows (e.g. how many messages were read). */
  verdictReason?: (reason: string) => string;
}

export function assembleRunResult(run: RunRecord): RunResult {
  const coverage = computeCoverage(
    run.catalogue.requirements,
    run.known ??
      run.checks.map((check) => ({ id: check.id, requirements: check.requirements, result: check })),
    run.catalogue.path,
    run.coverageScope ?? tracedElsewhere(JUDGING_COMMANDS[run.subject.kind]),
  );
  const { verdict, reason } = decideVerdict(
    run.checks,
    run.interruption,
    run.notSelected ?? 0,
    run.subject.kind,
  );
  return {
    reportVersion,
    runId: run.runId ?? newRunId(run.startedAt),
    kit: kitInfo(),
    spec: specHashes(run.interfaceDocument === undefined ? {} : { interfaceDocument: run.interfaceDocument }),
    ...optional("target", run.target),
    selection: run.selection,
    ...optional("seed", run.seed),
    ...optional("runs", run.runs),
    ...optional("depth", run.depth),
    ...optional("replayPath", run.replayPath),
    command: run.command,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt.toISOString(),
    durationMs: run.durationMs ?? run.finishedAt.getTime() - run.startedAt.getTime(),
    requestsSent: run.requestsSent,
    checks: run.checks,
    counts: countResults(run.checks, run.notSelected ?? 0),
    coverage,
    verdict,
    verdictReason: run.verdictReason === undefined ? reason : run.verdictReason(reason),
    ...(run.interruption === undefined ? {} : { interruption: run.interruption }),
    ...(run.configuration === undefined ? {} : { configuration: run.configuration }),
    subject: run.subject,
  };
}

/** A run id: the start time to the second (sortable, readable in a folder listing) and 6 random hex
 *  digits, so two runs started in the same second get different report folders. */
export function newRunId(started: Date = new Date()): string {
  const stamp = started
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}
