// lckit client check --variants: the command once per provider choice, each against its own sandbox, a
// few at a time. A team learns whether its client works with every correct implementation of the
// interface, or exactly which choice breaks it.
import { SANDBOX_WORLDS, type SandboxChoiceName, VARIANTS } from "../../reference/index.ts";
import { commandFailure } from "../../result/client-verdict.ts";
import { runSweep, type Sweep } from "../sweep.ts";
import { CLIENT_CHECK_DEFAULTS, type ClientCheckOptions, type ClientCheckRun, clientCheck } from "./check.ts";

/** Every legal provider choice the reference has (each variant on its own; the default is separate), and
 *  the worlds a deployment can be in when the client starts (SANDBOX_WORLDS). */
export function legalVariants(): SandboxChoiceName[] {
  return [...VARIANTS, ...SANDBOX_WORLDS].map((v) => v.name);
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
  variants: readonly (SandboxChoiceName | undefined)[];
  parallel: number;
  /** Called as each choice finishes (in the order they finish), with how many have finished. */
  onFinished?: (entry: ClientSweepRun, finished: number, total: number) => void;
}

export type ClientSweep = Sweep<ClientSweepRun>;

export async function clientSweep(options: ClientSweepOptions): Promise<ClientSweep> {
  const { variants, parallel, onFinished, ...common } = options;
  // The default runs first, alone: every other choice is then also judged by its difference from it.
  const first = variants.indexOf(undefined);
  let baseline: ClientCheckRun["traffic"] | undefined;
  let defaultPassed: boolean | undefined;
  return runSweep(
    variants,
    {
      parallel,
      ...(first >= 0 ? { first } : {}),
      ...(common.signal ? { signal: common.signal } : {}),
      ...(onFinished ? { onFinished } : {}),
    },
    async (variant, output) => {
      const run = await clientCheck({
        ...common,
        ...(variant ? { variant } : {}),
        ...(variant && baseline ? { baseline } : {}),
        ...(variant && defaultPassed !== undefined ? { defaultPassed } : {}),
        output,
      });
      if (variant === undefined) {
        baseline = run.traffic;
        defaultPassed = commandFailure(run.outcome) === undefined;
      }
      return run;
    },
    (variant, run, output): ClientSweepRun => ({
      variant: variant ?? CLIENT_CHECK_DEFAULTS.variant,
      run,
      output,
    }),
  );
}
