// What an event check found, in the terms of the one exit policy (src/result/verdict.ts): a message with an
// error is a failure whatever the level of the rule it broke (the stream does not conform), a companion rule
// that could not decide is undecided, warnings are findings, and no message read is nothing judged.
import type { RunResult } from "../../result/model.ts";
import { type Findings, findingsOf } from "../../result/verdict.ts";
import type { EventCheckResult } from "./event-stream.ts";

export function streamFindings(
  result: Pick<EventCheckResult, "total" | "invalid" | "warnings" | "inconclusive">,
  run: Pick<RunResult, "verdict" | "checks">,
  options: { allowEmpty?: boolean } = {},
): Findings {
  const findings = findingsOf(run.verdict, run.checks);
  return {
    ...findings,
    mustFailed: result.invalid > 0,
    mustUndecided: result.inconclusive.length > 0,
    otherFailed: findings.otherFailed || result.warnings > 0,
    ...(result.total === 0 ? { nothingJudged: options.allowEmpty ? 0 : 2 } : {}),
  };
}
