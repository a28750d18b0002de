// What a rule keeps while traffic streams past: counts, and only the first few findings with their
// evidence captured at the moment (the exchange itself is dropped once judged). A day of traffic with a
// million violations of one rule costs this rule a count, not a million exchanges.
import type { Exchange } from "../check/index.ts";

/** Findings kept per rule with their evidence; past it they are counted (the report cites a few). */
export const EVIDENCE_PER_RULE = 5;
/** Findings kept per rule as log lines (seq and message). */
export const FINDINGS_PER_RULE = 20;

export interface Finding {
  seq: number;
  message: string;
  /** The exchange at fault as recorded (bodies cut), unredacted: the report redacts it at the end. */
  evidence?: Exchange;
  /** Secrets the exchange carried (its token, the token it was issued, a client secret): the report's
   *  redactor learns them, whatever else it has forgotten by then. */
  secrets?: readonly string[];
}

/** A rule's verdict on the traffic: judged opportunities, findings, and what it could not decide. */
export interface TrafficVerdict {
  opportunities: number;
  /** The first FINDINGS_PER_RULE findings, in traffic order. */
  violations: Finding[];
  /** Every finding, kept or not. */
  violationCount: number;
  /** Moments the rule met but could not decide, with why (counted, said, never passed). */
  undecided: { count: number; why: string };
  /** Why there was nothing to judge (used when opportunities and undecided are both 0). */
  notExercised: string;
}

export type Capture = (seq: number) => { evidence: Exchange; secrets: readonly string[] } | undefined;

/** Told of each opportunity and finding as the rule counts it (the timeline places them in time). */
export interface TallyWatch {
  opportunities?: (n: number) => void;
  finding?: (seq: number) => void;
}

export class Tally {
  private judged = 0;
  violationCount = 0;
  readonly violations: Finding[] = [];
  private readonly undecided = new Map<string, number>();

  constructor(
    public notExercised: string,
    private readonly capture: Capture,
    private readonly watch: TallyWatch = {},
  ) {}

  get opportunities(): number {
    return this.judged;
  }

  /** Rules count with `+=`: what is added is told to the watch. */
  set opportunities(n: number) {
    if (n > this.judged) this.watch.opportunities?.(n - this.judged);
    this.judged = n;
  }

  /** Whether a finding now would keep its evidence (so a rule that decides later captures it now). */
  get wantsEvidence(): boolean {
    return this.violations.filter((v) => v.evidence !== undefined).length < EVIDENCE_PER_RULE;
  }

  /** A finding at the exchange `seq` (the one being judged), or one whose evidence was captured earlier. */
  violate(seq: number, message: string, captured?: Pick<Finding, "evidence" | "secrets">): void {
    this.violationCount += 1;
    this.watch.finding?.(seq);
    if (this.violations.length >= FINDINGS_PER_RULE) return;
    const kept = captured ?? (this.wantsEvidence ? this.capture(seq) : undefined);
    this.violations.push({ seq, message, ...(kept ?? {}) });
  }

  /** The capture function, for a rule that holds a finding until its scroll ends. */
  evidenceOf(seq: number): Pick<Finding, "evidence" | "secrets"> | undefined {
    return this.capture(seq) ?? undefined;
  }

  /** An opportunity counted as judged that a later gap (exchanges not judged) left undecided: taken back
   *  from the count (the timeline keeps it where it was placed) and said undecided with why. */
  retract(why: string): void {
    this.judged = Math.max(0, this.judged - 1);
    this.undecide(why);
  }

  /** A retracted opportunity decided after all (a finding the gap cannot have made). */
  restore(why: string): void {
    const n = this.undecided.get(why) ?? 0;
    if (n <= 1) this.undecided.delete(why);
    else this.undecided.set(why, n - 1);
    this.judged += 1;
  }

  undecide(why: string, count = 1): void {
    if (count > 0) this.undecided.set(why, (this.undecided.get(why) ?? 0) + count);
  }

  /** The verdict so far, plus moments still open that `pending` would leave undecided now. */
  verdict(pending?: ReadonlyMap<string, number>): TrafficVerdict {
    const undecided = new Map(this.undecided);
    for (const [why, n] of pending ?? []) undecided.set(why, (undecided.get(why) ?? 0) + n);
    const count = [...undecided.values()].reduce((a, b) => a + b, 0);
    const why =
      undecided.size <= 1
        ? ([...undecided.keys()][0] ?? "")
        : [...undecided].map(([w, n]) => `${n} ${w}`).join(", ");
    return {
      opportunities: this.opportunities,
      violations: [...this.violations],
      violationCount: this.violationCount,
      undecided: {
        count,
        why: undecided.size <= 1 ? why : `moments the traffic could not decide (${why})`,
      },
      notExercised: this.notExercised,
    };
  }
}
