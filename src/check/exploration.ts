// What a check explored of the space its requirements span: for each dimension the exploration model
// names (requirements/exploration.yaml), the values the check reached against this target. A rule checked
// on one slice is not a check of the rule, so the report says which slices were looked at.

/** How far checks go: "default" keeps a live target's run polite; "deep" (the default of a certified run)
 *  explores more of each dimension: every sort field read whole, more limits, deeper pages, more runs. */
export const DEPTHS = ["default", "deep"] as const;
export type Depth = (typeof DEPTHS)[number];

/** What of a check's context (CheckContext, check.ts) exploring reads: written out here, so that the
 *  context's file may name Depth without a circle. */
interface ExploringContext {
  explore?(dimension: string, value: string | number | boolean): void;
  depth?: Depth;
  runs: number;
}

/** Distinct values kept per dimension and check: the report names what was reached, not every draw. */
const MAX_VALUES = 40;

/** Dimension -> distinct values reached, in the order first reached (`+N more` past MAX_VALUES). */
export type Explored = Record<string, string[]>;

export class ExplorationLog {
  readonly #values = new Map<string, Set<string>>();
  readonly #overflow = new Map<string, number>();

  add(dimension: string, value: string | number | boolean): void {
    const set = this.#values.get(dimension) ?? new Set<string>();
    this.#values.set(dimension, set);
    const text = String(value);
    if (set.has(text)) return;
    if (set.size >= MAX_VALUES) this.#overflow.set(dimension, (this.#overflow.get(dimension) ?? 0) + 1);
    else set.add(text);
  }

  snapshot(): Explored | undefined {
    if (this.#values.size === 0) return undefined;
    const out: Explored = {};
    for (const [dimension, set] of this.#values) {
      const more = this.#overflow.get(dimension);
      out[dimension] = more ? [...set, `+${more} more`] : [...set];
    }
    return out;
  }
}

/** Notes that the check reached `value` of `dimension` (a bare context without a log notes nothing). */
export function explore(
  ctx: Pick<ExploringContext, "explore">,
  dimension: string,
  value: string | number | boolean,
): void {
  ctx.explore?.(dimension, value);
}

/** The run's depth as a check sees it. */
export function depthOf(ctx: Pick<ExploringContext, "depth">): Depth {
  return ctx.depth ?? "default";
}

/** Cases a property draws at the default depth when the check names no other bound: each costs requests to
 *  a live target, and the boundary cases a check sends first do not count against it. */
export const DEFAULT_DEPTH_RUNS = 10;

/** Runs of a property: at the default depth at most `atDefault` of the run's (--runs), at "deep" all. */
export function runsAtDepth(
  ctx: Pick<ExploringContext, "depth" | "runs">,
  atDefault: number = DEFAULT_DEPTH_RUNS,
): number {
  return depthOf(ctx) === "deep" ? ctx.runs : Math.min(ctx.runs, atDefault);
}

/** What a report adds to --runs: at the default depth a property draws at most DEFAULT_DEPTH_RUNS of them. */
export function drawnAtDepth(runs: number | undefined, depth: Depth | undefined): string {
  return runs === undefined || depth === "deep" || runs <= DEFAULT_DEPTH_RUNS
    ? ""
    : ` (at most ${DEFAULT_DEPTH_RUNS} drawn at the default depth)`;
}

/** Merges explorations (of the checks of one requirement): the union of values per dimension. */
export function mergeExplored(parts: readonly (Explored | undefined)[]): Explored | undefined {
  const log = new ExplorationLog();
  for (const part of parts)
    for (const [dimension, values] of Object.entries(part ?? {}))
      for (const value of values) if (!value.startsWith("+")) log.add(dimension, value);
  return log.snapshot();
}
