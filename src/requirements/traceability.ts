// Every requirement of the catalogue is traced by a check or rule of some command of the kit, or says in
// the catalogue why nothing can check it (notCheckable); coverage reports rely on it.
import type { Catalogue } from "./catalogue.ts";

/** A command of the kit and the requirement ids its checks or rules trace to. */
export interface CommandTrace {
  command: string;
  requirements: readonly string[];
}

/** Readable problems: a live entry no command traces and not marked notCheckable, an entry marked
 *  notCheckable that a command traces after all, and a traced id the catalogue lacks. */
export function traceabilityProblems(catalogue: Catalogue, traces: readonly CommandTrace[]): string[] {
  const tracedBy = new Map<string, string[]>();
  for (const trace of traces)
    for (const id of trace.requirements) tracedBy.set(id, [...(tracedBy.get(id) ?? []), trace.command]);
  const problems: string[] = [];
  const known = new Set<string>();
  for (const entry of catalogue.requirements) {
    known.add(entry.id);
    if (entry.retired) continue;
    const commands = tracedBy.get(entry.id);
    if (!commands && entry.notCheckable === undefined)
      problems.push(
        `${entry.id} (${entry.level}) is traced by no check or rule of any command: add a check or rule that traces to it, or say why it cannot be checked under notCheckable in requirements/catalogue.yaml`,
      );
    if (commands && entry.notCheckable !== undefined)
      problems.push(
        `${entry.id} is marked notCheckable but ${commands.join(" and ")} traces it: remove notCheckable from requirements/catalogue.yaml`,
      );
  }
  for (const [id, commands] of tracedBy)
    if (!known.has(id))
      problems.push(`${commands.join(" and ")} traces ${id}, which requirements/catalogue.yaml lacks`);
  return problems;
}
