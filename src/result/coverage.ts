// Requirement coverage: which catalogue entries the run proved, which failed, which no check traces to.
import type { CheckResult, CheckStatus, Coverage, CoverageStatus, RequirementCoverage } from "./model.ts";

export interface CatalogueEntry {
  id: string;
  section?: string;
  level?: string;
  text?: string;
  kind?: string;
}

/** A check known to the kit: its result when it was selected, or none when the selection left it out. */
export interface CoveredCheck {
  id: string;
  requirements: readonly string[];
  result?: Pick<CheckResult, "status">;
}

/** Catalogue kinds that event checks (lckit events check) prove; HTTP runs (lckit run) prove the others. */
export const eventRequirementKinds = ["event", "filter"] as const;

/** Catalogue kinds that HTTP runs (lckit run) prove. */
export const httpRequirementKinds = [
  "endpoint",
  "error",
  "field",
  "limit",
  "rule",
  "scan",
  "state",
  "task",
] as const;

/** Catalogue kinds that lckit client check proves: what the document asks of a caller of the interface. */
export const callerRequirementKinds = ["caller"] as const;

/** Requirements of these kinds are checked by another command of the kit, not by this run's checks. */
export interface CoverageScope {
  elsewhereKinds: readonly string[];
  checkedBy: string;
}

export function computeCoverage(
  catalogue: readonly CatalogueEntry[],
  checks: readonly CoveredCheck[],
  cataloguePath: string | null,
  scope?: CoverageScope,
): Coverage {
  const byRequirement = new Map<string, RequirementCoverage["checks"]>();
  for (const check of checks) {
    for (const req of check.requirements) {
      const list = byRequirement.get(req) ?? [];
      list.push({ id: check.id, status: check.result?.status ?? "not-selected" });
      byRequirement.set(req, list);
    }
  }
  const known = new Set(catalogue.map((r) => r.id));
  const requirements = catalogue.map((entry): RequirementCoverage => {
    const proving = byRequirement.get(entry.id) ?? [];
    if (proving.length === 0 && entry.kind !== undefined && scope?.elsewhereKinds.includes(entry.kind)) {
      return { ...pick(entry), status: "elsewhere", checkedBy: scope.checkedBy, checks: [] };
    }
    // Caller rules are judged on a client's traffic (lckit client check), never by a provider's run.
    const callerKind = (callerRequirementKinds as readonly string[]).includes(entry.kind ?? "");
    if (proving.length === 0 && scope && callerKind && !scope.elsewhereKinds.includes("caller")) {
      return { ...pick(entry), status: "elsewhere", checkedBy: "lckit client check", checks: [] };
    }
    return { ...pick(entry), status: statusOf(proving.map((c) => c.status)), checks: proving };
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
