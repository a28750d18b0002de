// ctrf.json: the run in the Common Test Report Format (CTRF, specVersion 0.0.0, the schema of the `ctrf`
// package), which many CI reporters read. One test per check, named by its id. As in junit.xml, only a
// failure that fails the job is "failed" (a MUST failure, a broken check): a failed SHOULD/MAY check or a
// waived failure is "other" with a WARNING/WAIVED message, so a CI view shows it without turning red. An
// undecided (inconclusive) MUST check fails the job by default, so it is "failed", its message saying it
// could not decide; an undecided SHOULD/MAY check is "other". rawStatus keeps the kit's own status.

import type { CheckResult, RunResult } from "../result/model.ts";
import { isWaived } from "../result/verdict.ts";
import { outcomeOf } from "./check-outcome.ts";
import { evidenceLocation } from "./citations.ts";
import { failureText } from "./junit.ts";
import { JUDGING_COMMAND, subjectName, targetOf } from "./outcome.ts";
import { retryLines } from "./retries.ts";

export const CTRF_FILE = "ctrf.json";
export const CTRF_SPEC_VERSION = "0.0.0";

export type CtrfStatus = "passed" | "failed" | "skipped" | "pending" | "other";

export interface CtrfTest {
  name: string;
  testId: string;
  status: CtrfStatus;
  duration: number;
  suite: string[];
  rawStatus: string;
  tags: string[];
  labels: Record<string, string | string[]>;
  type: string;
  message?: string;
  trace?: string;
  retries?: number;
  stdout?: string[];
  extra: Record<string, unknown>;
}

export interface CtrfReport {
  reportFormat: "CTRF";
  specVersion: typeof CTRF_SPEC_VERSION;
  runId: string;
  timestamp: string;
  generatedBy: string;
  results: {
    tool: { name: string; version: string };
    summary: {
      tests: number;
      passed: number;
      failed: number;
      skipped: number;
      pending: number;
      other: number;
      suites: number;
      start: number;
      stop: number;
      duration: number;
      extra: Record<string, unknown>;
    };
    tests: CtrfTest[];
    environment: {
      reportName: string;
      appName: string;
      testEnvironment?: string;
      extra: Record<string, unknown>;
    };
    extra: Record<string, unknown>;
  };
}

/** The CTRF status a check gets (what `lckit report verify` expects ctrf.json to show). */
export function ctrfStatusOf(check: CheckResult): CtrfStatus {
  switch (outcomeOf(check)) {
    case "passed":
      return "passed";
    case "failed":
      return "failed";
    case "not-run":
      return "skipped";
    default:
      return "other";
  }
}

export function buildCtrf(result: RunResult): CtrfReport {
  const tests = result.checks.map(ctrfTest);
  const count = (status: CtrfStatus) => tests.filter((t) => t.status === status).length;
  const start = Date.parse(result.startedAt);
  const stop = Date.parse(result.finishedAt);
  const target = targetOf(result);
  return {
    reportFormat: "CTRF",
    specVersion: CTRF_SPEC_VERSION,
    runId: result.runId,
    timestamp: result.finishedAt,
    generatedBy: `${result.kit.name} ${result.kit.version}`,
    results: {
      tool: { name: "lckit", version: result.kit.version },
      summary: {
        tests: tests.length,
        passed: count("passed"),
        failed: count("failed"),
        skipped: count("skipped"),
        pending: count("pending"),
        other: count("other"),
        suites: new Set(result.checks.map((c) => c.suite)).size,
        start,
        stop,
        duration: Math.max(0, Math.round(result.durationMs)),
        extra: {
          verdict: result.verdict,
          verdictReason: result.verdictReason,
          warnings: result.checks.filter((c) => outcomeOf(c) === "warned").map((c) => c.id),
        },
      },
      tests,
      environment: {
        reportName: `${JUDGING_COMMAND[result.subject.kind]} ${result.runId}: ${result.verdict}`,
        appName: subjectName(result),
        // An event stream or a consumer has no URLs: only what the run has is said.
        ...(target === undefined ? {} : { testEnvironment: target.baseUrl }),
        extra: target === undefined ? {} : { rdmUrl: target.rdmUrl, tenant: target.tenant },
      },
      extra: {
        verdict: result.verdict,
        verdictReason: result.verdictReason,
        seed: result.seed,
        runs: result.runs,
        command: result.command,
        catalogue: result.spec.catalogue,
        contract: { version: result.spec.contractVersion, sha256: result.spec.contract },
        ...(result.certification === undefined
          ? {}
          : {
              certification: {
                certified: result.certification.certified,
                reason: result.certification.reason,
              },
            }),
      },
    },
  };
}

export function renderCtrf(result: RunResult): string {
  return `${JSON.stringify(buildCtrf(result), null, 2)}\n`;
}

function ctrfTest(check: CheckResult): CtrfTest {
  const status = ctrfStatusOf(check);
  const about = `${check.title}\nlevel: ${check.level}; requirements: ${check.requirements.join(", ") || "none"}`;
  const retried = retryLines(check);
  const where = evidenceLocation(check);
  const message = messageOf(check);
  const trace =
    check.status === "failed"
      ? failureText(check, about)
      : check.status === "broken"
        ? [about, check.message ?? "", check.details?.stack ?? ""].join("\n")
        : undefined;
  return {
    name: check.id,
    testId: check.id,
    status,
    duration: Math.max(0, Math.round(check.durationMs)),
    suite: [check.suite],
    rawStatus: check.status,
    tags: [check.level, ...check.requirements],
    labels: {
      level: check.level,
      safety: check.safety,
      ...(check.requirements.length === 0 ? {} : { requirements: [...check.requirements] }),
    },
    type: "conformance",
    ...(message === undefined ? {} : { message }),
    ...(trace === undefined ? {} : { trace }),
    ...(retried.length === 0 ? {} : { retries: retried.length, stdout: retried }),
    extra: {
      title: check.title,
      requests: check.requests,
      ...(check.opportunities === undefined ? {} : { opportunities: check.opportunities }),
      ...(check.skipCause === undefined ? {} : { skipCause: check.skipCause }),
      ...(where === undefined ? {} : { evidence: where }),
      ...(check.counterexample === undefined ? {} : { replay: check.counterexample.replay }),
      ...(check.waiver === undefined ? {} : { waiver: check.waiver }),
    },
  };
}

/** What a CI view shows beside the status: why it failed, warned, was skipped or could not decide. */
function messageOf(check: CheckResult): string | undefined {
  const status: string = check.status;
  switch (status) {
    case "passed":
      return undefined;
    case "skipped":
      return check.reason;
    case "not-exercised":
      return `NOT EXERCISED: ${check.reason ?? ""}`;
    case "broken":
      return `BROKEN (a fault of the kit, not of the target): ${check.message ?? ""}`;
    case "failed":
      if (ctrfStatusOf(check) === "failed") return check.message;
      return isWaived(check)
        ? `WAIVED: ${check.level} check failed, a known failure of the baseline (${check.waiver?.reason}; ${check.waiver?.who}; until ${check.waiver?.expires}): ${check.message ?? ""}`
        : `WARNING: ${check.level} finding, not a failure (does not fail the run): ${check.message ?? ""}`;
    case "inconclusive":
      return `INCONCLUSIVE: the ${check.level} check ran but could not decide from the target's answers: ${check.message ?? check.reason ?? ""}`;
    default:
      return `${status.toUpperCase()}: ${check.message ?? check.reason ?? `a ${status} ${check.level} check`}`;
  }
}
