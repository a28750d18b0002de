// The access-token state table as a model in real time: where the target's clock cannot be driven, time is
// the wall clock's and passes during every request, and a target may round a token's life either way.
// Each token therefore carries a window for its expiry, from the kit's clock around the request that issued
// it: it expires no earlier than sent + validity - SKEW_MS and no later than received + validity + SKEW_MS,
// where validity is the accessTokenValidity the kit gave the client. The model asserts only what the windows
// decide: "active" when the request that uses or counts the token was answered before its earliest expiry,
// "expired" when it was sent after its latest; in between it accepts either outcome. Time passes in steps
// that expire every token the kit holds: until the latest expiry of their windows, no longer.
import fc from "fast-check";
import { explore } from "../../src/check/index.ts";
import { accessTokenOf, describeResponse } from "../../src/client/index.ts";
import { type CustomerMethod, DIMENSION } from "./quota-methods.ts";
import {
  expectSameToken,
  judgeTokenUse,
  modelEnsure,
  modelFail,
  type QuotaReal,
  refuseReissued,
  SKEW_MS,
  SwitchOff,
} from "./quota-model.ts";
import { quotaRecord, validityOf } from "./quota-tokens.ts";
import { judgeQuotaRefusal } from "./response-judges.ts";

export interface RealTimeModel {
  now: () => number;
  max: number;
  multiToken: boolean;
  /** accessTokenValidity of the quota client during the run (seconds). */
  validitySeconds: number;
  /** Steps of time passed so far: at most maxRealTimePasses per run, which bounds the run's length. */
  passes: number;
  tokens: { earliestExpiry: number; latestExpiry: number }[];
  /** When declined requests were sent: had one taken a slot, it would count at least until then +
   *  validity - SKEW_MS. */
  refusals: number[];
  /** Tokens returned since multi-token support went off (indexes into the run's tokens). */
  offReturned: number[];
}
export type RealTimeCommand = fc.AsyncCommand<RealTimeModel, QuotaReal>;

export const maxRealTimePasses = 2;

/** Tokens that surely count throughout [sent, received], and those that may count at some time in it. */
export function realTimeActive(m: Readonly<RealTimeModel>, sent: number, received: number) {
  return {
    surely: m.tokens.filter((t) => t.earliestExpiry > received).length,
    maybe: m.tokens.filter((t) => t.latestExpiry > sent).length,
  };
}

class RealTimeRequestToken implements RealTimeCommand {
  check = () => true;
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const sent = m.now();
    const response = await r.session.issue();
    const received = m.now();
    const { surely, maybe } = realTimeActive(m, sent, received);
    const token = accessTokenOf(response);
    const record = quotaRecord(r.session, `token #${r.tokens.length} of the run`);
    if (!m.multiToken) {
      const valid = m.tokens.flatMap((t, i) => (t.latestExpiry > sent ? [i] : []));
      // A token that is valid for certain must come again (or, where none came since support went off, one
      // new token: see expectSameToken); one at its expiry may come again or be replaced.
      if (surely > 0 || (token !== undefined && r.tokens.includes(token))) {
        const returned = m.offReturned.some((i) => (m.tokens[i]?.earliestExpiry ?? 0) > received);
        const got = expectSameToken(r, response, valid, `${surely > 0 ? surely : maybe} token(s)`, !returned);
        if (got !== "new") {
          m.offReturned.push(got);
          explore(r.session.ctx, DIMENSION.transition, "off: same token");
          return;
        }
      }
      if (!token)
        modelFail(
          r,
          `with multi-token support off and no token valid for certain, expected a token, got ${describeResponse(response)}`,
          "a token (multi-token support off)",
          response,
          { record },
        );
      this.add(m, r, token, sent, received, response);
      m.offReturned.push(r.tokens.length - 1);
      return;
    }
    if (!token) {
      if (maybe < m.max)
        modelFail(
          r,
          `with at most ${maybe} active tokens and maxActiveTokensAllowed=${m.max}, expected a new token, got ${describeResponse(response)}`,
          `a new token (at most ${maybe} active, maxActiveTokensAllowed=${m.max})`,
          response,
          { record },
        );
      modelEnsure(
        r,
        judgeQuotaRefusal(r.session.ctx.target.profile, response),
        `token request with ${surely === maybe ? surely : `${surely} to ${maybe}`} active tokens and maxActiveTokensAllowed=${m.max}`,
        response,
      );
      explore(r.session.ctx, DIMENSION.transition, "on: refused at limit");
      m.refusals.push(sent);
      return;
    }
    if (surely >= m.max)
      modelFail(
        r,
        `with ${surely} tokens active for certain and maxActiveTokensAllowed=${m.max}, expected a limit-exceeded refusal, but a token was issued: ${describeResponse(response)}`,
        `a limit-exceeded refusal (${surely} active for certain, maxActiveTokensAllowed=${m.max})`,
        response,
        { actual: `${response.status}, a token issued`, record },
      );
    this.add(m, r, token, sent, received, response);
    explore(r.session.ctx, DIMENSION.transition, "on: new token below limit");
    // Had the declined requests surely still in their validity taken slots, even counting every token that
    // may be active, this one would have been declined.
    const held = m.refusals.filter((at) => at + m.validitySeconds * 1000 - SKEW_MS > received).length;
    if (held > 0 && maybe + held >= m.max) explore(r.session.ctx, DIMENSION.refused, "not counted");
    // A token surely active at the last refusal and surely expired now: its expiry gave this slot.
    const last = m.refusals.at(-1);
    if (last !== undefined && m.tokens.some((t) => t.earliestExpiry > last && t.latestExpiry <= sent))
      explore(r.session.ctx, DIMENSION.transition, "expiry frees a slot");
  }
  private add(
    m: RealTimeModel,
    r: QuotaReal,
    token: string,
    sent: number,
    received: number,
    response: Parameters<typeof validityOf>[1],
  ) {
    refuseReissued(r, token, response, quotaRecord(r.session, `token #${r.tokens.length} of the run`));
    // Held to the validity the kit gave the client; the window counts that validity from the issue.
    validityOf(r.session, response);
    const validityMs = m.validitySeconds * 1000;
    m.tokens.push({
      earliestExpiry: sent + validityMs - SKEW_MS,
      latestExpiry: received + validityMs + SKEW_MS,
    });
    r.tokens.push(token);
  }
  toString = () => "requestToken";
}

class RealTimeUseToken implements RealTimeCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<RealTimeModel>) => m.tokens.length > 0;
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const index = this.pick % m.tokens.length;
    const window = m.tokens[index];
    const sent = m.now();
    const response = await r.session.use(r.tokens[index] ?? "");
    const received = m.now();
    if (!window) return;
    if (sent >= window.latestExpiry) judgeTokenUse(r, index, response, "expired");
    else if (received < window.earliestExpiry) judgeTokenUse(r, index, response, "active");
    else r.session.ctx.log.debug(`token #${index} used at its expiry: either outcome is accepted`);
  }
  toString = () => `useToken(${this.pick})`;
}

class RealTimeLetTimePass implements RealTimeCommand {
  check = (m: Readonly<RealTimeModel>) => m.passes < maxRealTimePasses;
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    // Every token surely expired is all a step of time can change: a step after a step, with no token
    // issued in between, waits nothing.
    const now = m.now();
    const until = Math.max(now, ...m.tokens.map((t) => t.latestExpiry));
    if (until > now) await r.session.pass((until - now) / 1000);
    m.passes++;
    if (m.tokens.length > 0) explore(r.session.ctx, DIMENSION.instant, "after expiry");
  }
  toString = () => "letTimePass(until every token has expired)";
}

/** A quota as a step writes it: a number, the tokens that may be active plus `above`, or the quota as it is
 *  (written again: off -> on with the quota of before). */
type QuotaSpec = number | { above: number } | "same";

class RealTimeChangeQuota implements RealTimeCommand {
  constructor(
    readonly spec: QuotaSpec,
    readonly method: CustomerMethod,
  ) {}
  private max(m: Readonly<RealTimeModel>, maybe: number): number {
    if (this.spec === "same") return m.max;
    return typeof this.spec === "number" ? this.spec : maybe + this.spec.above;
  }
  // As ChangeQuota: never below the tokens that may still be active (time only lowers that number).
  check = (m: Readonly<RealTimeModel>) => {
    const { maybe } = realTimeActive(m, m.now(), m.now());
    return maybe <= this.max(m, maybe);
  };
  async run(m: RealTimeModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const max = this.max(m, realTimeActive(m, m.now(), m.now()).maybe);
    await r.session.setQuota(max, this.method);
    const { ctx } = r.session;
    if (!m.multiToken) explore(ctx, DIMENSION.transition, "off → on");
    else if (max > m.max) explore(ctx, DIMENSION.transition, "quota raised");
    else if (max < m.max) explore(ctx, DIMENSION.transition, "quota lowered");
    explore(ctx, DIMENSION.quota, max);
    m.max = max;
    m.multiToken = true;
  }
  toString = () =>
    `changeQuota(${typeof this.spec === "object" ? `active + ${this.spec.above}` : this.spec} by ${this.method})`;
}

// Weighted towards token requests, so that the short runs reach their quota (of 1 to 3).
export const realTimeCommand = fc.oneof(
  { arbitrary: fc.constant(new RealTimeRequestToken()), weight: 4 },
  { arbitrary: fc.nat(50).map((pick) => new RealTimeUseToken(pick)), weight: 2 },
  { arbitrary: fc.constant(new RealTimeLetTimePass()), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom<CustomerMethod>("PUT", "POST"))
      .map(([max, method]) => new RealTimeChangeQuota(max, method)),
    weight: 1,
  },
  { arbitrary: fc.constant(new SwitchOff<RealTimeModel>()), weight: 1 },
);

/**
 * The transitions of the state table that need no wait, once each in an order that decides them, from
 * whatever tokens the runs before left (the quotas are relative to them): off and the same token again,
 * on by POST and new tokens to the limit, a refusal there, off again and the same token, on again by PUT
 * with the quota of before and a refusal (the quota applies again), a raise by POST and one more token.
 * At "deep" a step of time follows, every token expires, and the raised quota fills again.
 */
export function realTimeWalk(deep: boolean): RealTimeCommand[] {
  const request = () => new RealTimeRequestToken();
  const walk: RealTimeCommand[] = [
    new SwitchOff<RealTimeModel>(),
    request(),
    request(),
    new RealTimeChangeQuota({ above: 2 }, "POST"),
    request(),
    request(),
    request(),
    new SwitchOff<RealTimeModel>(),
    request(),
    new RealTimeChangeQuota("same", "PUT"),
    request(),
    new RealTimeChangeQuota({ above: 1 }, "POST"),
    request(),
    request(),
  ];
  if (!deep) return walk;
  // At "deep", a step of time refills the raised quota; then multi-token support off, every token expired
  // (the second step of the run), and a token request must get a new token, never an expired one again.
  return [
    ...walk,
    new RealTimeLetTimePass(),
    request(),
    request(),
    request(),
    request(),
    request(),
    new SwitchOff<RealTimeModel>(),
    new RealTimeLetTimePass(),
    request(),
  ];
}

export function realTimeModel(
  now: () => number,
  max: number,
  validitySeconds: number,
  tokens: RealTimeModel["tokens"],
): RealTimeModel {
  return { now, max, multiToken: true, validitySeconds, passes: 0, tokens, refusals: [], offReturned: [] };
}
