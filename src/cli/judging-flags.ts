// The flags every judging command (run, events check, client check) shares, declared once so that they
// mean the same everywhere: what fails the job (--fail-on, --pass-inconclusive), read by the one exit policy
// of src/result/verdict.ts.
import { FAIL_ON_VALUES } from "../result/verdict.ts";
import { repeatable, toggle } from "./argv.ts";
import { wordList } from "./flags.ts";

export const failOnFlag = repeatable(
  "LIST",
  wordList(FAIL_ON_VALUES, { ignoreCase: true }),
  "outcomes that exit 1, comma-separated: must (always: a MUST rule failed), inconclusive (always, unless " +
    "--pass-inconclusive: a MUST rule ran and could not decide), incomplete (the verdict is INCOMPLETE: MUST " +
    "rules did not run or were not exercised), not-exercised (a MUST rule the traffic gave nothing to judge), " +
    "should (a SHOULD or MAY rule failed)",
  { defaultText: "must,inconclusive", example: "must,incomplete" },
);

export function passInconclusiveFlag(what: string) {
  return toggle(
    `${what} does not fail the job (it is still reported as undecided, and the verdict is still INCOMPLETE)`,
  );
}
