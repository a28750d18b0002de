// Requirement coverage: which catalogue entries the run proved, which failed, which no check traces to.
import { type Explored, mergeExplored } from "../check/index.ts";
import { commandTraces } from "../generated/traceability.ts";
import { type Dimension, gapWords } from "../requirements/exploration.ts";
import type {
  CheckResult,
  CheckStatus,
  Coverage,
  CoverageStatus,
  ExplorationGap,
  RequirementCoverage,
} from "./model.ts";

export interface CatalogueEntry {
  id: string;
  section?: string;
  level?: string;
  text?: string;
  kind?: string;
  /** Why no command of the kit can check it (the catalogue's notCheckable). */
  notCheckable?: string;
  /** The exploration model's dimensions of the requirement (requirements/exploration.yaml). */
  dimensions?: readonly Dimension[];
}

/** A check known to the kit: its result when it was selected, or none when the selection left it out. */
export interface CoveredCheck {
  id: string;
  requirements: readonly string[];
  result?: Pick<CheckResult, "status" | "explored">;
}

/** Another command of the kit and the requirement ids its checks or rules trace to. */
export interface TracedElsewhere {
  command: string;
  requirements: readonly string[];
}

/**
 * What other commands of the kit check: a requirement no check of this run traces to is "checked by
 * another command" only when a check or rule of that command traces to it; otherwise it is untested.
 */
export interface CoverageScope {
  elsewhere: readonly TracedElsewhere[];
}

export function computeCoverage(
  catalogue: readonly CatalogueEntry[],
  checks: readonly CoveredCheck[],
  cataloguePath: string | null,
  scope?: CoverageScope,
): Coverage {
  const byRequirement = new Map<string, RequirementCoverage["checks"]>();
  const explorations = new Map<string, (Explored | undefined)[]>();
  for (const check of checks) {
    for (const req of check.requirements)
      explorations.set(req, [...(explorations.get(req) ?? []), check.result?.explored]);
    for (const req of check.requirements) {
      const list = byRequirement.get(req) ?? [];
      list.push({ id: check.id, status: check.result?.status ?? "not-selected" });
      byRequirement.set(req, list);
    }
  }
  const known = new Set(catalogue.map((r) => r.id));
  const requirements = catalogue.map((entry): RequirementCoverage => {
    const proving = byRequirement.get(entry.id) ?? [];
    const other =
      proving.length === 0 ? scope?.elsewhere.find((c) => c.requirements.includes(entry.id)) : undefined;
    if (other) return { ...pick(entry), status: "elsewhere", checkedBy: other.command, checks: [] };
    const status = statusOf(proving.map((c) => c.status));
    // Beside an untested requirement, why nothing can check it, where the catalogue says so.
    const why = status === "untested" && entry.notCheckable !== undefined;
    return {
      ...pick(entry),
      status,
      checks: proving,
      ...(why ? { notCheckable: String(entry.notCheckable) } : {}),
      ...exploration(entry.dimensions, explorations.get(entry.id) ?? []),
    };
  });
  const unknown = [...byRequirement.entries()]
    .filter(([id]) => !known.has(id))
    .map(([id, list]) => ({ id, checks: list.map((c) => c.id) }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const figures = {
    total: requirements.length,
    proven: 0,
    failing: 0,
    broken: 0,
    undecided: 0,
    "not-run": 0,
    untested: 0,
    elsewhere: 0,
  };
  for (const r of requirements) figures[r.status] += 1;
  return { catalogue: cataloguePath, requirements, unknown, figures };
}

/**
 * What the requirement's checks reached along each dimension of the model, and the gaps: the parts the
 * model says no check explores, and dimensions whose checks reached nothing in this run.
 */
function exploration(
  dimensions: readonly Dimension[] | undefined,
  parts: readonly (Explored | undefined)[],
): Pick<RequirementCoverage, "explored" | "gaps"> {
  if (dimensions === undefined || dimensions.length === 0) return {};
  const merged = mergeExplored(parts) ?? {};
  const explored: Explored = {};
  const gaps: ExplorationGap[] = [];
  for (const d of dimensions) {
    const values = merged[d.name];
    if (values !== undefined && values.length > 0) explored[d.name] = values;
    else if (d.checks !== undefined && d.checks.length > 0)
      gaps.push({
        dimension: d.name,
        why: "not reached",
        note: d.deepOnly
          ? `explored with --depth deep only (${d.deep ?? d.space})`
          : `its checks (${d.checks.join(", ")}) reached none of it in this run: not run, or stopped early`,
      });
    if (d.notExplored !== undefined)
      gaps.push({
        dimension: d.name,
        why: d.notExplored.why,
        note: `${gapWords(d.notExplored.why)}: ${d.notExplored.note}`,
      });
  }
  return {
    ...(Object.keys(explored).length > 0 ? { explored } : {}),
    ...(gaps.length > 0 ? { gaps } : {}),
  };
}

/** The coverage with the not-checkable reasons kept only for requirements of the kinds a command is about:
 *  why a provider's requirement cannot be checked belongs beside a provider's verdict, not a client's or a
 *  stream's (the requirement stays untested there, without the paragraph). */
export function notCheckableOnlyFor(
  coverage: Coverage,
  catalogue: readonly CatalogueEntry[],
  kinds: readonly string[],
): Coverage {
  const own = new Set(catalogue.filter((r) => kinds.includes(r.kind ?? "")).map((r) => r.id));
  return {
    ...coverage,
    requirements: coverage.requirements.map((r) => {
      if (r.notCheckable === undefined || own.has(r.id)) return r;
      const { notCheckable: _elsewhere, ...rest } = r;
      return rest;
    }),
  };
}

function statusOf(statuses: readonly (CheckStatus | "not-selected")[]): CoverageStatus {
  if (statuses.length === 0) return "untested";
  if (statuses.includes("broken")) return "broken";
  if (statuses.includes("failed")) return "failing";
  if (statuses.includes("inconclusive")) return "undecided";
  if (statuses.includes("passed")) return "proven";
  return "not-run";
}

function pick(entry: CatalogueEntry): Omit<RequirementCoverage, "status" | "checks"> {
  const out: Omit<RequirementCoverage, "status" | "checks"> = { id: entry.id };
  if (entry.section !== undefined) out.section = String(entry.section);
  if (entry.level !== undefined) out.level = String(entry.level);
  if (entry.text !== undefined) out.text = String(entry.text);
  return out;
}

/** The other commands of the kit and what they trace (src/generated/traceability.ts), all but `self`. */
export function tracedElsewhere(self: string): CoverageScope {
  return { elsewhere: commandTraces.filter((traced) => traced.command !== self) };
}
