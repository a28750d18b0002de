// How a check ends other than by passing: a failure with its detail, a skip, or undecided.

/** A property failure, reported with everything needed to replay it. */
export interface Counterexample {
  seed: number;
  path: string;
  value: string;
  replay: string;
}

/** A failure as data, beside its sentence: what a reader (or a tool reading report.json) needs to see what
 *  went wrong without parsing the message. Every field is optional: a check gives what it knows. */
export interface FailureDetail {
  /** What the check required, in words ("each record once", "a 4xx status"). */
  expected?: string;
  /** What the target did instead (a status, an excerpt of a body, a count). */
  actual?: string;
  /** The request the failure is about: its method and its path with the query (no host: the report names
   *  the target once; the evidence holds the full exchange). */
  request?: { method: string; path: string };
  /** The record at fault: a lookup key, a task id, a client id. */
  record?: string;
  /** The field at fault, as a dotted path into the body or record ("items.3.value", "status"). */
  field?: string;
  /** For scans: the pages (counted from 1) the record at fault was seen on, e.g. a repeated record on the
   *  page it first came and the page it came again. */
  pages?: number[];
  /** Departures from the contract grouped by (status, JSON pointer with indexes as *): how often each
   *  came in the exchanges judged and one example, so a report shows one line per kind. */
  departures?: { status: number; pointer: string; count: number; example: string }[];
}

/** Thrown by a check when the target does not conform: a result, not a fault of the kit. */
export class CheckFailure extends Error {
  override name = "CheckFailure";
  constructor(
    message: string,
    readonly details: FailureDetail & { counterexample?: Counterexample } = {},
  ) {
    super(message);
  }
}

/** The structured detail of a failure as a report keeps it: only the fields the check gave (no empty
 *  object: a failure without detail reports as it always did). */
export function failureDetail(failure: CheckFailure): FailureDetail | undefined {
  const { counterexample: _, ...given } = failure.details;
  const kept = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as FailureDetail;
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** Where a request went, as a FailureDetail names it: the method and the path with its query. */
export function requestOf(method: string, url: string): { method: string; path: string } {
  try {
    const u = new URL(url);
    return { method: method.toUpperCase(), path: `${u.pathname}${u.search}` };
  } catch {
    return { method: method.toUpperCase(), path: url };
  }
}

/** Thrown by a check that cannot run against this target (missing capability); the reason is reported. */
export class CheckSkipped extends Error {
  override name = "CheckSkipped";
}

/** Fails the check with a sentence and, optionally, its structured detail (see FailureDetail). */
export function fail(message: string, details?: CheckFailure["details"]): never {
  throw new CheckFailure(message, details);
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

/** What a check that ran could not decide from the target's answers: what it saw, the readings of that
 *  which the interface cannot tell apart (one conforming, one not), and what lets it decide next time. */
export interface Undecided {
  saw: string;
  readings: readonly [conforming: string, failing: string];
  decideBy: string;
}

/** Thrown by a check that ran but could not decide: neither a pass nor a failure, and never a skip (a skip
 *  says the check was not allowed or not possible). An undecided MUST check fails the job by default. */
export class CheckInconclusive extends Error {
  override name = "CheckInconclusive";
  constructor(
    readonly undecided: Undecided,
    readonly details: FailureDetail = {},
  ) {
    super(
      `could not decide: ${undecided.saw}; either ${undecided.readings[0]} (conforming), or ` +
        `${undecided.readings[1]} (not conforming). To decide: ${undecided.decideBy}`,
    );
  }
}

export function inconclusive(undecided: Undecided, details?: FailureDetail): never {
  throw new CheckInconclusive(undecided, details);
}
