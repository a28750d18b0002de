// lckit client check from request to report folder, below the CLI: the report root proven writable before
// the team's command runs, the check run once (src/commands/client/check.ts) or once per provider choice
// (a sweep), and every folder written: the run's report with the command's exchanges, or a folder per
// choice as each finishes and the sweep's own files (sweep.json, junit.xml, summary.md). `lckit client
// check` parses flags into a ClientCheckRequest and prints what this returns; problems the user can fix are
// UsageErrors (exit 2).
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { FixtureError, type VariantName } from "../../reference/index.ts";
import { proveReportRoot, writeReportFolder } from "../../report-folder/write.ts";
import { newRunId } from "../../result/assemble.ts";
import type { ExitCode, FailOn } from "../../result/verdict.ts";
import { UsageError } from "../../usage-error.ts";
import { SWEEP_JSON } from "../sweep.ts";
import { type ClientCheckRun, clientCheck } from "./check.ts";
import { type ClientSweep, type ClientSweepRun, clientSweep } from "./sweep.ts";
import { renderSweepMarkdown } from "./sweep-markdown.ts";
import {
  EXCHANGES_FILE,
  renderSweepJunit,
  type SweepDocument,
  sweepDocument,
  writeChoiceFolder,
} from "./sweep-report.ts";

/** What a client check is asked to do: the flags of lckit client check, or a library caller's options.
 *  Paths are relative to `cwd`. */
export interface ClientCheckRequest {
  cwd: string;
  /** The environment the command inherits (the LCKIT_* variables are added). */
  env: NodeJS.ProcessEnv;
  /** The team's command and its arguments. */
  command: string[];
  data?: string;
  clientId?: string;
  timeoutMs: number;
  reportDir: string;
  failOn: readonly FailOn[];
  /** Provider choices the team pins (--require-choice): a command failing under one is a MUST failure. */
  requiredChoices?: readonly string[];
  /** The command's output as it comes (a single check; a sweep keeps each choice's in its command.log). */
  output?: (chunk: string) => void;
  /** Aborting it stops the command (its process group), as a hang does. */
  signal?: AbortSignal;
}

export interface ClientSweepRequest extends Omit<ClientCheckRequest, "output"> {
  /** The provider choices; undefined: the reference's own ("default"). */
  variants: readonly (VariantName | undefined)[];
  parallel: number;
}

export interface ClientCheckOutcome {
  run: ClientCheckRun;
  /** The report folder: <report dir>/<run id>. */
  dir: string;
  exitCode: ExitCode;
}

export interface ClientSweepOutcome {
  sweep: ClientSweep;
  document: SweepDocument;
  /** The sweep's folder: <report dir>/sweep-<run id>, a folder per choice inside. */
  dir: string;
  exitCode: ExitCode;
}

export interface ClientSweepEvents {
  /** Before the first choice runs: how many, how many at once, and where their folders go. */
  onStart?: (total: number, atOnce: number, dir: string) => void;
  /** As each choice finishes (its folder is written by then). */
  onFinished?: (entry: ClientSweepRun, finished: number, total: number) => void;
}

/** One client check: the command run once against one sandbox, its report folder written. */
export async function runClientCheck(request: ClientCheckRequest): Promise<ClientCheckOutcome> {
  const root = resolve(request.cwd, request.reportDir);
  // A report that cannot be written would lose the command's run: the folder is proven first.
  proveReportRoot(root);
  const run = await usageErrors(() =>
    clientCheck({
      ...checkOptions(request),
      ...(request.output === undefined ? {} : { output: request.output }),
    }),
  );
  const dir = writeReportFolder(run.result, root, {
    // The command's whole traffic, redacted, one exchange per line, beside the report.
    alsoWrite: (folder) =>
      writeFileSync(
        join(folder, EXCHANGES_FILE),
        run.exchanges.map((x) => `${JSON.stringify(x)}\n`).join(""),
      ),
  });
  return { run, dir, exitCode: run.exitCode };
}

/** A sweep: the command once per provider choice, a few at a time, a folder per choice written as it
 *  finishes, and the sweep's own files once all have. */
export async function runClientSweep(
  request: ClientSweepRequest,
  events: ClientSweepEvents = {},
): Promise<ClientSweepOutcome> {
  const root = resolve(request.cwd, request.reportDir);
  proveReportRoot(root);
  const dir = join(root, `sweep-${newRunId()}`);
  mkdirSync(dir, { recursive: true });
  events.onStart?.(request.variants.length, Math.min(request.parallel, request.variants.length), dir);
  const startedAt = new Date();
  const sweep = await usageErrors(() =>
    clientSweep({
      ...checkOptions(request),
      variants: request.variants,
      parallel: request.parallel,
      onFinished: (entry, finished, total) => {
        writeChoiceFolder(dir, entry);
        events.onFinished?.(entry, finished, total);
      },
    }),
  );
  const document = sweepDocument(sweep, {
    // As the reports show it: redacted.
    command: sweep.runs[0]?.run.result.command ?? request.command.join(" "),
    startedAt,
    finishedAt: new Date(),
  });
  writeFileSync(join(dir, SWEEP_JSON), `${JSON.stringify(document, null, 2)}\n`);
  writeFileSync(join(dir, "junit.xml"), renderSweepJunit(sweep));
  writeFileSync(join(dir, "summary.md"), renderSweepMarkdown(sweep));
  return { sweep, document, dir, exitCode: sweep.exitCode };
}

function checkOptions(request: Omit<ClientCheckRequest, "output">) {
  return {
    argv: request.command,
    // --fail-on not-exercised also marks the MUST rules as required in every report.
    ...(request.failOn.includes("not-exercised") ? { requireExercised: true } : {}),
    failOn: request.failOn,
    cwd: request.cwd,
    env: request.env,
    timeoutMs: request.timeoutMs,
    ...(request.data === undefined ? {} : { data: resolve(request.cwd, request.data) }),
    ...(request.clientId === undefined ? {} : { clientId: request.clientId }),
    ...(request.requiredChoices === undefined ? {} : { requiredChoices: request.requiredChoices }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  };
}

/** A bad data file names the flag it came from; a command not given or an unknown client is a
 *  ClientCheckError already: both are the user's input (UserInputError, exit 2). */
async function usageErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FixtureError) throw new UsageError(`--data ${error.message}`);
    throw error;
  }
}
