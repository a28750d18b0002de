// Certified mode (lckit run --certify): the run makes a claim a third party can check. A certificate
// (verdict CERTIFIED) needs every MUST check of the kit to have run and passed, none waived by a
// baseline; anything less keeps the ordinary verdict and says which MUST checks did not run, why, and
// the key or flag that makes them run. The record names what was certified: kit, catalogue and contract
// sha256, the target and its /version answer, profile, seed, runs, start and end.

import type { Certification, CheckResult, RunResult } from "./model.ts";
import { isWaived } from "./verdict.ts";

/** The key or flag that makes a skipped check run, from its skip cause (plan reasons already name it). */
export function fixFor(check: CheckResult): string {
  const reason = check.reason ?? "";
  switch (check.skipCause) {
    case "safety": {
      const flag = /--allow \w+|--confirm-tenant \S+/.exec(reason)?.[0];
      return flag === undefined
        ? "allow its safety class (--allow, or allow: in the target file)"
        : `${flag} (or the matching key of the target file: allow / confirmTenant)`;
    }
    case "needs": {
      const keys = [...reason.matchAll(/credentials\.\w+|otherTenant|rdbmsTenant|rdbmsCustomerId/g)].map(
        (m) => m[0],
      );
      return keys.length > 0 ? `add ${[...new Set(keys)].join(", ")} to the target file` : reason;
    }
    case "interrupted":
      // The reason names what cut the run short: the request budget, the deadline or a signal.
      if (/request budget/.test(reason))
        return "raise --request-budget (requestBudget: in the target file), or drop it, and rerun";
      if (/deadline/.test(reason)) return "raise --deadline (deadline: in the target file) and rerun";
      return "rerun without interruption (a signal ended the run)";
    case "unresponsive":
      return "make the target answer (or raise --unresponsive-after / unresponsiveAfter: in the target file) and rerun";
    default:
      return "the check skipped itself: see its reason; give the target what it needs and rerun";
  }
}

/** Decides the certificate and records what was certified. `mustIds` are every MUST check of the kit. */
export function certify(
  result: RunResult,
  mustIds: readonly string[],
  targetVersion: Certification["targetVersion"],
  profile: Record<string, unknown>,
): RunResult {
  const byId = new Map(result.checks.map((c) => [c.id, c]));
  const missing: Certification["missing"] = [];
  for (const id of mustIds) {
    const c = byId.get(id);
    if (c === undefined)
      missing.push({
        id,
        reason: "not in the run",
        fix: "run lckit run --certify without a check selection",
      });
    else if (c.status === "skipped") missing.push({ id, reason: c.reason ?? "skipped", fix: fixFor(c) });
    else if (c.status === "inconclusive")
      missing.push({
        id,
        reason: c.undecided?.saw ?? c.reason ?? "could not decide",
        fix: c.undecided?.decideBy ?? "see the check's reason and rerun",
      });
  }
  const waivedMust = result.checks.filter((c) => c.level === "MUST" && isWaived(c)).map((c) => c.id);
  let reason: string;
  // A run cut short (request budget, deadline) says so first: that is what to fix.
  const cut = result.interruption === undefined ? "" : `${result.interruption.message}; `;
  if (missing.length > 0)
    reason = `${cut}${missing.length} MUST check${missing.length === 1 ? "" : "s"} of the kit did not run or could not decide (${missing
      .slice(0, 5)
      .map((m) => m.id)
      .join(", ")}${missing.length > 5 ? ", ..." : ""}): no certificate; each says what makes it run`;
  else if (waivedMust.length > 0)
    reason = `${waivedMust.length} MUST failures are only waived by the baseline (${waivedMust.slice(0, 5).join(", ")}): a waived failure is never certified`;
  else if (result.verdict !== "CONFORMANT")
    reason = `the verdict is ${result.verdict}: ${result.verdictReason}`;
  else reason = `every one of the kit's ${mustIds.length} MUST checks ran and passed`;
  const certified = missing.length === 0 && waivedMust.length === 0 && result.verdict === "CONFORMANT";
  return {
    ...result,
    ...(certified
      ? { verdict: "CERTIFIED" as const, verdictReason: `certificate: ${result.verdictReason}` }
      : {}),
    certification: {
      certified,
      reason,
      kitVersion: result.kit.version,
      catalogueSha256: result.spec.catalogue.sha256,
      contractSha256: result.spec.contract,
      // A certificate is of a provider (lckit run --certify), whose target a run result names.
      target: result.target?.name ?? result.command,
      targetVersion,
      profile,
      seed: providerFigure(result.seed),
      runs: providerFigure(result.runs),
      startedAt: result.startedAt,
      finishedAt: result.finishedAt,
      missing,
    },
  };
}

/** A certificate is of a provider run, whose result always has its seed and runs per property. */
function providerFigure(figure: number | undefined): number {
  if (figure === undefined)
    throw new Error("certify takes a provider run's result (lckit run), with its seed and runs");
  return figure;
}
