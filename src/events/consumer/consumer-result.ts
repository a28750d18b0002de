// A judged view as a run result (src/result's model), so a consumer check gets the reports every run gets:
// the consumer's command as a check of its own, the view as one (read, or why not), one check per
// consumer rule with its findings (object, the message that should have won, what the view holds) and
// the replay command.
import { assembleRunResult } from "../../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../../result/catalogue-view.ts";
import {
  CONSUMER_COMMAND_CHECK_ID,
  commandFailure,
  commandInterruption,
  commandRun,
  describeCommandOutcome,
} from "../../result/client-verdict.ts";
import { notCheckableOnlyFor } from "../../result/coverage.ts";
import type { CheckResult, ClientCommand, RunResult, StopSignal } from "../../result/model.ts";
import { ruleCheckResult } from "../../rules/judge.ts";
import type { ConsumerFinding, ConsumerJudgement } from "./consumer-judge.ts";
import { CONSUMER_RULES } from "./consumer-rules.ts";
import type { ConsumerStream } from "./consumer-stream.ts";

/** Findings listed per rule in its log (all are counted). */
const LOG_PER_RULE = 20;

export { CONSUMER_COMMAND_CHECK_ID };
export const CONSUMER_VIEW_CHECK_ID = "consumer/view";

/** How the consumer's command ended, as a client check records it. */
export type ConsumerCommand = Omit<ClientCommand, "variant">;

export interface ConsumerRunMeta {
  command: string;
  outcome: ConsumerCommand;
  stream: ConsumerStream;
  delivery: string;
  /** The command that runs the same stream again (seed, producer choice, delivery). */
  replay: string;
  startedAt: Date;
  finishedAt: Date;
  /** The view was judged; or why it could not be: not written, unreadable, empty. */
  view: { judgement: ConsumerJudgement } | { problem: string; nothingConsumed?: boolean };
  /** Messages the delivery handed over (acknowledged, written, piped). */
  delivered: number;
  requireExercised?: boolean;
  catalogue?: CatalogueView;
  runId?: string;
  /** The kit was stopped by this signal while the consumer ran (its group was stopped). */
  stoppedBy?: StopSignal;
}

function findingLine(finding: ConsumerFinding): string {
  const also = finding.evidence.alsoExplainedBy
    ? ` (also fits ${finding.evidence.alsoExplainedBy.join(", ")})`
    : "";
  return `${finding.where}: ${finding.message}${also}`;
}

/** A finding as the counterexample's value shows it (the shape reports have carried since the check began). */
function counterexampleValue(f: ConsumerFinding): string {
  const { expected, view, alsoExplainedBy } = f.evidence;
  return JSON.stringify({
    uri: f.where,
    expected,
    view,
    message: f.message,
    ...(alsoExplainedBy ? { alsoExplainedBy } : {}),
  });
}

function commandCheck(meta: ConsumerRunMeta): CheckResult {
  const failure = commandFailure(meta.outcome);
  const base = {
    id: CONSUMER_COMMAND_CHECK_ID,
    suite: "consumer",
    title: `your consumer exits 0: ${meta.command}`,
    level: "MUST" as const,
    requirements: [],
    safety: "read" as const,
    durationMs: Math.round(meta.outcome.durationMs),
    requests: 0,
  };
  if (failure === undefined) return { ...base, status: "passed" };
  const tail = (meta.outcome.outputTail ?? "").trimEnd();
  const lines = tail === "" ? [] : tail.split("\n");
  return {
    ...base,
    status: "failed",
    message: `${failure}: ${describeCommandOutcome(meta.outcome)}; ${lines.length === 0 ? "it printed nothing" : `the last lines of its output:\n${tail}`}`,
    details: { expected: "exit 0", actual: describeCommandOutcome(meta.outcome) },
    ...(lines.length === 0 ? {} : { log: lines }),
  };
}

/** An empty view of a stream without objectVersion, every message delivered: the likeliest cause named
 *  (the document: the header is present only when JMSEventsFilteringFields lists it). */
function unversioned(meta: ConsumerRunMeta): string {
  const { view, stream } = meta;
  if (!("problem" in view) || !view.nothingConsumed || stream.choice.objectVersion !== "absent") return "";
  if (meta.delivered === 0) return "";
  return `; none of the ${meta.delivered} message(s) delivered carried objectVersion (producer choice ${stream.choice.name}): the document says the header is present only when JMSEventsFilteringFields lists it, so a consumer takes messages without it (in arrival order) rather than dropping them`;
}

function viewCheck(meta: ConsumerRunMeta): CheckResult {
  const base = {
    id: CONSUMER_VIEW_CHECK_ID,
    suite: "consumer",
    title: "your consumer writes its view to LCKIT_VIEW_FILE, one line per object",
    level: "MUST" as const,
    requirements: [],
    safety: "read" as const,
    durationMs: 0,
    requests: 0,
  };
  if ("problem" in meta.view)
    return { ...base, status: "failed", message: meta.view.problem + unversioned(meta) };
  const j = meta.view.judgement;
  return { ...base, status: "passed", opportunities: j.judged };
}

const UNKNOWN_TYPES_RULE_ID = "consumer/unknown-types-and-fields-change-nothing";

/** A consumer that exits with an error, writes no view, and names the stream's first unlisted type in its
 *  output crashed on it: the unknown-types rule judges that (failed) rather than stay skipped for want of
 *  a view. Without the type in its output the cause is not known, and the rule stays skipped. */
function crashOnUnlisted(ruleId: string, meta: ConsumerRunMeta): string | undefined {
  const type = meta.stream.firstUnlistedType;
  const { outcome } = meta;
  if (ruleId !== UNKNOWN_TYPES_RULE_ID || type === undefined || !("problem" in meta.view)) return undefined;
  if (outcome.timedOut || outcome.exitCode === null || outcome.exitCode === 0) return undefined;
  if (!(outcome.outputTail ?? "").includes(type)) return undefined;
  const position = (meta.stream.firstUnlisted ?? 0) + 1;
  return `your consumer stopped (exit ${outcome.exitCode}) without a view, and its output names ${type}, the type of message #${position}, a type in neither of the document's lists: go on past a type you do not know (skip it), so the rest of the stream still reaches the view`;
}

export function consumerRunResult(meta: ConsumerRunMeta): RunResult {
  const catalogue = meta.catalogue ?? loadCatalogueView();
  const judgement = "judgement" in meta.view ? meta.view.judgement : undefined;
  const { stream } = meta;
  const ruleChecks = CONSUMER_RULES.map((rule): CheckResult => {
    const base = {
      id: rule.id,
      suite: "consumer",
      title: rule.title,
      level: rule.level,
      requirements: rule.requirements,
      safety: "read" as const,
      durationMs: 0,
      requests: 0,
    };
    const judged = judgement?.verdicts.find((v) => v.rule === rule);
    const crash = judged === undefined ? crashOnUnlisted(rule.id, meta) : undefined;
    if (crash !== undefined)
      return {
        ...base,
        status: "failed",
        opportunities: 1,
        message: crash,
        details: {
          expected: `the consumer goes on past ${String(stream.firstUnlistedType)} (a type in neither of the document's lists), its view of the rest unchanged`,
          actual: describeCommandOutcome(meta.outcome),
        },
      };
    if (!judged)
      return {
        ...base,
        status: "skipped",
        skipCause: "check",
        reason: "no view was judged: see consumer/view",
      };
    return ruleCheckResult(judged, {
      suite: "consumer",
      ...(meta.requireExercised ? { requireExercised: true } : {}),
      failed: (findings, opportunities) => {
        const first = findings[0] as ConsumerFinding;
        const { expected, view } = first.evidence;
        return {
          message: `${findings.length} of ${opportunities} object(s) (${rule.opportunity}) break the rule; first: ${findingLine(first)}`,
          details: {
            expected: `${first.where} as message #${expected.position} left it (${expected.eventType}, objectVersion ${expected.objectVersion})`,
            actual: `view line ${view.line}: removed ${view.removed}${view.objectVersion === undefined ? "" : `, objectVersion ${view.objectVersion}`}, attributes ${view.attributes}`,
            record: first.where,
          },
          counterexample: {
            seed: stream.seed,
            path: `producer choice ${stream.choice.name}`,
            value: counterexampleValue(first),
            replay: meta.replay,
          },
          log: findings.slice(0, LOG_PER_RULE).map(findingLine),
        };
      },
    });
  });
  const checks = [commandCheck(meta), viewCheck(meta), ...ruleChecks];
  const interruption = commandInterruption(meta.outcome, meta.finishedAt, meta.stoppedBy);
  const outcome = describeCommandOutcome(meta.outcome);
  const result = assembleRunResult({
    ...(meta.runId === undefined ? {} : { runId: meta.runId }),
    checks,
    catalogue,
    subject: {
      kind: "consumer",
      command: commandRun(meta.outcome),
      choice: stream.choice.name,
      delivery: meta.delivery,
      delivered: meta.delivered,
      messages: stream.messageCount,
      ...("problem" in meta.view && meta.view.nothingConsumed ? { nothingConsumed: true as const } : {}),
    },
    selection: { suites: ["consumer"], checks: [], level: "MAY", allow: ["read"] },
    seed: stream.seed,
    command: meta.command,
    startedAt: meta.startedAt,
    finishedAt: meta.finishedAt,
    // A consumer is sent messages, not requests: subject.delivered counts them.
    requestsSent: 0,
    ...(interruption ? { interruption } : {}),
    verdictReason: (reason) => {
      const sent = `${meta.delivered} of ${stream.messageCount} message(s) delivered (${meta.delivery}, producer choice ${stream.choice.name}, seed ${stream.seed})`;
      if (!judgement) return `${"problem" in meta.view ? meta.view.problem : ""}; ${sent}; ${outcome}`;
      const unjudged = [
        judgement.missing > 0
          ? `${judgement.missing} object(s) of the stream are not in the view and were not judged`
          : "",
        judgement.foreign > 0 ? `${judgement.foreign} view line(s) name objects the stream never had` : "",
      ].filter(Boolean);
      return [
        reason,
        `${judgement.judged} of ${judgement.objects} object(s) judged`,
        ...unjudged,
        sent,
        outcome,
      ].join("; ");
    },
  });
  return {
    ...result,
    coverage: notCheckableOnlyFor(result.coverage, catalogue.requirements, ["consumer"]),
  };
}
