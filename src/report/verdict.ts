// The run's verdict from its check results: a pure function, so every renderer and exit code agree.
import type { Level } from "../runner/check.ts";
import type { CheckResult, CheckStatus, Counts, Verdict } from "./model.ts";

const statuses: CheckStatus[] = ["passed", "failed", "skipped", "broken"];
const levels: Level[] = ["MUST", "SHOULD", "MAY"];

export function countResults(checks: readonly CheckResult[], notSelected: number): Counts {
  const zero = () => Object.fromEntries(statuses.map((s) => [s, 0])) as Record<CheckStatus, number>;
  const byStatus = zero();
  const byLevel = Object.fromEntries(levels.map((l) => [l, zero()])) as Counts["byLevel"];
  for (const c of checks) {
    byStatus[c.status] += 1;
    byLevel[c.level][c.status] += 1;
  }
  return { byStatus, byLevel, notSelected };
}

/** BROKEN beats everything (results cannot be trusted), then a MUST failure, then MUST checks that did
 *  not run (safety settings, missing credentials or capabilities, or the check skipped itself). */
export function decideVerdict(checks: readonly CheckResult[]): { verdict: Verdict; reason: string } {
  const broken = checks.filter((c) => c.status === "broken");
  if (broken.length > 0)
    return {
      verdict: "BROKEN",
      reason: `the run broke: ${plural(broken.length, "check")} hit a fault of the kit (${ids(broken)})`,
    };
  const mustFailed = checks.filter((c) => c.level === "MUST" && c.status === "failed");
  if (mustFailed.length > 0)
    return {
      verdict: "NOT CONFORMANT",
      reason: `${plural(mustFailed.length, "MUST check")} failed (${ids(mustFailed)})`,
    };
  const mustSkipped = checks.filter((c) => c.level === "MUST" && c.status === "skipped");
  if (mustSkipped.length > 0)
    return {
      verdict: "INCOMPLETE",
      reason:
        `${plural(mustSkipped.length, "MUST check")} did not run (${ids(mustSkipped)}); ` +
        "see their reasons (safety settings, credentials or capabilities of the target)",
    };
  if (!checks.some((c) => c.status === "passed")) return { verdict: "INCOMPLETE", reason: "no check ran" };
  const otherFailed = checks.filter((c) => c.status === "failed").length;
  return {
    verdict: "CONFORMANT",
    reason:
      otherFailed === 0
        ? "every check that ran passed"
        : `every MUST check passed; ${plural(otherFailed, "SHOULD/MAY check")} failed`,
  };
}

/** Exit code the CLI uses for a verdict (STYLE.md: 0 conformant, 1 MUST failure, 3 the run broke). */
export function exitCodeOf(verdict: Verdict): number {
  if (verdict === "BROKEN") return 3;
  if (verdict === "NOT CONFORMANT") return 1;
  return 0;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function ids(checks: readonly CheckResult[]): string {
  const shown = checks.slice(0, 5).map((c) => c.id);
  return checks.length > 5 ? `${shown.join(", ")}, ...` : shown.join(", ");
}
