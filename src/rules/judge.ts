// The one judging engine of the kit's rules (caller, consumer and event rules alike): given the rules and
// a judge that says what each found in its opportunities, it decides each rule's verdict (passed, failed,
// not exercised, inconclusive: never a silent pass), puts whose it is on every finding (the rule's id and
// requirement, from its header), orders the findings, times each rule, and turns a verdict into the
// check result every report reads.
import type { Level } from "../check/check.ts";
import type { FailureDetail, Undecided } from "../check/outcome.ts";
import type { RuleDeclaration } from "../check/rule.ts";
import type { Safety } from "../check/safety.ts";
import type { CheckResult } from "../result/model.ts";
import { type Finding, type Found, findingOf } from "./finding.ts";

/** The input gave opportunities, but not enough to decide: what was seen and what decides (`reason`; an
 *  HTTP check also says it as data: the two readings the interface cannot tell apart, and the detail). */
export interface Inconclusive {
  status: "inconclusive";
  opportunities: number;
  reason: string;
  undecided?: Undecided;
  details?: FailureDetail;
}

/** What a rule's judge returns: how many opportunities the input gave it, and what it found in them. */
export type Outcome<E = undefined> =
  | { status: "passed"; opportunities: number; note?: string }
  | { status: "failed"; opportunities: number; found: Found<E>[] }
  /** The input gave the rule nothing to judge: said, with what would exercise it, never a pass. */
  | { status: "not-exercised"; reason: string }
  | Inconclusive;

/** A rule's verdict: its outcome with every finding made the rule's own. */
export type Verdict<E = undefined> =
  | { status: "passed"; opportunities: number; note?: string }
  | { status: "failed"; opportunities: number; findings: Finding<E>[] }
  | { status: "not-exercised"; reason: string }
  | Inconclusive;

/** A judged rule: the rule, its verdict and the milliseconds its judging took. */
export type Judged<R, E = undefined> = Verdict<E> & { rule: R; ms: number };

/**
 * The outcome of a rule from its opportunities and findings: no opportunity is "not exercised" (with
 * `notExercised`, what would exercise it), a finding fails it, otherwise it passed (with `note`, a remark
 * the report should show).
 */
export function outcomeOf<E>(
  opportunities: number,
  found: Found<E>[],
  notExercised: string,
  note?: string,
): Outcome<E> {
  if (opportunities === 0) return { status: "not-exercised", reason: notExercised };
  if (found.length > 0) return { status: "failed", opportunities, found };
  return note === undefined ? { status: "passed", opportunities } : { status: "passed", opportunities, note };
}

/** A rule's verdict from its judge's outcome: each finding stamped with the rule's id and requirement,
 *  ordered by `order` (stable: findings `order` ranks alike keep the judge's order). */
export function verdictOf<E>(
  rule: Pick<RuleDeclaration, "id" | "requirements">,
  outcome: Outcome<E>,
  order?: (a: Found<E>, b: Found<E>) => number,
): Verdict<E> {
  if (outcome.status !== "failed") return outcome;
  const found = order ? [...outcome.found].sort(order) : outcome.found;
  return {
    status: "failed",
    opportunities: outcome.opportunities,
    findings: found.map((f) => findingOf(rule, f)),
  };
}

export interface JudgeOptions<E> {
  /** Milliseconds of judging all rules share (a walk done once for every rule), spread evenly. */
  sharedMs?: number;
  /** The order of a rule's findings in its report: the plainest evidence first. */
  order?: (a: Found<E>, b: Found<E>) => number;
}

/** Judges every rule in its declared order, timing each. */
export function judgeRules<R extends Pick<RuleDeclaration, "id" | "requirements">, E>(
  rules: readonly R[],
  judge: (rule: R) => Outcome<E>,
  options: JudgeOptions<E> = {},
): Judged<R, E>[] {
  const shared = rules.length === 0 ? 0 : (options.sharedMs ?? 0) / rules.length;
  return rules.map((rule) => {
    const started = performance.now();
    const verdict = verdictOf(rule, judge(rule), options.order);
    return { ...verdict, rule, ms: performance.now() - started + shared };
  });
}

/** A judged rule as every report reads it (an HTTP check, a caller, consumer or event rule alike), `failed`
 *  adding what the kind shows of its findings. The requests of its result are its opportunities (an HTTP
 *  check's: the requests it sent); its safety class is the rule's, `read` for a rule that only reads what
 *  it judges. */
export function ruleCheckResult<E>(
  judged: Judged<RuleDeclaration & { level: Level; safety?: Safety }, E>,
  how: {
    suite: string;
    /** --fail-on not-exercised: a MUST rule with no opportunity fails the run. */
    requireExercised?: boolean;
    /** An HTTP check: what it judged is what it sent, so its opportunities are its requests. */
    opportunitiesAreRequests?: boolean;
    failed(findings: Finding<E>[], opportunities: number): Partial<CheckResult>;
  },
): CheckResult {
  const { rule } = judged;
  const base = {
    id: rule.id,
    suite: how.suite,
    title: rule.title,
    level: rule.level,
    requirements: [...rule.requirements],
    safety: rule.safety ?? "read",
    durationMs: Math.round(judged.ms),
    // A rule that judges what was observed sends nothing: what it judged is its opportunities.
    ...(how.opportunitiesAreRequests
      ? { requests: judged.status === "not-exercised" ? 0 : judged.opportunities }
      : {
          requests: 0,
          ...(judged.status === "not-exercised" ? {} : { opportunities: judged.opportunities }),
        }),
  };
  switch (judged.status) {
    case "not-exercised":
      return {
        ...base,
        status: "not-exercised",
        reason: judged.reason,
        ...(how.requireExercised && rule.level === "MUST" ? { exerciseRequired: true as const } : {}),
      };
    case "inconclusive":
      return {
        ...base,
        status: "inconclusive",
        reason: judged.reason,
        ...(judged.undecided === undefined ? {} : { undecided: copyOf(judged.undecided) }),
        ...(judged.details === undefined ? {} : { details: judged.details }),
      };
    case "passed":
      return { ...base, status: "passed", ...(judged.note === undefined ? {} : { message: judged.note }) };
    case "failed":
      return { ...base, status: "failed", ...how.failed(judged.findings, judged.opportunities) };
  }
}

/** The undecided readings as a result keeps them (a pair, not the check's readonly tuple). */
function copyOf(undecided: Undecided): NonNullable<CheckResult["undecided"]> {
  const { saw, readings, decideBy } = undecided;
  return { saw, readings: [readings[0], readings[1]], decideBy };
}

/** The findings of a verdict: those of a failed rule, none otherwise. */
export function verdictFindings<E>(verdict: Verdict<E> | undefined): Finding<E>[] {
  return verdict?.status === "failed" ? verdict.findings : [];
}
