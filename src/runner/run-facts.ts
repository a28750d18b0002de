// The run's facts (src/check/run-facts.ts): one store per view of the target (the second quota lane, whose
// quota client and customer differ, has its own), each check reaching only the facts it declares.
import type { Check, Fact, RunFacts } from "../check/index.ts";

export class FactStore {
  private readonly values = new Map<string, { value: unknown; learnedBy: string }>();

  /** The facts `check` declares; reaching any other is a fault of the check's declaration, named. */
  viewFor(check: Check, log: (message: string) => void): RunFacts {
    const declared = new Set((check.facts ?? []).map((fact) => fact.name));
    const told = new Set<string>();
    const guard = (fact: Fact<unknown>, doing: string) => {
      if (!declared.has(fact.name))
        throw new Error(
          `${check.id} ${doing} the run fact "${fact.name}" (${fact.about}) without declaring it: add it to ` +
            "the check's facts, so that its declaration says it relies on what other checks learned",
        );
    };
    return {
      get: <T>(fact: Fact<T>): T | undefined => {
        guard(fact, "reads");
        const known = this.values.get(fact.name);
        if (known === undefined) return undefined;
        if (known.learnedBy !== check.id && !told.has(fact.name)) {
          told.add(fact.name);
          log(`run fact "${fact.name}" (${fact.about}) learned by ${known.learnedBy} earlier in this run`);
        }
        return known.value as T;
      },
      set: <T>(fact: Fact<T>, value: T): void => {
        guard(fact, "writes");
        this.values.set(fact.name, { value, learnedBy: check.id });
      },
    };
  }
}
