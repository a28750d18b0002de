// The access-token state table as a model the kit runs command sequences against, where it drives the
// target's clock: token requests with multi-token support off and on, uses, time passing (to just before or
// just after an expiry), quota changes by PUT and by POST, switching multi-token support off and on again.
// What the real-time model shares with it (the trail of steps, failing a step) lives here too.
import fc from "fast-check";
import { explore, type FailureDetail, fail } from "../../src/check/index.ts";
import {
  type ApiResponse,
  accessTokenOf,
  describeResponse,
  type TokenResponse,
} from "../../src/client/index.ts";
import { answerDetail, expectedIn } from "./answer-detail.ts";
import { type CustomerMethod, DIMENSION } from "./quota-methods.ts";
import type { QuotaSession } from "./quota-session.ts";
import { quotaRecord, validityOf } from "./quota-tokens.ts";
import { judgeExpiredRefusal, judgeQuotaRefusal, judgeSuccess } from "./response-judges.ts";
import { VALIDITY_SKEW_MS } from "./token-lifetime.ts";

/** The rounding the model allows a token's life either way (see VALIDITY_SKEW_MS). */
export const SKEW_MS = VALIDITY_SKEW_MS;

export interface QuotaReal {
  session: QuotaSession;
  tokens: string[];
  /** The steps of this run so far, the one running last: a failure's detail shows where the target and
   *  the model parted. */
  steps: string[];
}

/** Longest trail of steps a failure's detail spells out; earlier steps are counted, not listed. */
const TRAIL_STEPS = 12;

/** The run's steps, compact: repeats of a step folded ("requestToken x3"), the last TRAIL_STEPS kept. */
function stepTrail(steps: readonly string[]): string {
  const folded: string[] = [];
  let count = 0;
  for (const [i, step] of steps.entries()) {
    count++;
    if (steps[i + 1] === step) continue;
    folded.push(count > 1 ? `${step} x${count}` : step);
    count = 0;
  }
  const kept = folded.slice(-TRAIL_STEPS);
  const earlier = folded.length - kept.length;
  return `${earlier > 0 ? `(${earlier} earlier) ` : ""}${kept.join(" -> ")}`;
}

/** A failure of the model run, with the trail of steps that led to it: `expected` is what the model
 *  predicted at the last step, `actual` what the target answered there. */
export function modelFail(
  r: QuotaReal,
  message: string,
  predicted: string,
  response?: ApiResponse<unknown>,
  detail: FailureDetail = {},
): never {
  const answer = response ? answerDetail(response, detail) : detail;
  fail(message, {
    ...answer,
    expected: `after ${stepTrail(r.steps)}: ${predicted}`,
    ...(answer.actual !== undefined ? { actual: `after ${stepTrail(r.steps)}: ${answer.actual}` } : {}),
    record: answer.record ?? quotaRecord(r.session),
  });
}

/** As ensure(), for a step of the model run: the same sentence, the trail of steps as its detail. */
export function modelEnsure(
  r: QuotaReal,
  problem: string | undefined,
  context: string | undefined,
  response: ApiResponse<unknown>,
  record?: string,
): void {
  if (problem === undefined) return;
  const predicted = expectedIn(problem) ?? "an answer as the state table says";
  modelFail(r, context ? `${context}: ${problem}` : problem, predicted, response, record ? { record } : {});
}

/**
 * With multi-token support off, a granted answer must carry a token the client holds and that may still be
 * valid (`candidates`, indexes into the run's tokens): "the same token is returned again". Which of several
 * (tokens issued while multi-token support was on) is not shown: any of them is accepted, and so is one new
 * token where none was returned yet since support went off (`allowNew`): "the same token" may mean the one
 * the client gets with support off. Returns the index of the token returned, or "new".
 */
export function expectSameToken(
  r: QuotaReal,
  response: ApiResponse<TokenResponse>,
  candidates: readonly number[],
  active: string,
  allowNew: boolean,
): number | "new" {
  const token = accessTokenOf(response);
  const index = token === undefined ? -1 : r.tokens.indexOf(token);
  if (index >= 0 && candidates.includes(index)) return index;
  if (allowNew && token !== undefined && index < 0) return "new";
  const record = quotaRecord(r.session, `token #${r.tokens.length} of the run`);
  modelFail(
    r,
    `with multi-token support off and ${active} still valid, expected the token request to return that ` +
      `token again, got ${token === undefined ? describeResponse(response) : index >= 0 ? "an expired token" : "a newly issued token"}`,
    `the same token again (multi-token support off, ${active} still valid)`,
    response,
    {
      ...(token === undefined ? {} : { actual: `${response.status}, a token not returned before` }),
      record,
    },
  );
}

/** A token request answered with a token of the run again: each granted request gets a new one. */
export function refuseReissued(
  r: QuotaReal,
  token: string,
  response: ApiResponse<TokenResponse>,
  record: FailureDetail["record"],
): void {
  if (r.tokens.includes(token))
    modelFail(r, "expected a newly issued token, got one issued before", "a newly issued token", response, {
      actual: `${response.status}, token #${r.tokens.indexOf(token)} of the run again`,
      record,
    });
}

/** A token of the run used, judged by what the model knows of it: refused as expired, or accepted. */
export function judgeTokenUse(
  r: QuotaReal,
  index: number,
  response: ApiResponse<unknown>,
  known: "expired" | "active",
): void {
  const record = quotaRecord(r.session, `token #${index} of the run`);
  if (known === "expired")
    modelEnsure(
      r,
      judgeExpiredRefusal(r.session.ctx.target.profile, response),
      `use of expired token #${index}`,
      response,
      record,
    );
  else modelEnsure(r, judgeSuccess(response, `use of active token #${index}`), undefined, response, record);
}

// ---------------------------------------------------------------- the model on a driven clock
export interface QuotaModel {
  now: number;
  max: number;
  multiToken: boolean;
  /** accessTokenValidity of the quota client (ms): a new token's life from its issue. */
  validityMs: number;
  tokens: { expiresAt: number }[];
  /** When requests were declined: had one taken a slot, it would count until then + validityMs. */
  refusals: number[];
  /** A step of time just landed past an expiry: the next granted request is a re-issue. */
  pastExpiry: boolean;
  /** Tokens returned since multi-token support went off (indexes into the run's tokens). */
  offReturned: number[];
}
export type QuotaCommand = fc.AsyncCommand<QuotaModel, QuotaReal>;

const activeCount = (m: Readonly<QuotaModel>, at = m.now) => m.tokens.filter((t) => t.expiresAt > at).length;

class RequestToken implements QuotaCommand {
  check = () => true;
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const active = activeCount(m);
    const response = await r.session.issue();
    const record = quotaRecord(r.session, `token #${r.tokens.length} of the run`);
    const pastExpiry = m.pastExpiry;
    m.pastExpiry = false;
    if (!m.multiToken && active > 0) {
      const valid = m.tokens.flatMap((t, i) => (t.expiresAt > m.now ? [i] : []));
      const returned = m.offReturned.some((i) => (m.tokens[i]?.expiresAt ?? 0) > m.now);
      const got = expectSameToken(r, response, valid, `${active} token${active > 1 ? "s" : ""}`, !returned);
      if (got !== "new") {
        m.offReturned.push(got);
        explore(r.session.ctx, DIMENSION.transition, "off: same token");
        return;
      }
    }
    if (!m.multiToken || active < m.max) {
      const token = accessTokenOf(response);
      const state = m.multiToken
        ? `${active} active tokens and maxActiveTokensAllowed=${m.max}`
        : "multi-token support off and no token valid";
      if (!token)
        modelFail(
          r,
          `with ${state}, expected a new token, got ${describeResponse(response)}`,
          `a new token (${state})`,
          response,
          {
            record,
          },
        );
      refuseReissued(r, token, response, record);
      // Held to the validity the kit gave the client; the model counts it from now (its issue time).
      validityOf(r.session, response);
      m.tokens.push({ expiresAt: m.now + m.validityMs });
      r.tokens.push(token);
      if (m.multiToken) this.noteGranted(m, r, active, pastExpiry);
      else {
        m.offReturned.push(r.tokens.length - 1);
        // Every token of the run expired: a new one, never an expired one again.
        if (m.tokens.length > 1) explore(r.session.ctx, DIMENSION.transition, "off: every token expired");
      }
      return;
    }
    modelEnsure(
      r,
      judgeQuotaRefusal(r.session.ctx.target.profile, response),
      `token request with ${active} active tokens and maxActiveTokensAllowed=${m.max}`,
      response,
    );
    m.refusals.push(m.now);
    explore(r.session.ctx, DIMENSION.transition, "on: refused at limit");
  }
  /** What a granted request under multi-token support showed beyond the grant itself. */
  private noteGranted(m: QuotaModel, r: QuotaReal, active: number, pastExpiry: boolean) {
    const { ctx } = r.session;
    explore(ctx, DIMENSION.transition, "on: new token below limit");
    if (pastExpiry) explore(ctx, DIMENSION.instant, "at re-issue");
    const lastRefusal = m.refusals.at(-1);
    // A token expired since the last refusal at the limit, and this request got its slot.
    if (lastRefusal !== undefined && m.tokens.some((t) => t.expiresAt > lastRefusal && t.expiresAt <= m.now))
      explore(ctx, DIMENSION.transition, "expiry frees a slot");
    // Had the declined requests still in their validity taken slots, this one would have been declined.
    const held = m.refusals.filter((at) => at + m.validityMs > m.now).length;
    if (held > 0 && active + held >= m.max) explore(ctx, DIMENSION.refused, "not counted");
  }
  toString = () => "requestToken";
}

class UseToken implements QuotaCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<QuotaModel>) => m.tokens.length > 0;
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const index = this.pick % m.tokens.length;
    const expired = (m.tokens[index]?.expiresAt ?? 0) <= m.now;
    judgeTokenUse(r, index, await r.session.use(r.tokens[index] ?? ""), expired ? "expired" : "active");
  }
  toString = () => `useToken(${this.pick})`;
}

class LetTimePass implements QuotaCommand {
  constructor(readonly percentOfValidity: number) {}
  private delta(m: Readonly<QuotaModel>) {
    return Math.round((m.validityMs * this.percentOfValidity) / 100);
  }
  // Never land within 2 s of an expiry: rounding must not decide the outcome (PassToInstant lands nearer).
  check = (m: Readonly<QuotaModel>) =>
    m.tokens.every((t) => Math.abs(t.expiresAt - (m.now + this.delta(m))) > 2000);
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const delta = this.delta(m);
    await r.session.pass(delta / 1000);
    m.pastExpiry = m.tokens.some((t) => t.expiresAt > m.now && t.expiresAt <= m.now + delta);
    m.now += delta;
  }
  toString = () => `letTimePass(${this.percentOfValidity}% of validity)`;
}

/** Time passes to just before (just ahead of the rounding allowance) or just after (just past it) the
 *  expiry of one of the tokens still to expire: the `pick`th, earliest first. */
class PassToInstant implements QuotaCommand {
  constructor(
    readonly instant: "before" | "after",
    readonly pick: number,
  ) {}
  private landing(m: Readonly<QuotaModel>): number | undefined {
    const offset = this.instant === "before" ? -(SKEW_MS + 1) : SKEW_MS + 1;
    const ahead = m.tokens
      .map((t) => t.expiresAt + offset)
      .filter((at) => at > m.now)
      .sort((a, b) => a - b);
    return ahead.length === 0 ? undefined : ahead[this.pick % ahead.length];
  }
  // Every other token decided at the landing too: none expires within the rounding allowance of it.
  check = (m: Readonly<QuotaModel>) => {
    const at = this.landing(m);
    return at !== undefined && m.tokens.every((t) => Math.abs(t.expiresAt - at) > SKEW_MS);
  };
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    const at = this.landing(m) ?? m.now;
    await r.session.pass((at - m.now) / 1000);
    m.pastExpiry = this.instant === "after";
    m.now = at;
    explore(r.session.ctx, DIMENSION.instant, `${this.instant} expiry`);
  }
  toString = () => `passTo(just ${this.instant} expiry ${this.pick})`;
}

class ChangeQuota implements QuotaCommand {
  constructor(
    readonly max: number,
    readonly method: CustomerMethod,
  ) {}
  // Lowering below the active count would leave open whether tokens are revoked: the document is silent.
  check = (m: Readonly<QuotaModel>) => activeCount(m) <= this.max;
  async run(m: QuotaModel, r: QuotaReal) {
    r.steps.push(this.toString());
    await r.session.setQuota(this.max, this.method);
    const { ctx } = r.session;
    if (!m.multiToken) explore(ctx, DIMENSION.transition, "off → on");
    else if (this.max > m.max) explore(ctx, DIMENSION.transition, "quota raised");
    else if (this.max < m.max) explore(ctx, DIMENSION.transition, "quota lowered");
    explore(ctx, DIMENSION.quota, this.max);
    m.max = this.max;
    m.multiToken = true;
  }
  toString = () => `changeQuota(${this.max} by ${this.method})`;
}

/** Multi-token support switched off: the same step in the model on a driven clock and in real time. */
export class SwitchOff<M extends { multiToken: boolean; offReturned: number[] } = QuotaModel>
  implements fc.AsyncCommand<M, QuotaReal>
{
  check = (m: Readonly<M>) => m.multiToken;
  async run(m: M, r: QuotaReal) {
    r.steps.push(this.toString());
    await r.session.switchOffQuietly();
    explore(r.session.ctx, DIMENSION.transition, "on → off");
    m.multiToken = false;
    m.offReturned = [];
  }
  toString = () => "multiTokenOff";
}

/**
 * multitokenConfig written as an empty object, with no token of the client active. The document makes
 * multitokenConfig optional and says that it activates multi-token support; the default quota is not shown,
 * and neither is whether an object without clientCredentialsMultiTokenConfig is valid. So either the write
 * is refused as invalid (a 4xx, at configuration time), or it is accepted, and then a token request with
 * nothing active must get a new token, as under any quota. The step then writes the setting of before
 * again (the quota, or multi-token support off), so the model knows the quota for the steps after it.
 */
export class EmptyMultiTokenConfig<M extends { multiToken: boolean; offReturned: number[] } = QuotaModel>
  implements fc.AsyncCommand<M, QuotaReal>
{
  constructor(
    /** True when no token of the client may be active (decided by the model). */
    readonly noneActive: (m: Readonly<M>) => boolean,
    /** Adds a token just issued to the model (and r.tokens), as its token request step does. */
    readonly add: (
      m: M,
      r: QuotaReal,
      token: string,
      sent: number,
      response: ApiResponse<TokenResponse>,
    ) => void,
    readonly quotaOf: (m: Readonly<M>) => number,
  ) {}
  check = (m: Readonly<M>) => this.noneActive(m);
  async run(m: M, r: QuotaReal) {
    r.steps.push(this.toString());
    const { session } = r;
    const written = await session.putMultiTokenConfig({}, "PUT");
    explore(session.ctx, "multitokenConfig form", "{}");
    if (!written.ok) {
      if (written.status >= 400 && written.status < 500) {
        explore(session.ctx, DIMENSION.transition, "empty multitokenConfig refused");
        return;
      }
      modelFail(
        r,
        `PUT of the customer with multitokenConfig {} answered ${describeResponse(written)}: expected it accepted, or refused as invalid with a 4xx`,
        "multitokenConfig {} accepted, or refused with a validation error (4xx)",
        written,
      );
    }
    explore(session.ctx, DIMENSION.transition, "empty multitokenConfig accepted");
    const sent = session.ctx.clock.now();
    const response = await session.issue();
    const token = accessTokenOf(response);
    if (!token || r.tokens.includes(token))
      modelFail(
        r,
        "the target accepted multitokenConfig {} (multitokenConfig activates multi-token support; its default " +
          `quota is not shown), but with no token of the client active a token request got ${token ? "a token issued before" : describeResponse(response)}`,
        "a new token (multi-token support on by an accepted multitokenConfig, no token active)",
        response,
        { record: quotaRecord(session, `token #${r.tokens.length} of the run`) },
      );
    this.add(m, r, token, sent, response);
    if (m.multiToken) await session.setQuota(this.quotaOf(m), "PUT");
    else {
      await session.switchOffQuietly();
      m.offReturned = [];
    }
  }
  toString = () => "multitokenConfig {}";
}

/** The empty-multitokenConfig step of the model on a driven clock. */
const emptyConfig = () =>
  new EmptyMultiTokenConfig<QuotaModel>(
    (m) => activeCount(m) === 0,
    (m, r, token, _sent, response) => {
      validityOf(r.session, response);
      m.tokens.push({ expiresAt: m.now + m.validityMs });
      r.tokens.push(token);
    },
    (m) => m.max,
  );

// Weighted towards token requests, so that runs reach the quota; time passes in steps that either keep
// tokens alive or let them expire, or to just before or after an expiry; multi-token support goes off and
// on again (by a quota written either way).
export const quotaCommands = [
  fc.constant(new RequestToken()),
  fc.constant(new RequestToken()),
  fc.constant(new RequestToken()),
  fc.nat(50).map((pick) => new UseToken(pick)),
  fc.nat(50).map((pick) => new UseToken(pick)),
  fc
    .oneof(fc.integer({ min: 5, max: 60 }), fc.integer({ min: 105, max: 150 }))
    .map((p) => new LetTimePass(p)),
  fc
    .tuple(fc.constantFrom("before" as const, "after" as const), fc.nat(3))
    .map(([instant, pick]) => new PassToInstant(instant, pick)),
  fc
    .tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom<CustomerMethod>("PUT", "POST"))
    .map(([max, method]) => new ChangeQuota(max, method)),
  fc.constant(new SwitchOff()),
  fc.constant(emptyConfig()),
];

/**
 * Every transition of the state table once, in an order that decides each: a run the random ones may
 * miss. Starts from multi-token support on with nothing active and a quota no lower than the walk's own; tokens are numbered in
 * the order issued. T1 is issued alone, the rest later, so that its expiry frees exactly one slot.
 */
export const quotaWalk: QuotaCommand[] = [
  new SwitchOff(),
  new RequestToken(), // T1, new: nothing was valid
  new RequestToken(), // off: T1 again
  new LetTimePass(30),
  new ChangeQuota(3, "POST"), // off -> on
  new RequestToken(), // T2
  new RequestToken(), // T3: at the limit
  new RequestToken(), // refused at the limit
  new SwitchOff(), // on -> off
  new RequestToken(), // one of T1..T3 again
  new ChangeQuota(3, "PUT"), // off -> on
  new RequestToken(), // refused: the quota applies again to the same three
  new PassToInstant("before", 0), // T1 still valid and counted
  new UseToken(0),
  new RequestToken(), // refused
  new PassToInstant("after", 0), // T1 expired; T2 and T3 and the declined requests' would-be slots live on
  new UseToken(0),
  new RequestToken(), // T4, exactly one: the declined requests took no slot
  new RequestToken(), // refused
  new ChangeQuota(4, "POST"), // raised
  new RequestToken(), // T5
  new RequestToken(), // refused
  new PassToInstant("after", 0), // T2 and T3 expired
  new ChangeQuota(2, "PUT"), // lowered to the two active (T4, T5)
  new RequestToken(), // refused
  new PassToInstant("before", 0), // T4 valid its whole validity from its re-issue
  new UseToken(3),
  new PassToInstant("after", 0),
  new UseToken(3),
  // Every token expired (T4 and T5 with it): with multi-token support off, a token request gets a new
  // token, never an expired one again.
  new SwitchOff(),
  new RequestToken(), // T6, new
  new PassToInstant("after", 0), // T6 expired
  emptyConfig(), // refused as invalid, or accepted and a token granted (T7)
  new RequestToken(),
];

export function quotaModel(now: number, max: number, validitySeconds: number): QuotaModel {
  return {
    now,
    max,
    multiToken: true,
    validityMs: validitySeconds * 1000,
    tokens: [],
    refusals: [],
    pastExpiry: false,
    offReturned: [],
  };
}
