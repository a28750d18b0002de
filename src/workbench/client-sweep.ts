// lckit client check --variants: the command once per provider choice, each against its own sandbox, a
// few at a time. A team learns whether its client works with every correct implementation of the
// interface, or exactly which choice breaks it.
import { VARIANTS, type VariantName } from "../reference/index.ts";
import { worstExitCode } from "../result/verdict.ts";
import { type ClientCheckOptions, type ClientCheckRun, clientCheck } from "./client-check.ts";

/** Every legal provider choice the reference has (each variant on its own; the default is separate). */
export function legalVariants(): VariantName[] {
  return VARIANTS.map((v) => v.name);
}

/** One provider choice of a sweep, run. */
export interface ClientSweepRun {
  /** The variant name, or "default" (the reference's own choices). */
  variant: string;
  run: ClientCheckRun;
  /** The command's own output (stdout and stderr as they came), its head cut when it was very long. */
  output: string;
}

export interface ClientSweepOptions extends Omit<ClientCheckOptions, "variant" | "output"> {
  /** undefined: the reference's own choices ("default"). */
  variants: readonly (VariantName | undefined)[];
  parallel: number;
  /** Called as each choice finishes (in the order they finish), with how many have finished. */
  onFinished?: (entry: ClientSweepRun, finished: number, total: number) => void;
}

export interface ClientSweep {
  /** In the order of `variants`. */
  runs: ClientSweepRun[];
  /** Runs whose exit code was 0. */
  passed: number;
  /** The worst exit code of the runs (3 before 2 before 1 before 0). */
  exitCode: ClientCheckRun["exitCode"];
}

/** The most of a command's output a sweep keeps per choice; beyond it the oldest output goes. */
export const OUTPUT_KEPT_CHARS = 4 * 1024 * 1024;

/** A command's output as it comes, bounded: the tail is what explains a failure. */
class OutputLog {
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

export async function clientSweep(options: ClientSweepOptions): Promise<ClientSweep> {
  const { variants, parallel, onFinished, ...common } = options;
  const runs: ClientSweepRun[] = new Array(variants.length);
  let finished = 0;
  let baseline: ClientCheckRun["traffic"] | undefined;
  const runOne = async (index: number) => {
    const variant = variants[index];
    const log = new OutputLog();
    const run = await clientCheck({
      ...common,
      ...(variant ? { variant } : {}),
      ...(variant && baseline ? { baseline } : {}),
      output: (chunk) => log.add(chunk),
    });
    const entry = { variant: variant ?? "default", run, output: log.text() };
    runs[index] = entry;
    finished++;
    onFinished?.(entry, finished, variants.length);
    return run;
  };
  // The default runs first, alone: every other choice is then also judged by its difference from it.
  const first = variants.indexOf(undefined);
  if (first >= 0 && !options.signal?.aborted) baseline = (await runOne(first)).traffic;
  const rest = variants.map((_, index) => index).filter((index) => index !== first);
  let next = 0;
  const worker = async () => {
    while (next < rest.length) {
      const index = rest[next++] as number;
      if (options.signal?.aborted) break;
      await runOne(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, rest.length)) }, worker));
  const done = runs.filter(Boolean);
  return {
    runs: done,
    passed: done.filter(({ run }) => run.exitCode === 0).length,
    exitCode: worstExitCode(done.map(({ run }) => run.exitCode)),
  };
}
