// The one session shape of the judging commands that run a team's command (lckit client check, lckit events
// consumer check): a request in, and out either one run's result and its report folder, or, with several
// choices, a sweep: a folder per choice written as each finishes and the sweep's own files (sweep.json,
// junit.xml, summary.md) beside them once all have. What differs by kind (the run, what a choice's folder
// holds, the sweep's document and renderings) is passed in; the folders, files and order are here once.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { proveReportRoot, writeReportFolder } from "../report-folder/write.ts";
import { newRunId } from "../result/assemble.ts";
import type { RunResult } from "../result/model.ts";
import type { ExitCode } from "../result/verdict.ts";
import { SWEEP_JSON, type Sweep } from "./sweep.ts";

/** What a session gives back: one run, or a sweep of runs; `folder` is where its reports went. */
export type CommandSession<Run, Entry, Document> =
  | { kind: "single"; run: Run; folder: string; exitCode: ExitCode }
  | { kind: "sweep"; sweep: Sweep<Entry>; document: Document; folder: string; exitCode: ExitCode };

/** What a caller hears of a sweep while it runs (the CLI's progress lines). */
export interface SweepEvents<Entry> {
  /** Before the first choice runs: how many, how many at once, and the folder their folders go in. */
  onStart?: (total: number, atOnce: number, folder: string) => void;
  /** As each choice finishes (its folder is written by then). */
  onFinished?: (entry: Entry, finished: number, total: number) => void;
}

/** How one kind's sweep is kept: its folder's name, a choice's folder, and the sweep's own files. */
export interface SweepFiles<Entry, Document> {
  /** The sweep folder is <report root>/<prefix>-<run id>. */
  prefix: string;
  writeChoice: (folder: string, entry: Entry) => void;
  document: (sweep: Sweep<Entry>, meta: { command: string; startedAt: Date; finishedAt: Date }) => Document;
  junit: (sweep: Sweep<Entry>) => string;
  markdown: (sweep: Sweep<Entry>) => string;
}

/** A report root that cannot be written would lose the command's run: it is proven before anything runs. */
export function openReportRoot(root: string): string {
  proveReportRoot(root);
  return root;
}

/** One run: its report folder under `root`, with what the kind keeps beside the report (`alsoWrite`). */
export async function singleSession<Run extends { result: RunResult; exitCode: ExitCode }>(
  root: string,
  run: () => Promise<Run>,
  alsoWrite: (folder: string, run: Run) => void,
): Promise<CommandSession<Run, never, never>> {
  const done = await run();
  const folder = writeReportFolder(done.result, root, { alsoWrite: (dir) => alsoWrite(dir, done) });
  return { kind: "single", run: done, folder, exitCode: done.exitCode };
}

/** A sweep: its folder made and announced, each choice's folder written as it finishes, the sweep's files
 *  written once all have. `sweep` runs the choices, calling `onFinished` as each finishes. */
export async function sweepSession<Entry, Document>(
  root: string,
  files: SweepFiles<Entry, Document>,
  plan: { total: number; parallel: number; command: (sweep: Sweep<Entry>) => string },
  events: SweepEvents<Entry>,
  sweep: (onFinished: (entry: Entry, finished: number, total: number) => void) => Promise<Sweep<Entry>>,
): Promise<CommandSession<never, Entry, Document>> {
  const folder = join(root, `${files.prefix}-${newRunId()}`);
  mkdirSync(folder, { recursive: true });
  events.onStart?.(plan.total, Math.min(plan.parallel, plan.total), folder);
  const startedAt = new Date();
  const done = await sweep((entry, finished, total) => {
    files.writeChoice(folder, entry);
    events.onFinished?.(entry, finished, total);
  });
  const document = files.document(done, { command: plan.command(done), startedAt, finishedAt: new Date() });
  writeFileSync(join(folder, SWEEP_JSON), `${JSON.stringify(document, null, 2)}\n`);
  writeFileSync(join(folder, "junit.xml"), files.junit(done));
  writeFileSync(join(folder, "summary.md"), files.markdown(done));
  return { kind: "sweep", sweep: done, document, folder, exitCode: done.exitCode };
}
