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
  const also = finding.alsoExplainedBy ? ` (also fits ${finding.alsoExplainedBy.join(", ")})` : "";
  return `${finding.uri}: ${finding.message}${also}`;
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
  return { ...base, status: "passed", requests: j.judged };
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
    const verdict = judgement?.verdicts.find((v) => v.rule === rule);
    if (!verdict)
      return {
        ...base,
        status: "skipped",
        skipCause: "check",
        reason: "no view was judged: see consumer/view",
      };
    const timed = { ...base, durationMs: Math.round(verdict.ms), requests: verdict.opportunities };
    if (verdict.status === "not-exercised")
      return {
        ...timed,
        status: "not-exercised",
        reason: verdict.reason ?? "",
        ...(meta.requireExercised && rule.level === "MUST" ? { exerciseRequired: true as const } : {}),
      };
    if (verdict.status === "passed")
      return { ...timed, status: "passed", ...(verdict.note ? { message: verdict.note } : {}) };
    const first = verdict.findings[0] as ConsumerFinding;
    return {
      ...timed,
      status: "failed",
      message: `${verdict.findings.length} of ${verdict.opportunities} object(s) (${rule.opportunity}) break the rule; first: ${findingLine(first)}`,
      details: {
        expected: `${first.uri} as message #${first.expected.position} left it (${first.expected.eventType}, objectVersion ${first.expected.objectVersion})`,
        actual: `view line ${first.view.line}: removed ${first.view.removed}${first.view.objectVersion === undefined ? "" : `, objectVersion ${first.view.objectVersion}`}, attributes ${first.view.attributes}`,
        record: first.uri,
      },
      counterexample: {
        seed: stream.seed,
        path: `producer choice ${stream.choice.name}`,
        value: JSON.stringify(first),
        replay: meta.replay,
      },
      log: verdict.findings.slice(0, LOG_PER_RULE).map(findingLine),
    };
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
    runs: 1,
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
