// The flags the judging commands (run, events check, client check, events consumer check) share, declared
// once so that they mean the same everywhere: what fails the job (--fail-on, --pass-inconclusive), read by
// the one exit policy of src/result/verdict.ts; and, for the checks that run the team's command, how many
// runs at once and each run's time limit.
import { unknownName } from "../did-you-mean.ts";
import { FAIL_ON_VALUES } from "../result/verdict.ts";
import { UsageError } from "../usage-error.ts";
import { option, repeatable, toggle } from "./argv.ts";
import { duration, integer, wordList } from "./flags.ts";

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

/** The flags of the checks that run the team's command (client check, events consumer check). */
export function parallelFlag(runsAtOnce: number) {
  return option("N", integer({ min: 1, max: 16, example: "2" }), "runs at once with --variants", {
    default: runsAtOnce,
    example: "2",
  });
}

export function commandTimeoutFlag(defaultMs: number) {
  return option(
    "DURATION",
    duration({ example: "2m", bareSeconds: true }),
    "time limit of each run of the command; its process group is stopped after it",
    { default: defaultMs, defaultText: `${defaultMs / 60_000}m`, example: "2m" },
  );
}

/**
 * The value of --variants: `all`, `all,-a,-b` (every choice but those: a team whose client speaks one
 * scroll-id encoding can still have a sweep that shows everything else green), or a comma list of names.
 * A misspelt name is refused with the nearest known one; `what` names the choices in messages.
 */
export function choiceList(raw: string, known: readonly string[], what: string, listedBy: string): string[] {
  const names = raw
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const wrong = (given: string, detail = "") =>
    new UsageError(
      `--variants expects all, all,-NAME,... or a comma list of ${what}: ${unknownName(what.replace(/s$/, ""), given, known, detail)} ${listedBy}`,
    );
  if (names.length === 0) throw wrong(raw);
  const [first, ...rest] = names;
  if (first === "all") {
    const left = rest.map((name) => {
      if (!name.startsWith("-")) throw wrong(name, " after all (leave one out with -NAME)");
      const bare = name.slice(1);
      if (!known.includes(bare)) throw wrong(bare);
      return bare;
    });
    const chosen = known.filter((name) => !left.includes(name));
    if (chosen.length === 0) throw new UsageError(`--variants ${raw} leaves no ${what} to run`);
    return chosen;
  }
  for (const name of names) if (!known.includes(name)) throw wrong(name);
  return names;
}
