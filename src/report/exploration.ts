// What the run explored of each MUST requirement's space, and its gaps: the lines the Markdown summary and
// report.html show under requirement coverage. Pure functions of the run result.
import type { RequirementCoverage, RunResult } from "../result/model.ts";

/** Values shown per dimension before "and N more". */
const SHOWN_VALUES = 8;

/** Requirements the exploration model covers (they carry explored or gaps), in catalogue order. */
export function exploredRequirements(result: RunResult): RequirementCoverage[] {
  return result.coverage.requirements.filter((r) => r.explored !== undefined || r.gaps !== undefined);
}

/** "sort field: code, type; order: asc, desc" */
export function exploredText(r: RequirementCoverage): string {
  return Object.entries(r.explored ?? {})
    .map(([dimension, values]) => `${dimension}: ${shortList(values)}`)
    .join("; ");
}

/** "filter (the document does not show it: ...)" */
export function gapsText(r: RequirementCoverage): string {
  return (r.gaps ?? []).map((g) => `${g.dimension} (${g.note})`).join("; ");
}

function shortList(values: readonly string[]): string {
  const overflow = values.find((v) => v.startsWith("+"));
  const real = values.filter((v) => !v.startsWith("+"));
  const hidden =
    Math.max(0, real.length - SHOWN_VALUES) + (overflow ? Number.parseInt(overflow.slice(1), 10) : 0);
  return hidden > 0 ? `${real.slice(0, SHOWN_VALUES).join(", ")} and ${hidden} more` : real.join(", ");
}

/** One sentence: how many model requirements the run explored, dimensions reached, gaps. */
export function explorationFigures(result: RunResult): string | undefined {
  const reqs = exploredRequirements(result);
  if (reqs.length === 0) return undefined;
  const reached = reqs.reduce((n, r) => n + Object.keys(r.explored ?? {}).length, 0);
  const notReached = reqs.reduce(
    (n, r) => n + (r.gaps ?? []).filter((g) => g.why === "not reached").length,
    0,
  );
  const modelGaps = reqs.reduce(
    (n, r) => n + (r.gaps ?? []).filter((g) => g.why !== "not reached").length,
    0,
  );
  return (
    `Explored (${result.depth ?? "default"} depth): ${reached} dimensions of ${reqs.length} MUST requirements reached` +
    `${notReached > 0 ? `, ${notReached} not reached in this run` : ""}` +
    `${modelGaps > 0 ? `, ${modelGaps} parts no check explores (each with why)` : ""}.`
  );
}
