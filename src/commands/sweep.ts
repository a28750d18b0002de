// A sweep, of either kind (the client check over provider choices, the consumer check over producer
// choices): one check per choice, a few at a time, each choice's command output kept (its tail, bounded),
// and the sweep's exit code the worst of its runs. A stop request (the kit's signal) starts no further
// choice; what finished is kept.
import { type ExitCode, worstExitCode } from "../result/verdict.ts";

/** The files of either sweep: the command's output in each choice's folder, the sweep's document beside them. */
export const COMMAND_LOG = "command.log";
export const SWEEP_JSON = "sweep.json";

export interface Sweep<E> {
  /** In the order of the choices (those that ran). */
  runs: E[];
  /** Runs whose exit code was 0. */
  passed: number;
  /** The worst exit code of the runs (4 before 3 before 2 before 1 before 0). */
  exitCode: ExitCode;
}

export interface SweepOptions<E> {
  parallel: number;
  signal?: AbortSignal;
  /** Called as each choice finishes (in the order they finish), with how many have finished. */
  onFinished?: (entry: E, finished: number, total: number) => void;
  /** The index of a choice that runs first, alone: the others may be judged against it. */
  first?: number;
}

/** The most of a command's output a sweep keeps per choice; beyond it the oldest output goes. */
export const OUTPUT_KEPT_CHARS = 4 * 1024 * 1024;

/** A command's output as it comes, bounded: the tail is what explains a failure. */
export class OutputLog {
  private chunks: string[] = [];
  private size = 0;
  private dropped = 0;

  add(chunk: string): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > OUTPUT_KEPT_CHARS && this.chunks.length > 1) {
      const first = this.chunks.shift() as string;
      this.size -= first.length;
      this.dropped += first.length;
    }
  }

  text(): string {
    const kept = this.chunks.join("");
    return this.dropped === 0 ? kept : `[${this.dropped} earlier characters of output not kept]\n${kept}`;
  }
}

/** Runs `check` once per choice, `parallel` at a time; `entryOf` names a finished run as its sweep keeps it. */
export async function runSweep<C, R extends { exitCode: ExitCode }, E extends { run: R }>(
  choices: readonly C[],
  options: SweepOptions<E>,
  check: (choice: C, output: (chunk: string) => void) => Promise<R>,
  entryOf: (choice: C, run: R, output: string) => E,
): Promise<Sweep<E>> {
  const runs: E[] = new Array(choices.length);
  let finished = 0;
  const runOne = async (index: number) => {
    const choice = choices[index] as C;
    const log = new OutputLog();
    const run = await check(choice, (chunk) => log.add(chunk));
    const entry = entryOf(choice, run, log.text());
    runs[index] = entry;
    finished += 1;
    options.onFinished?.(entry, finished, choices.length);
  };
  const { first } = options;
  if (first !== undefined && first >= 0 && first < choices.length && !options.signal?.aborted)
    await runOne(first);
  const rest = choices.map((_, index) => index).filter((index) => index !== first);
  let next = 0;
  const worker = async () => {
    while (next < rest.length && !options.signal?.aborted) await runOne(rest[next++] as number);
  };
  const workers = Math.max(1, Math.min(options.parallel, rest.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const done = runs.filter(Boolean);
  return {
    runs: done,
    passed: done.filter(({ run }) => run.exitCode === 0).length,
    exitCode: worstExitCode(done.map(({ run }) => run.exitCode)),
  };
}
