// What a check's status means to the ecosystem's formats (ctrf.json and the in-toto test result), in one
// place so they agree with junit.xml: only a failure that fails the job is "failed"; a SHOULD/MAY failure
// or a waived one is a warning (it ran, it is shown, it does not turn a CI view red); an undecided MUST
// check fails like a failure; a skipped check did not run.
import type { CheckResult } from "../result/model.ts";
import { isFailure } from "./junit.ts";

export type CheckOutcome = "passed" | "warned" | "failed" | "not-run";

export function outcomeOf(check: CheckResult): CheckOutcome {
  switch (check.status) {
    case "passed":
      return "passed";
    case "skipped":
      return "not-run";
    case "not-exercised":
      // A caller rule with nothing to judge did not run, unless the run requires it exercised.
      return isFailure(check) ? "failed" : "not-run";
    case "broken":
      return "failed";
    case "failed":
      return isFailure(check) ? "failed" : "warned";
    case "inconclusive":
      // An undecided MUST check fails the job by default (as in junit.xml); a SHOULD/MAY one warns.
      return isFailure(check) ? "failed" : "warned";
    default:
      // A status this version does not know of (e.g. inconclusive): shown, never a silent pass.
      return "warned";
  }
}
