// A judged recording as a run result (src/result's model), so a client check gets the same reports as a
// provider run: one check per caller rule, the client's exchanges at fault as redacted evidence.
import type { Exchange } from "../../check/index.ts";
import { Redactor } from "../../redaction/redact.ts";
import { assembleRunResult } from "../../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../../result/catalogue-view.ts";
import {
  COMMAND_CHECK_ID,
  clientFailureCauses,
  commandFailure,
  commandInterruption,
  commandRun,
  describeCommandOutcome,
} from "../../result/client-verdict.ts";
import { notCheckableOnlyFor } from "../../result/coverage.ts";
import type { CheckResult, RunResult, StopSignal } from "../../result/model.ts";
import { CALLER_RULES, type CallerEvidence, type CallerRule } from "../../rules/caller/caller-rules.ts";
import { SCANS_READ_UNDER_EVERY_CHOICE } from "../../rules/caller/sweep-difference.ts";
import type { Traffic, TrafficExchange } from "../../rules/caller/traffic.ts";
import { type Judged, judgeRules, ruleCheckResult } from "../../rules/judge.ts";
import type { CommandOutcome } from "../command-run.ts";

/** Exchanges kept as evidence per failed rule, and violations listed in its log. */
const EVIDENCE_PER_RULE = 5;
const LOG_PER_RULE = 20;
/** Bodies in evidence are cut to this many characters. */
const BODY_CHARS = 4096;

export interface ClientRunMeta {
  command: string;
  outcome: CommandOutcome;
  /** The provider choice the sandbox took (a variant name), or "default". */
  variant: string;
  startedAt: Date;
  finishedAt: Date;
  baseUrl: string;
  rdmUrl: string;
  tenant: string;
  /** Secrets to keep out of the report: the data's client credentials (the recorded tokens are added). */
  credentials: { clientId: string; clientSecret: string }[];
  dropped: number;
  catalogue?: CatalogueView;
  runId?: string;
  /** --fail-on not-exercised: a MUST rule with no opportunity fails the run. */
  requireExercised?: boolean;
  /** The kit was stopped by this signal while the command ran (the command's group was stopped). */
  stoppedBy?: StopSignal;
  /** Advice the recording gives (a 403 on a delete task: which client may delete, the flag to pick it):
   *  said after the headline and in the command's check. */
  hints?: string[];
  /** In a sweep whose default run's command passed: the provider choice this run took, the point the
   *  document leaves open that it pins, and whether the team requires it (--require-choice). */
  choice?: ChoiceUnderTest;
}

export interface ChoiceUnderTest {
  name: string;
  /** The point the document does not show, which the choice pins (VariantEntry.silentPoint). */
  silentPoint: string;
  description: string;
  required: boolean;
}

/** The requirement a command failing only under a legal provider choice traces to. */
export const CHOICE_REQUIREMENT = "CALLER-CHOICE-01";

/** The command's check as a sweep judges it under a choice: its header, for the rule lists that trace
 *  requirements (scripts/rules.ts). Its level per run is decided in commandCheck. */
export const COMMAND_UNDER_A_CHOICE = {
  id: COMMAND_CHECK_ID,
  title:
    "SHOULD exit 0 under every legal provider choice, as under the default (under a choice the team requires: MUST)",
  level: "SHOULD",
  requirements: [CHOICE_REQUIREMENT],
} as const;

/** A command that exited non-zero by itself under a choice, beside a default where it passed, and a choice
 *  the team does not require: the failure depends on a point the document leaves open (SHOULD). Hangs,
 *  kills and commands that cannot start stay what they are. */
export function failsOnlyUnderChoice(meta: Pick<ClientRunMeta, "outcome" | "choice">): boolean {
  const { outcome, choice } = meta;
  return (
    choice !== undefined &&
    !choice.required &&
    outcome.startError === undefined &&
    !outcome.timedOut &&
    outcome.signal === null &&
    outcome.exitCode !== 0
  );
}

function cut(text: string): { body: string; bodyTruncated?: true } {
  return text.length > BODY_CHARS ? { body: text.slice(0, BODY_CHARS), bodyTruncated: true } : { body: text };
}

function evidenceOf(x: TrafficExchange, redactor: Redactor): Exchange {
  const request = x.body === undefined ? undefined : cut(redactor.text(x.body));
  const response = cut(redactor.text(x.responseBody));
  return {
    id: x.seq,
    request: {
      method: x.method,
      url: redactor.text(x.url),
      headers: redactor.headers(x.headers),
      ...(request ? { body: request.body, ...(request.bodyTruncated ? { bodyTruncated: true } : {}) } : {}),
    },
    response: {
      status: x.status,
      headers: redactor.headers(x.responseHeaders),
      body: response.body,
      ...(response.bodyTruncated ? { bodyTruncated: true } : {}),
    },
    durationMs: Math.round(x.durationMs),
  };
}

/** Every exchange of the recording, bodies capped, redacted as the kit's evidence.har is: each distinct
 *  token and client secret a label of its own (redacted-token-1, redacted-secret-1; a bearer the sandbox
 *  never issued redacted-unissued-1), not one placeholder for all, so `lckit judge exchanges.ndjson`
 *  follows each token's life and client as the client check did, without a secret in the file. */
export function redactedExchanges(
  traffic: Traffic,
  meta: Pick<ClientRunMeta, "credentials">,
): (Exchange & { at: number })[] {
  // The sandbox issued every token the command held: a bearer it never issued is labelled so.
  const redactor = redactorFor(meta, traffic, new Redactor({ pseudonyms: true, issuedWithin: true }));
  // With the time each request came (the sandbox's clock), so the judge can follow expiries.
  return traffic.exchanges.map((x) => ({ at: x.at, ...evidenceOf(x, redactor) }));
}

/** Judges the traffic by every caller rule, through the one engine (src/rules/judge.ts). */
export function judgeTraffic(traffic: Traffic): Judged<CallerRule, CallerEvidence>[] {
  // In a sweep, a choice's run beside the default's is also judged by the rule of differences.
  const rules = traffic.baseline ? [...CALLER_RULES, SCANS_READ_UNDER_EVERY_CHOICE] : CALLER_RULES;
  return judgeRules(rules, (rule) => rule.judge(traffic));
}

/** The redactor of a client check: the data's client credentials and every token the recording saw. */
export function redactorFor(
  meta: Pick<ClientRunMeta, "credentials">,
  traffic: Traffic,
  redactor = new Redactor(),
): Redactor {
  for (const { clientId, clientSecret } of meta.credentials) redactor.addCredential(clientId, clientSecret);
  for (const token of traffic.tokens) redactor.addSecret(token.value);
  return redactor;
}

export function clientRunResult(traffic: Traffic, meta: ClientRunMeta): RunResult {
  const catalogue = meta.catalogue ?? loadCatalogueView();
  const redactor = redactorFor(meta, traffic);
  const bySeq = new Map(traffic.exchanges.map((x) => [x.seq, x]));
  const none = traffic.exchanges.length === 0;
  const ruleChecks = judgeTraffic(traffic).map((judged): CheckResult => {
    const { rule } = judged;
    if (none)
      return {
        ...ruleCheckResult(judged, { suite: "client", failed: () => ({}) }),
        status: "skipped",
        skipCause: "check",
        reason: "the command made no request to the sandbox",
        requests: 0,
      };
    return ruleCheckResult(judged, {
      suite: "client",
      ...(meta.requireExercised ? { requireExercised: true } : {}),
      failed: (findings, opportunities) => {
        const first = findings[0];
        const at = first === undefined ? undefined : bySeq.get(first.evidence.seq);
        const evidence = findings
          .slice(0, EVIDENCE_PER_RULE)
          .map((f) => bySeq.get(f.evidence.seq))
          .filter((x): x is TrafficExchange => x !== undefined)
          .map((x) => evidenceOf(x, redactor));
        return {
          message: redactor.text(
            `${findings.length} of ${opportunities} opportunit${opportunities === 1 ? "y" : "ies"} (${rule.opportunity}) broke the rule; first: ${first?.message ?? ""}`,
          ),
          ...(at
            ? {
                details: {
                  request: {
                    method: at.method,
                    path: redactor.text(new URL(at.url).pathname + new URL(at.url).search),
                  },
                  actual: redactor.text(first?.message ?? ""),
                },
              }
            : {}),
          evidence,
          exchangeIds: evidence.map((x) => x.id as number),
          log: findings.slice(0, LOG_PER_RULE).map((f) => redactor.text(`#${f.evidence.seq} ${f.message}`)),
        };
      },
    });
  });
  const command = commandCheck(meta, redactor, traffic.exchanges.length);
  const checks = [command, ...ruleChecks];
  const interruption = commandInterruption(meta.outcome, meta.finishedAt, meta.stoppedBy);
  const outcome = describeCommandOutcome(meta.outcome);
  // A command failing only under an unrequired choice is a SHOULD finding: no cause of a failed run.
  const onlyUnderChoice = failsOnlyUnderChoice(meta);
  const causes = clientFailureCauses(
    checks,
    onlyUnderChoice ? { ...meta.outcome, exitCode: 0 } : meta.outcome,
  );
  const ran = commandRun(meta.outcome, (text) => redactor.text(text));
  const result = assembleRunResult({
    ...(meta.runId === undefined ? {} : { runId: meta.runId }),
    checks,
    catalogue,
    subject: { kind: "caller", command: ran, choice: meta.variant },
    target: {
      name: `client: ${meta.command} (sandbox variant ${meta.variant})`,
      baseUrl: meta.baseUrl,
      rdmUrl: meta.rdmUrl,
      tenant: meta.tenant,
      loopback: true,
      roles: [],
    },
    selection: { suites: ["client"], checks: [], level: "MAY", allow: ["read"] },
    command: redactor.text(meta.command),
    startedAt: meta.startedAt,
    finishedAt: meta.finishedAt,
    requestsSent: traffic.exchanges.length,
    ...(interruption ? { interruption } : {}),
    verdictReason: (reason) => {
      // A command that never started made no request because of that: the start error is the headline.
      if (meta.outcome.startError !== undefined) return `${outcome}; nothing was judged`;
      if (none)
        return `the command made no request to the sandbox: nothing was judged (does it read LCKIT_BASE_URL, LCKIT_RDM_URL, LCKIT_CLIENT_ID and LCKIT_CLIENT_SECRET?); ${outcome}`;
      const recorded = `${traffic.exchanges.length} request(s) recorded${meta.dropped > 0 ? ` (${meta.dropped} more were not: over the recording's bound)` : ""}`;
      // The headline names what failed the run, in the team's words, before the counts.
      const hints = (meta.hints ?? []).map((h) => `; ${redactor.text(h)}`).join("");
      if (interruption !== undefined || causes.length === 0)
        return `${reason}; ${recorded}; ${onlyUnderChoice ? `${command.message?.split("\n")[0] ?? outcome}` : outcome}${hints}`;
      return `${causes.join("; ")}; ${recorded}${hints}`;
    },
  });
  return {
    ...result,
    coverage: notCheckableOnlyFor(result.coverage, catalogue.requirements, ["caller"]),
    client: { ...ran, variant: meta.variant },
  };
}

/** The team's command as a check of its own, so no report shows a failing command green: passed when it
 *  exited 0, failed (with how it ended and the tail of its output) otherwise. */
function commandCheck(meta: ClientRunMeta, redactor: Redactor, requests: number): CheckResult {
  const failure = commandFailure(meta.outcome);
  const { choice } = meta;
  const should = failsOnlyUnderChoice(meta);
  const base = {
    id: COMMAND_CHECK_ID,
    suite: "client",
    title:
      choice === undefined
        ? `your command exits 0: ${redactor.text(meta.command)}`
        : `your command exits 0 under the provider choice ${choice.name} as under the default (${choice.required ? "MUST: a required choice" : "SHOULD: the choice pins a point the document does not show"}): ${redactor.text(meta.command)}`,
    level: should ? ("SHOULD" as const) : ("MUST" as const),
    requirements: choice === undefined ? [] : [CHOICE_REQUIREMENT],
    safety: "read" as const,
    durationMs: Math.round(meta.outcome.durationMs),
    requests,
  };
  if (failure === undefined) return { ...base, status: "passed" };
  const tail = redactor.text(meta.outcome.outputTail ?? "").trimEnd();
  const lines = tail === "" ? [] : tail.split("\n");
  // Under a choice, the failure says which point it depends on and how a team pins it.
  const dependence =
    choice === undefined
      ? ""
      : should
        ? `; it breaks under ${choice.name} only (under the default it exited 0): ${choice.description}. The document does not show ${choice.silentPoint.replace(/: not shown$/, "")}, so a provider may choose this; a profile pins it (--require-choice ${choice.name} makes this a MUST failure)`
        : `; it breaks under ${choice.name} (under the default it exited 0), a choice you require (--require-choice): ${choice.description}`;
  return {
    ...base,
    status: "failed",
    message: `${failure}: ${describeCommandOutcome(meta.outcome)}${dependence}; ${lines.length === 0 ? "it printed nothing" : `the last ${lines.length === 1 ? "line" : `${lines.length} lines`} of its output:\n${tail}`}`,
    details: { expected: "exit 0", actual: describeCommandOutcome(meta.outcome) },
    ...(lines.length === 0 ? {} : { log: lines }),
  };
}
