// What every service rule judged on traffic shares: the exchange as the judge reads it, the rule as the
// report shows it, the tokens the traffic saw issued, and the shape of a part of the service judge (one
// concept of the document each: roles, the token quota, reads after a delete task).
import type { Level } from "../check/index.ts";
import type { IssuedTokenSeen, TrafficExchange } from "../rules/caller/traffic.ts";

/** An exchange as the judge reads it: the caller rules' model, and what the recording could not keep. */
export interface ObservedExchange extends TrafficExchange {
  responseCut?: true;
  noAnswer?: true;
  /** The recording gave it no time: `at` is the time of the exchange before (the timeline counts it apart). */
  untimed?: true;
}

/** A service rule as the report shows it; the judging is the service judge's, one exchange at a time. */
export interface ServiceRule {
  id: string;
  title: string;
  level: Level;
  requirements: readonly string[];
  /** What one opportunity is, in the report's words. */
  opportunity: string;
  /** Why there was nothing to judge, when nothing was. */
  notExercised: string;
}

/** The tokens the traffic saw issued (owner, issue and expiry), as far as the judge still remembers them. */
export type TokenTable = (token: string) => IssuedTokenSeen | undefined;

/** A part of the service judge: its rules, and what it makes of each answered exchange of the interface,
 *  in traffic order. */
export interface ServiceRuleJudge {
  readonly rules: readonly ServiceRule[];
  see(x: ObservedExchange, tokens: TokenTable): void;
  /** An exchange of the interface never answered (what it did is not shown). */
  unanswered?(x: ObservedExchange): void;
  /** Exchanges were not judged here (a proxy's full judge queue), at time `at`: any of them may have been
   *  what this part follows (a grant, a configuration write, a page): what they could change is undecided. */
  gap?(at: number): void;
  /** What waits for later exchanges: at the end of the traffic, decided now; in a report of traffic that
   *  goes on (`interim`), left waiting and counted undecided (rule id to why to count). */
  waiting?(interim: boolean): ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** Why a moment a gap of exchanges not judged touched is undecided (the report's words). */
export const GAP_WHY = "exchanges not judged (the proxy's judge queue was full)";
