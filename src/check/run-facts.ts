// What one check learns about the target and later checks of the run rely on (which tokens expire when, how
// the target switches multi-token support off, the scroll id encoding it takes): facts with a name, a type
// and a sentence, kept by the run and reached only through ctx.facts. A check names the facts it reads or
// writes (Check.facts), so its declaration says that it behaves differently inside a run than alone, and a
// read of a fact another check learned is said in its log.

/** A fact's identity and type; define each once, beside the code that learns it (defineFact). */
export interface Fact<T> {
  readonly name: string;
  /** What the fact says, for a person reading a check's declaration or log. */
  readonly about: string;
  /** Carries T for the type checker only; never set. */
  readonly type?: T;
}

export function defineFact<T>(name: string, about: string): Fact<T> {
  return { name, about };
}

/** The run's facts as one check sees them: only those its declaration names. */
export interface RunFacts {
  get<T>(fact: Fact<T>): T | undefined;
  set<T>(fact: Fact<T>, value: T): void;
}
