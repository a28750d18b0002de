// The requirements the catalogue marks not checkable, with the reason, as terminal lines: every command's
// summary says them beside its verdict, so "untested" is never read as "not yet written".
import type { Coverage } from "../result/model.ts";
import { terminalSafe } from "./escape.ts";

/** One line per untested requirement that no command of the kit can check, after a heading; none when there is none. */
export function notCheckableLines(coverage: Pick<Coverage, "requirements">): string[] {
  const entries = coverage.requirements.filter(
    (r) => r.status === "untested" && r.notCheckable !== undefined,
  );
  if (entries.length === 0) return [];
  return [
    `not checkable by any command of the kit (${entries.length}, untested in the coverage):`,
    ...entries.map(
      (r) =>
        `  ${r.id}${r.level === undefined ? "" : ` (${r.level})`}: ${terminalSafe((r.notCheckable ?? "").replace(/\s+/g, " "))}`,
    ),
  ];
}
