// An event check as a run result (src/result's model, assembled there as an HTTP run's is), so that event
// streams get the same reports as HTTP runs: one check per requirement the event checker enforces, failed
// when a message broke it.
import { CheckInconclusive } from "../../check/index.ts";
import { assembleRunResult } from "../../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../../result/catalogue-view.ts";
import { notCheckableOnlyFor } from "../../result/coverage.ts";
import type { CheckResult, Interruption, RunResult } from "../../result/model.ts";
import { deliveryTolerance, rule } from "../document/requirements.ts";
import { eventChecks } from "../rules/index.ts";
import type { EventCheckResult } from "./event-stream.ts";

/** Rules that need the streaming configuration; without --config they are reported as skipped. */
const configDependent = new Set<string>([
  rule.entityFilter,
  rule.allFields,
  rule.relationFilter,
  rule.largeObjectConfig,
]);

export interface EventRunMeta {
  command: string;
  /** Whether a streaming configuration was given. */
  config: boolean;
  /** An empty stream is allowed (--allow-empty). */
  allowEmpty?: boolean;
  startedAt?: Date;
  runId?: string;
  catalogue?: CatalogueView;
  /** A stop signal cut the reading short: the run is INTERRUPTED (exit 4), judged on what was read. */
  interruption?: Interruption;
}

export function eventRunResult(result: EventCheckResult, meta: EventRunMeta): RunResult {
  const catalogue = meta.catalogue ?? loadCatalogueView();
  const finished = meta.startedAt ? new Date(meta.startedAt.getTime() + result.durationMs) : new Date();
  const started = meta.startedAt ?? new Date(finished.getTime() - result.durationMs);
  const checks = eventChecks().map(({ id: checkId, rule: id, title, level, requirements }): CheckResult => {
    const base = {
      id: checkId,
      suite: "events",
      title,
      level,
      requirements,
      safety: "read" as const,
      durationMs: 0,
      requests: 0,
    };
    const count = result.byRule[id] ?? 0;
    if (count > 0) {
      const problems = result.problems.filter((problem) => problem.rule === id);
      const first = problems[0];
      return {
        ...base,
        status: "failed",
        message: `${count} problem(s) in ${result.source}${first ? `; first: ${first.position} ${first.instancePath || "message"}: ${first.message}` : ""}`,
        log: problems.slice(0, 20).map((p) => `${p.position} ${p.instancePath || "message"}: ${p.message}`),
        // The first problem as data: the message at fault (where it came from), the field (none when the
        // whole message is at fault) and what was wrong.
        ...(first
          ? {
              details: {
                actual: first.message,
                record: first.position,
                ...(first.instancePath === "" ? {} : { field: dottedPath(first.instancePath) }),
              },
            }
          : {}),
      };
    }
    if (result.total === 0) {
      return { ...base, status: "skipped", skipCause: "check", reason: "no message was read" };
    }
    if (configDependent.has(id) && !meta.config) {
      return {
        ...base,
        status: "skipped",
        skipCause: "needs",
        reason: "needs the streaming configuration (--config)",
      };
    }
    if (id === deliveryTolerance) {
      return {
        ...base,
        status: "passed",
        message: `tolerated ${result.duplicates} redelivered message(s) and ${result.reordered ?? 0} message(s) delivered after a higher objectVersion of their object; the stream rules order by objectVersion only`,
      };
    }
    const passed =
      id === rule.referenceCompanion || id === rule.referenceOvChanged
        ? companionCheck(base, id, result)
        : ({ ...base, status: "passed" } as CheckResult);
    return boundNoted(passed, id, result);
  });
  const assembled = assembleRunResult({
    ...(meta.runId === undefined ? {} : { runId: meta.runId }),
    checks,
    catalogue,
    subject: {
      kind: "events",
      source: result.source,
      messages: result.total,
      ...(meta.allowEmpty ? { emptyAllowed: true as const } : {}),
    },
    selection: { suites: ["events"], checks: [], level: "MAY", allow: ["read"] },
    seed: 0,
    runs: 1,
    command: meta.command,
    startedAt: started,
    finishedAt: finished,
    durationMs: result.durationMs,
    requestsSent: 0,
    ...(meta.interruption === undefined ? {} : { interruption: meta.interruption }),
    verdictReason: (reason) =>
      result.total === 0 && meta.interruption === undefined
        ? `no message was read from ${result.source}: nothing was checked (an empty input is not a conforming stream)`
        : `${reason} (${result.total} message(s), ${result.invalid} invalid)`,
  });
  // Why a provider's requirement cannot be checked is said beside a provider's verdict, not a stream's.
  return {
    ...assembled,
    coverage: notCheckableOnlyFor(assembled.coverage, catalogue.requirements, ["event", "filter"]),
  };
}

/** The reference-companion rules when no message broke them: inconclusive when the end of the stream (or
 *  the memory bound) left relationship events open, passed with what they paired, or skipped when no
 *  relation type is known to back a reference attribute or no relationship event named the entities it
 *  connects. */
function companionCheck(
  base: Omit<CheckResult, "status">,
  id: string,
  result: EventCheckResult,
): CheckResult {
  const companions = result.companions;
  if (companions === undefined || companions.referenceTypes.length === 0) {
    return {
      ...base,
      status: "skipped",
      skipCause: "needs",
      reason:
        "no relation type is known to back a reference attribute: list them under referenceRelationTypes in the streaming configuration (--config), or check a stream whose attribute values show refRelation",
    };
  }
  const undecided = companions.undecided.filter((entry) => entry.rule === id);
  const said = undecided.map((entry) => `${entry.count} ${entry.message} (first: ${entry.first})`);
  const open = result.inconclusive?.find((entry) => entry.rule === id);
  if (open) {
    const { saw, readings, decideBy } = open;
    return {
      ...base,
      status: "inconclusive",
      reason: new CheckInconclusive({ saw, readings, decideBy }).message,
      undecided: { saw, readings: [readings[0], readings[1]], decideBy },
      ...(said.length > 0 ? { log: said } : {}),
    };
  }
  if (companions.paired === 0 && undecided.length > 0) {
    return { ...base, status: "skipped", skipCause: "needs", reason: `not possible: ${said.join("; ")}` };
  }
  return {
    ...base,
    status: "passed",
    message: `${companions.paired} relationship event(s) of ${companions.referenceTypes.join(", ")} paired with their ENTITY_CHANGED companion${companions.excused > 0 ? `, ${companions.excused} excused (an entity it connects was removed or merged away)` : ""}${said.length > 0 ? `; not possible to decide: ${said.join("; ")}` : ""}`,
    ...(said.length > 0 ? { log: said } : {}),
  };
}

/** A passed or inconclusive check whose rule forgot state at the memory bound says so: it passed on what
 *  it could still compare. */
function boundNoted(check: CheckResult, id: string, result: EventCheckResult): CheckResult {
  if (check.status !== "passed" && check.status !== "inconclusive") return check;
  const notes = (result.notices ?? [])
    .filter((notice) => notice.kind === "memory-bound" && notice.message.includes(id))
    .map((notice) => `memory bound: ${notice.message}`);
  if (notes.length === 0) return check;
  if (check.status === "passed")
    return { ...check, message: [check.message, ...notes].filter(Boolean).join("; ") };
  return { ...check, log: [...(check.log ?? []), ...notes] };
}

/** A JSON pointer ("/payload/object/attributes/Country/0") as the dotted path a failure detail names
 *  ("payload.object.attributes.Country.0"). */
export function dottedPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}
