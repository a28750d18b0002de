// An event check as a run result (src/result's model, assembled there as an HTTP run's is), so that event
// streams get the same reports as HTTP runs: one check per event rule, judged by the kit's one engine
// (src/rules/judge.ts): failed when a message broke it, passed when it judged at least one message,
// otherwise not exercised, saying what would exercise it; skipped when the check could not run it at all.
import { CheckInconclusive } from "../../check/index.ts";
import { assembleRunResult } from "../../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../../result/catalogue-view.ts";
import { notCheckableOnlyFor } from "../../result/coverage.ts";
import type { CheckResult, Interruption, RunResult } from "../../result/model.ts";
import { judgeRules, type Outcome, ruleCheckResult } from "../../rules/judge.ts";
import type { EventProblem, MessageEvidence } from "../check/event-problem.ts";
import { deliveryTolerance, rule } from "../document/requirements.ts";
import { EVENT_RULES, type EventRule } from "../rules/index.ts";
import type { EventCheckResult } from "./event-stream.ts";

/** Rules that need the streaming configuration; without --config they are reported as skipped. */
const configDependent = new Set<string>([
  rule.entityFilter,
  rule.allFields,
  rule.relationFilter,
  rule.largeObjectConfig,
]);

/** The rules the reference companions judge (their outcome says what the stream's end left open). */
const companionRules = new Set<string>([rule.referenceCompanion, rule.referenceOvChanged]);

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

/** What a check adds beside its verdict: a companion rule's log and undecided readings, the memory
 *  bound's notes. */
type Extra = Pick<CheckResult, "log" | "undecided">;

export function eventRunResult(result: EventCheckResult, meta: EventRunMeta): RunResult {
  const catalogue = meta.catalogue ?? loadCatalogueView();
  const finished = meta.startedAt ? new Date(meta.startedAt.getTime() + result.durationMs) : new Date();
  const started = meta.startedAt ?? new Date(finished.getTime() - result.durationMs);
  const rules = [...EVENT_RULES].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const skips = new Map(rules.flatMap((r) => skipOf(r, result, meta.config).map((skip) => [r.id, skip])));
  const extras = new Map<string, Extra>();
  const judged = judgeRules(
    rules.filter((r) => !skips.has(r.id)),
    (r): Outcome<MessageEvidence> => {
      const { outcome, extra } = outcomeOf(r, result);
      if (extra !== undefined) extras.set(r.id, extra);
      return outcome;
    },
    { sharedMs: result.durationMs },
  );
  const byId = new Map(judged.map((j) => [j.rule.id, j]));
  const checks = rules.map((r): CheckResult => {
    const skip = skips.get(r.id);
    if (skip !== undefined) return { ...checkBase(r), ...skip };
    const one = byId.get(r.id) as (typeof judged)[number];
    const check = ruleCheckResult(one, {
      suite: "events",
      failed: (findings) => failedDetails(result.byRule[r.requirements[0] as string] ?? 0, findings, result),
    });
    return boundNoted({ ...check, ...extras.get(r.id) }, r.requirements[0] as string, result);
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

function checkBase(r: EventRule): Omit<CheckResult, "status"> {
  return {
    id: r.id,
    suite: "events",
    title: r.title,
    level: r.level,
    requirements: [...r.requirements],
    safety: "read",
    durationMs: 0,
    requests: 0,
  };
}

type Skip = Pick<CheckResult, "status" | "skipCause" | "reason">;

/** Why the check could not run a rule at all (no message, no configuration, no reference relation type,
 *  only relationship events that name no entity), or nothing: the rule is judged. A rule a message broke
 *  is always judged. */
function skipOf(r: EventRule, result: EventCheckResult, config: boolean): Skip[] {
  const requirement = r.requirements[0] as string;
  if ((result.byRule[requirement] ?? 0) > 0) return [];
  if (result.total === 0) return [{ status: "skipped", skipCause: "check", reason: "no message was read" }];
  const needs = (reason: string): Skip[] => [{ status: "skipped", skipCause: "needs", reason }];
  if (configDependent.has(requirement) && !config)
    return needs("needs the streaming configuration (--config)");
  if (!companionRules.has(requirement)) return [];
  const companions = result.companions;
  if (companions === undefined || companions.referenceTypes.length === 0)
    return needs(
      "no relation type is known to back a reference attribute: list them under referenceRelationTypes in the streaming configuration (--config), or check a stream whose attribute values show refRelation",
    );
  const said = undecidedSaid(requirement, result);
  const open = result.inconclusive?.some((entry) => entry.rule === requirement);
  return !open && companions.paired === 0 && said.length > 0 ? needs(`not possible: ${said.join("; ")}`) : [];
}

/** What the reference companions could not decide for a rule, one sentence a reason. */
function undecidedSaid(requirement: string, result: EventCheckResult): string[] {
  return result.companions.undecided
    .filter((entry) => entry.rule === requirement)
    .map((entry) => `${entry.count} ${entry.message} (first: ${entry.first})`);
}

/** A judged rule's outcome: failed with its findings (the kept ones: later ones are counted only), the
 *  tolerance's counts, the companions' pairs or what they left open, else passed on the messages it judged
 *  or not exercised. */
function outcomeOf(
  r: EventRule,
  result: EventCheckResult,
): { outcome: Outcome<MessageEvidence>; extra?: Extra } {
  const requirement = r.requirements[0] as string;
  const opportunities = result.opportunities[r.id] ?? 0;
  if ((result.byRule[requirement] ?? 0) > 0)
    return {
      outcome: {
        status: "failed",
        opportunities,
        found: result.problems.filter((problem) => problem.rule === r.id),
      },
    };
  if (opportunities === 0)
    return {
      outcome: {
        status: "not-exercised",
        reason: `none of the ${result.total} message(s) read reached this rule: each stopped before it (not one JSON document, no payload object, no event type or an unsupported one); check a stream of readable event messages`,
      },
    };
  if (requirement === deliveryTolerance)
    return {
      outcome: {
        status: "passed",
        opportunities,
        note: `tolerated ${result.duplicates} redelivered message(s) and ${result.reordered ?? 0} message(s) delivered after a higher objectVersion of their object; the stream rules order by objectVersion only`,
      },
    };
  if (companionRules.has(requirement)) return companionOutcome(requirement, opportunities, result);
  return { outcome: { status: "passed", opportunities } };
}

/** A reference-companion rule no message broke: inconclusive when the end of the stream (or the memory
 *  bound) left relationship events open, else passed with what it paired. */
function companionOutcome(
  requirement: string,
  opportunities: number,
  result: EventCheckResult,
): { outcome: Outcome<MessageEvidence>; extra?: Extra } {
  const { companions } = result;
  const said = undecidedSaid(requirement, result);
  const log = said.length > 0 ? { log: said } : {};
  const open = result.inconclusive?.find((entry) => entry.rule === requirement);
  if (open) {
    const { saw, readings, decideBy } = open;
    return {
      outcome: {
        status: "inconclusive",
        opportunities,
        reason: new CheckInconclusive({ saw, readings, decideBy }).message,
      },
      extra: { undecided: { saw, readings: [readings[0], readings[1]], decideBy }, ...log },
    };
  }
  return {
    outcome: {
      status: "passed",
      opportunities,
      note: `${companions.paired} relationship event(s) of ${companions.referenceTypes.join(", ")} paired with their ENTITY_CHANGED companion${companions.excused > 0 ? `, ${companions.excused} excused (an entity it connects was removed or merged away)` : ""}${said.length > 0 ? `; not possible to decide: ${said.join("; ")}` : ""}`,
    },
    extra: log,
  };
}

/** A failed rule's report: how many findings, the first, up to 20 in the log, the first as data (the
 *  message at fault, the field unless the whole message is at fault, what was wrong). */
function failedDetails(
  count: number,
  findings: readonly EventProblem[],
  result: EventCheckResult,
): Partial<CheckResult> {
  const first = findings[0];
  return {
    message: `${count} problem(s) in ${result.source}${first ? `; first: ${first.where}: ${first.message}` : ""}`,
    log: findings.slice(0, 20).map((f) => `${f.where}: ${f.message}`),
    ...(first
      ? {
          details: {
            actual: first.message,
            record: first.evidence.position,
            ...(first.evidence.instancePath === "" ? {} : { field: dottedPath(first.evidence.instancePath) }),
          },
        }
      : {}),
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
