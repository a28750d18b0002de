// The caller rules of lckit client check, judged per client on an endless stream: each rule reads a
// client's traffic as a whole, so the client's exchanges are fed to it in windows. A window is judged with
// the end of the window before it as context (a scroll begun there, a token issued there); only what is new
// in the window counts: its opportunities are the window's less the context's alone, its findings those at
// exchanges after the context. What lies further back than the context (a token issued an hour and a
// window ago, a scroll paused for longer than a window) is the limit of this reading, said in the docs.
// Exchanges not judged (a proxy's full judge queue: gap()) may be this client's: a page, a token request.
// A finding at an exchange with such a gap between it and the client's exchange of the same scope (method
// and path; the token endpoint) before or after it is undecided, not counted: a dropped page makes a
// scroll look continued wrongly or left, a dropped token request a token unknown.

import { SCANS } from "../rules/caller/caller-rule.ts";
import type { CallerRule } from "../rules/caller/caller-rules.ts";
import { CALLER_RULES, type RuleVerdict } from "../rules/caller/caller-rules.ts";
import type { IssuedTokenSeen, Traffic } from "../rules/caller/traffic.ts";
import { GAP_WHY } from "./service-rule.ts";
import type { ObservedExchange } from "./service-rules.ts";
import { type Capture, Tally, type TrafficVerdict } from "./tally.ts";

export interface WindowLimits {
  /** New exchanges of a client judged at once. */
  window: number;
  /** Exchanges of the window before kept as context. */
  context: number;
  /** Tokens of a client kept (the most recent); the rules of tokens read these. */
  tokens: number;
  /** Pages kept in the context per scan (method and path) besides the last exchanges: a scroll paused
   *  longer than the context is still known when it is continued, or continued wrongly. */
  pagesPerScan: number;
  /** Scans whose pages are kept so (the most recent). */
  scans: number;
}

export const DEFAULT_WINDOW_LIMITS: WindowLimits = {
  window: 2_000,
  context: 500,
  tokens: 256,
  pagesPerScan: 8,
  scans: 32,
};

/** Scopes whose last exchange is remembered per client (for the gaps between them). */
const SCOPES_KEPT = 256;

/** A scan's scope (its pages chain within it), or the token endpoint's. */
const scopeOf = (x: ObservedExchange) =>
  x.operation === "issueToken"
    ? "token"
    : SCANS.has(x.operation ?? "")
      ? `${x.method} ${x.pathname}`
      : undefined;

const opportunitiesOf = (v: RuleVerdict) => (v.status === "not-exercised" ? 0 : v.opportunities);

/** Why a finding of a rule that looks ahead is not decided in the report of traffic still going on. */
const WAITING =
  "moments that wait for this client's next exchanges (the traffic goes on: a later report decides them)";

const GAPPED = `findings at exchanges next to ${GAP_WHY} in this client's traffic of the same scope (a page or token request of its may be among them)`;

/** An exchange with the gaps around it: exchanges not judged since the client's last one of its scope,
 *  or before the next. */
type Marked = ObservedExchange & { gapBefore?: true; gapAfter?: true };

/** Prefixes of a window a rule is judged on to place its opportunities in time, at most. */
const MAX_CUTS = 12;

/** Told when a client's rules judged what (the timeline). A rule counts a window's opportunities as a
 *  whole; they are placed by judging the window's prefixes at the edges of the buckets its exchanges fall
 *  in (at most MAX_CUTS per rule and window, by halving: see place()). */
export interface WindowWatch {
  /** The bucket of an exchange's time; undefined: it carried none. */
  bucketOf(x: ObservedExchange): number | undefined;
  opportunities(ruleId: string, n: number, at: ObservedExchange): void;
  finding(ruleId: string, at: ObservedExchange): void;
}

/** A stretch of a window's new exchanges in one bucket: where it ends in the buffer, and its last. */
interface Segment {
  end: number;
  last: ObservedExchange;
}

/** One client's caller rules: its exchanges since the last window, and a tally per rule. */
export class CallerWindows {
  private buffer: ObservedExchange[] = [];
  /** How many exchanges at the buffer's head are context (judged already). */
  private contextCount = 0;
  private tokens: IssuedTokenSeen[] = [];
  private readonly tallies = new Map<string, Tally>();
  /** Per rule that looks ahead: the last seq its findings were counted up to. */
  private readonly settled = new Map<string, number>();
  /** The window being judged, by seq: a finding's evidence is taken from there. */
  private judging = new Map<number, ObservedExchange>();
  /** Per scope (method and path, or the token endpoint): the client's last exchange there, and whether
   *  exchanges were not judged since. */
  private readonly lastOfScope = new Map<string, { x: Marked; gapSince: boolean }>();
  private gaps = 0;

  constructor(
    readonly clientId: string,
    evidenceOf: (x: ObservedExchange) => ReturnType<Capture>,
    private readonly limits: WindowLimits = DEFAULT_WINDOW_LIMITS,
    private readonly rules: readonly CallerRule[] = CALLER_RULES,
    private readonly watch?: WindowWatch,
  ) {
    const capture: Capture = (seq) => {
      const x = this.judging.get(seq);
      return x === undefined ? undefined : evidenceOf(x);
    };
    for (const rule of rules) {
      const finding = (seq: number) => {
        const x = this.judging.get(seq);
        if (x !== undefined) this.watch?.finding(rule.id, x);
      };
      this.tallies.set(rule.id, new Tally("", capture, { finding }));
    }
  }

  /** Exchanges held (context and new). */
  get retained(): number {
    return this.buffer.length;
  }

  add(x: ObservedExchange): void {
    const scope = x.operation === "issueToken" ? "token" : `${x.method} ${x.pathname}`;
    const last = this.lastOfScope.get(scope);
    // A first exchange of its scope after a gap may continue what the gap held.
    if (last === undefined ? this.gaps > 0 : last.gapSince) {
      (x as Marked).gapBefore = true;
      if (last !== undefined) last.x.gapAfter = true;
    }
    this.lastOfScope.delete(scope);
    this.lastOfScope.set(scope, { x, gapSince: false });
    if (this.lastOfScope.size > SCOPES_KEPT)
      this.lastOfScope.delete(this.lastOfScope.keys().next().value as string);
    this.buffer.push(x);
    if (this.buffer.length - this.contextCount >= this.limits.window) this.judge(false);
  }

  /** Exchanges not judged, of this client or another's: the last exchange of each scope has one after it. */
  gap(): void {
    this.gaps += 1;
    for (const last of this.lastOfScope.values()) {
      last.gapSince = true;
      last.x.gapAfter = true;
    }
  }

  addToken(token: IssuedTokenSeen): void {
    this.tokens.push(token);
    if (this.tokens.length > this.limits.tokens)
      this.tokens.splice(0, this.tokens.length - this.limits.tokens);
  }

  /** Judges what is new since the last window; keeps the end as context for the next. `final`: no more
   *  of this client's traffic follows, so what looks ahead is decided too. */
  judge(final: boolean): void {
    if (this.buffer.length === this.contextCount) return;
    const contextEnd =
      this.contextCount === 0 ? -1 : (this.buffer[this.contextCount - 1] as ObservedExchange).seq;
    // A rule that looks ahead (a scroll left: no later page) cannot decide at exchanges whose future is
    // the next window's: its findings there wait until that window, which holds them as context.
    const tailStart = this.buffer.length - this.limits.context;
    // `final` settles up to the last exchange held, not beyond: a client let go over the bound of active
    // clients may come back, and its later exchanges are judged as new.
    const settleEnd = final
      ? (this.buffer[this.buffer.length - 1] as ObservedExchange).seq
      : tailStart > 0
        ? (this.buffer[tailStart - 1] as ObservedExchange).seq
        : -1;
    const whole = this.trafficOf(this.buffer);
    const context =
      this.contextCount > 0 ? this.trafficOf(this.buffer.slice(0, this.contextCount)) : undefined;
    this.judging = new Map(this.buffer.map((x) => [x.seq, x]));
    const segments = this.watch ? this.segments() : [];
    for (const rule of this.rules) {
      const tally = this.tallies.get(rule.id) as Tally;
      const all = rule.judge(whole);
      if (all.status === "not-exercised") {
        if (tally.opportunities === 0) tally.notExercised = all.reason;
        continue;
      }
      const before = context ? opportunitiesOf(rule.judge(context)) : 0;
      const fresh = Math.max(0, all.opportunities - before);
      this.place(rule, fresh, before, segments);
      tally.opportunities += fresh;
      const from = rule.looksAhead ? (this.settled.get(rule.id) ?? -1) : contextEnd;
      const upTo = rule.looksAhead ? settleEnd : Number.POSITIVE_INFINITY;
      if (all.status === "failed")
        for (const f of all.found) {
          const at = this.judging.get(f.evidence.seq) as Marked | undefined;
          if (!(f.evidence.seq > from && f.evidence.seq <= upTo && at !== undefined)) continue;
          // Its opportunity, counted with the window's, is not decided either.
          if (at.gapBefore || at.gapAfter) tally.retract(GAPPED);
          else tally.violate(f.evidence.seq, f.message);
        }
      if (rule.looksAhead) this.settled.set(rule.id, Math.max(from, upTo));
    }
    this.judging = new Map();
    this.buffer = this.contextOf(this.buffer);
    this.contextCount = this.buffer.length;
    // Tokens that can matter to the context onwards: issued within it or still valid at its start.
    const from = this.buffer[0];
    if (from !== undefined)
      this.tokens = this.tokens.filter((t) => t.seq >= from.seq || t.expiresAt >= from.at);
  }

  /** The window's new exchanges cut where their bucket changes: one stretch per bucket. */
  private segments(): Segment[] {
    const watch = this.watch as WindowWatch;
    const all: Segment[] = [];
    let key: number | undefined | null = null;
    for (let i = this.contextCount; i < this.buffer.length; i++) {
      const x = this.buffer[i] as ObservedExchange;
      const k = watch.bucketOf(x);
      if (k === key && all.length > 0) (all[all.length - 1] as Segment).end = i + 1;
      else all.push({ end: i + 1, last: x });
      (all[all.length - 1] as Segment).last = x;
      key = k;
    }
    return all;
  }

  /** A rule's `fresh` opportunities of this window, placed stretch by stretch: each stretch gets what the
   *  window up to its end shows more than the stretches before. The edges are judged by halving, breadth
   *  first: a span whose two edges show the same count gained none inside it, so a few opportunities over
   *  many buckets are placed exactly; past MAX_CUTS judgings, a span's gain lands at its last stretch. */
  private place(rule: CallerRule, fresh: number, before: number, segments: readonly Segment[]): void {
    if (this.watch === undefined || fresh === 0) return;
    const last = segments.length - 1;
    // The count up to the end of stretch k, of this window's own (never more than the window's count).
    const known = new Map<number, number>([
      [-1, 0],
      [last, fresh],
    ]);
    const countAt = (k: number) => {
      const segment = segments[k] as Segment;
      const shown = opportunitiesOf(rule.judge(this.trafficOf(this.buffer.slice(0, segment.end)))) - before;
      known.set(k, Math.min(fresh, Math.max(0, shown)));
    };
    let spans: [number, number][] = [[-1, last]];
    let judgings = 0;
    while (spans.length > 0 && judgings < MAX_CUTS) {
      const next: [number, number][] = [];
      for (const [from, to] of spans) {
        if (to - from < 2 || known.get(from) === known.get(to)) continue;
        if (judgings >= MAX_CUTS) break;
        const mid = Math.floor((from + to) / 2);
        countAt(mid);
        judgings += 1;
        next.push([from, mid], [mid, to]);
      }
      spans = next;
    }
    let placed = 0;
    for (const k of [...known.keys()].filter((k) => k >= 0).sort((a, b) => a - b)) {
      const upTo = Math.max(placed, known.get(k) as number);
      this.watch.opportunities(rule.id, upTo - placed, (segments[k] as Segment).last);
      placed = upTo;
    }
  }

  /** What the next window is judged with: the last exchanges, and the last pages of the recent scans and
   *  token requests (a scroll and a token outlive a window), in traffic order. */
  private contextOf(buffer: readonly ObservedExchange[]): ObservedExchange[] {
    const keep = new Set(buffer.slice(Math.max(0, buffer.length - this.limits.context)));
    const perScope = new Map<string, number>();
    for (let i = buffer.length - 1; i >= 0; i--) {
      const x = buffer[i] as ObservedExchange;
      const scope = scopeOf(x);
      if (scope === undefined) continue;
      const n = perScope.get(scope) ?? 0;
      if (n === 0 && perScope.size >= this.limits.scans) continue;
      if (n >= this.limits.pagesPerScan) continue;
      perScope.set(scope, n + 1);
      keep.add(x);
    }
    return buffer.filter((x) => keep.has(x));
  }

  /** Judges what is pending and holds nothing more (a client idle while others are active). */
  release(): void {
    this.judge(true);
    this.buffer = [];
    this.contextCount = 0;
  }

  private trafficOf(exchanges: ObservedExchange[]): Traffic {
    const last = exchanges[exchanges.length - 1]?.seq ?? -1;
    return { exchanges, tokens: this.tokens.filter((t) => t.seq <= last), clients: new Map() };
  }

  /** Every rule's verdict so far (what is pending is judged first: a window may be shorter). `final`: no
   *  more traffic follows. Otherwise (a running proxy's report) the client's traffic goes on: a rule that
   *  looks ahead cannot decide its latest exchanges yet, so what it would find there is said undecided,
   *  neither counted nor passed, and decided by the traffic that follows. */
  verdicts(final = true): Map<string, TrafficVerdict> {
    this.judge(final);
    const waiting = final ? new Map<string, number>() : this.waiting();
    return new Map(
      [...this.tallies].map(([id, tally]) => {
        const n = waiting.get(id) ?? 0;
        return [id, tally.verdict(n > 0 ? new Map([[WAITING, n]]) : undefined)];
      }),
    );
  }

  /** Per rule that looks ahead: its findings in what is held that are not settled yet (they wait for the
   *  client's next exchanges, which may continue a scroll that now looks left). */
  private waiting(): Map<string, number> {
    const out = new Map<string, number>();
    if (this.buffer.length === 0) return out;
    const held = new Set(this.buffer.map((x) => x.seq));
    const traffic = this.trafficOf(this.buffer);
    for (const rule of this.rules) {
      if (!rule.looksAhead) continue;
      const verdict = rule.judge(traffic);
      if (verdict.status !== "failed") continue;
      const from = this.settled.get(rule.id) ?? -1;
      const n = verdict.found.filter((f) => f.evidence.seq > from && held.has(f.evidence.seq)).length;
      if (n > 0) out.set(rule.id, n);
    }
    return out;
  }
}
