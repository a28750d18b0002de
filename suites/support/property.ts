// Runs a fast-check property inside a check: seeded, replayable, and turned into a CheckFailure that
// carries the seed, the replay path, the shrunk counterexample and the command that replays it.
import fc from "fast-check";
import {
  type CheckContext,
  CheckFailure,
  CheckInconclusive,
  CheckSkipped,
  fail,
  runsAtDepth,
} from "../../src/check/index.ts";

export interface PropertyOptions<Ts = unknown> {
  /** Stop at the first failure without shrinking: for properties that consume data (delete tasks). */
  noShrink?: boolean;
  /** Overrides the runs (default: runsAtDepth, at most DEFAULT_DEPTH_RUNS of ctx.runs at the default
   *  depth, all of them at "deep"). */
  numRuns?: number;
  /** Values tried first, before the generated ones (boundary values); they count toward numRuns. */
  examples?: Ts[];
}

export async function checkProperty<Ts>(
  ctx: CheckContext,
  property: fc.IAsyncPropertyWithHooks<Ts> | fc.IAsyncProperty<Ts>,
  options: PropertyOptions<Ts> = {},
): Promise<void> {
  const parameters: fc.Parameters<Ts> = { seed: ctx.seed, numRuns: options.numRuns ?? runsAtDepth(ctx) };
  if (ctx.replayPath !== undefined) parameters.path = ctx.replayPath;
  if (options.noShrink) parameters.endOnFailure = true;
  if (options.examples !== undefined) parameters.examples = options.examples;
  const details = await fc.check(property, parameters);
  if (!details.failed) return;
  const error = details.errorInstance;
  // A skip raised inside a property means the target cannot run it at all, an undecided answer stays
  // undecided; a foreign error is a kit bug.
  if (error instanceof CheckSkipped || error instanceof CheckInconclusive) throw error;
  if (!(error instanceof CheckFailure)) {
    if (error instanceof Error) throw error;
    throw new Error(`property failed without an error instance: ${String(error)}`);
  }
  const path = details.counterexamplePath ?? "";
  fail(error.message, {
    ...error.details,
    counterexample: {
      seed: details.seed,
      path,
      value: details.counterexample === null ? "" : fc.stringify(details.counterexample),
      replay: `${ctx.replayCommand} --path ${path}`,
    },
  });
}
