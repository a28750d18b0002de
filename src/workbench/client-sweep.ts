// lckit client check --variants: the command once per provider choice, each against its own sandbox, a
// few at a time. A team learns whether its client works with every correct implementation of the
// interface, or exactly which choice breaks it.
import { VARIANTS, type VariantName } from "../reference/index.ts";
import { type ClientCheckOptions, type ClientCheckRun, clientCheck } from "./client-check.ts";

/** Every legal provider choice the reference has (each variant on its own; the default is separate). */
export function legalVariants(): VariantName[] {
  return VARIANTS.map((v) => v.name);
}

export interface ClientSweepOptions extends Omit<ClientCheckOptions, "variant" | "output"> {
  /** undefined: the reference's own choices ("default"). */
  variants: readonly (VariantName | undefined)[];
  parallel: number;
}

export interface ClientSweep {
  runs: { variant: string; run: ClientCheckRun }[];
  /** Runs whose exit code was 0. */
  passed: number;
  /** The worst exit code of the runs (3 before 2 before 1 before 0). */
  exitCode: ClientCheckRun["exitCode"];
}

const SEVERITY = [0, 1, 2, 3] as const;

export async function clientSweep(options: ClientSweepOptions): Promise<ClientSweep> {
  const { variants, parallel, ...common } = options;
  const runs: { variant: string; run: ClientCheckRun }[] = new Array(variants.length);
  let next = 0;
  const worker = async () => {
    while (next < variants.length) {
      const index = next++;
      const variant = variants[index];
      if (options.signal?.aborted) break;
      const run = await clientCheck({ ...common, ...(variant ? { variant } : {}) });
      runs[index] = { variant: variant ?? "default", run };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, variants.length)) }, worker));
  const done = runs.filter(Boolean);
  const exitCode = done.reduce<ClientCheckRun["exitCode"]>(
    (worst, { run }) => (SEVERITY.indexOf(run.exitCode) > SEVERITY.indexOf(worst) ? run.exitCode : worst),
    0,
  );
  return { runs: done, passed: done.filter(({ run }) => run.exitCode === 0).length, exitCode };
}
