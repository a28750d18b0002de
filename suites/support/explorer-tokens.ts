// The explorer's token and configuration alphabet: token requests by every client the target file names
// (the clients of the quota customer, whose configuration the kit sets, and clients of other customers,
// whose configuration it never changes), uses of each token held, accessTokenValidity written for one
// client, multi-token support on (a quota, by PUT or POST) and off for the quota customer, multitokenConfig
// written for the rdbms tenant's customer (which the document says is refused), and time passing. The
// model keeps per client the tokens issued with their issue time and the validity in force for that client
// at issue, and per customer multi-token on or off and the quota; every answer is judged against it.
//
// Time is the kit's clock: each token carries a window for its expiry, from the clock around the request
// that issued it (sent + validity - SKEW_MS to received + validity + SKEW_MS). The model asserts only what
// the windows decide, so one model serves a driven clock (where sent = received) and real time.
import fc from "fast-check";
import { type CredentialRole, explore } from "../../src/check/index.ts";
import {
  type ApiResponse,
  accessTokenOf,
  type Customer,
  describeResponse,
  multiTokenConfig,
  type TokenResponse,
} from "../../src/client/index.ts";
import { answerDetail } from "./answer-detail.ts";
import { type Budget, type ExplorerReal, exchange, judged, step, stepFail } from "./explorer-steps.ts";
import { type CustomerMethod, DIMENSION, methodName } from "./quota-methods.ts";
import { SKEW_MS } from "./quota-model.ts";
import { type QuotaSession, slotsHeldFromBefore, upsertClient } from "./quota-session.ts";
import {
  judgeExpiredRefusal,
  judgeQuotaRefusal,
  judgeSuccess,
  judgeValidationError,
} from "./response-judges.ts";
import { credentialOf } from "./target-client.ts";

/** A token the kit holds, with the window in which it expires (the kit's clock, ms). */
export interface HeldToken {
  value: string;
  /** Validity in force for its client at issue (seconds). */
  validitySeconds: number;
  sent: number;
  received: number;
  earliestExpiry: number;
  latestExpiry: number;
  /** Held by the client before the check (in real time): a window from its expires_in, never waited out. */
  fromBefore?: boolean;
  /** A token from before the run whose slot the session added to every quota it set (slotsHeldFromBefore):
   *  not counted against the quota the model sets. */
  outsideQuota?: boolean;
}

/** The client's tokens counted against the quota the model sets. */
function counted(own: OwnClient): HeldToken[] {
  return own.tokens.filter((t) => t.outsideQuota !== true);
}

/** A client of the quota customer: the kit sets its validity, and the customer's multi-token setting. */
export interface OwnClient {
  role: CredentialRole;
  validitySeconds: number;
  tokens: HeldToken[];
  /** Tokens returned since multi-token support went off (indexes into tokens). */
  offReturned: number[];
  /** In real time, a client other than the quota client was refused below its quota: it holds tokens from
   *  before the check that the interface cannot list (another check's or user's), so its refusals are not
   *  judged for the rest of the sequence. */
  holdsUnknown?: boolean;
}

/** A client of another customer, whose configuration the kit never writes: what it showed, run-wide. */
export interface ForeignClient {
  role: CredentialRole;
  /** The customer's multi-token behaviour as first shown: the same token again, or a new one each time. */
  mode?: "off" | "on";
  /** The last token it was given, its expiry window from expires_in. */
  token?: HeldToken;
  /** False once it answered something that is neither a token nor a quota refusal (its credentials). */
  usable: boolean;
}

export interface TokenModel {
  now: () => number;
  drivable: boolean;
  multiToken: boolean;
  max: number;
  own: OwnClient[];
  foreign: ForeignClient[];
  /** Token requests left to each client of another customer in this sequence (their slots are not ours). */
  foreignLeft: Map<CredentialRole, number>;
  /** The rdbms tenant's customer as read at the start, where the target file names it. */
  rdbms?: { customerId: string; original: Customer };
  /** accessTokenValidity values the steps write (seconds). */
  validities: readonly number[];
  /** Steps of time passed in this sequence: bounded in real time. */
  passes: number;
  maxPasses: number;
  budget: Budget;
}

export interface TokenReal extends ExplorerReal {
  session: QuotaSession;
}

export type TokenCommand = fc.AsyncCommand<TokenModel, TokenReal>;

/** Requirements whose invariants the explorer judges (the report counts each). */
export const TOKEN_EXPLORER_REQUIREMENTS = [
  "TOKEN-STATE-01",
  "TOKEN-STATE-02",
  "TOKEN-STATE-03",
  "TOKEN-STATE-04",
  "TOKEN-STATE-05",
  "TOKEN-QUOTA-01",
  "TOKEN-QUOTA-02",
  "TOKEN-QUOTA-04",
  "TOKEN-VALIDITY-01",
  "TOKEN-VALIDITY-02",
  "CONFIG-CLIENT-02",
  "CONFIG-CUSTOMER-04",
];

// ---------------------------------------------------------------- what the windows decide
const surelyActive = (t: HeldToken, at: number) => t.earliestExpiry > at;
const maybeActive = (t: HeldToken, at: number) => t.latestExpiry > at;

function allHeld(m: Readonly<TokenModel>): { owner: OwnClient; token: HeldToken; index: number }[] {
  return m.own.flatMap((owner) => owner.tokens.map((token, index) => ({ owner, token, index })));
}

function heldBy(m: Readonly<TokenModel>, value: string): CredentialRole | undefined {
  for (const c of m.own) if (c.tokens.some((t) => t.value === value)) return c.role;
  for (const f of m.foreign) if (f.token?.value === value) return f.role;
  return undefined;
}

function window(sent: number, received: number, seconds: number): HeldToken {
  return {
    value: "",
    validitySeconds: seconds,
    sent,
    received,
    earliestExpiry: sent + seconds * 1000 - SKEW_MS,
    latestExpiry: received + seconds * 1000 + SKEW_MS,
  };
}

/** The expires_in a token answer announces, if it announces one. */
function announced(response: ApiResponse<TokenResponse>): number | undefined {
  const value = response.data?.expires_in;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Sends a token request for `role` (the quota client's through the session, which notes its expiry). */
async function requestToken(r: TokenReal, role: CredentialRole) {
  const sent = r.ctx.clock.now();
  const response = await exchange(r, `token ${role}`, () =>
    role === "quota" ? r.session.issue() : r.client.token(credentialOf(r.ctx, role)),
  );
  return { response, sent, received: r.ctx.clock.now() };
}

/** Counts a request sent by the session's helpers (configuration writes) against the budget. */
function spent(r: TokenReal, what: string, requests: number): void {
  r.budget.left -= requests;
  r.budget.spent += requests;
  r.steps[r.steps.length - 1] += ` [${what}]`;
}

// ---------------------------------------------------------------- token requests
export class RequestToken implements TokenCommand {
  constructor(readonly pick: number) {}
  private roleOf(m: Readonly<TokenModel>): CredentialRole {
    const roles = [...m.own.map((c) => c.role), ...m.foreign.filter((f) => f.usable).map((f) => f.role)];
    return roles[this.pick % roles.length] as CredentialRole;
  }
  check = (m: Readonly<TokenModel>) => {
    if (m.budget.left < 1) return false;
    const role = this.roleOf(m);
    return m.own.some((c) => c.role === role) || (m.foreignLeft.get(role) ?? 0) > 0;
  };
  async run(m: TokenModel, r: TokenReal) {
    const role = this.roleOf(m);
    step(r, `requestToken(${role})`);
    const own = m.own.find((c) => c.role === role);
    const answer = await requestToken(r, role);
    if (own) return m.multiToken ? grantedOrRefused(m, r, own, answer) : sameTokenAgain(m, r, own, answer);
    const foreign = m.foreign.find((f) => f.role === role) as ForeignClient;
    m.foreignLeft.set(role, (m.foreignLeft.get(role) ?? 1) - 1);
    judgeForeign(r, foreign, answer);
  }
  toString = () => `requestToken(${this.pick})`;
}

interface Answer {
  response: ApiResponse<TokenResponse>;
  sent: number;
  received: number;
}

/** A new token of a client of the quota customer: held to the validity in force for that client now. */
function addToken(m: TokenModel, r: TokenReal, own: OwnClient, token: string, a: Answer): void {
  const shown = announced(a.response);
  judged(r, "TOKEN-VALIDITY-01", "a new token announces its own client's validity");
  const slack = (a.received - a.sent) / 1000 + SKEW_MS / 1000;
  if (shown !== undefined && Math.abs(shown - own.validitySeconds) > slack) {
    const others = m.own.filter((c) => c !== own && c.validitySeconds === shown).map((c) => c.role);
    stepFail(
      r,
      "TOKEN-VALIDITY-01",
      `a new token of the ${own.role} client announces expires_in ${shown} s, but accessTokenValidity of that client is ${own.validitySeconds} s` +
        (others.length > 0
          ? ` (${shown} s is the validity of the ${others.join(", ")} client: validity is set per client)`
          : ""),
      {
        response: a.response,
        expected: `expires_in ${own.validitySeconds} s (1 s of rounding allowed), the validity of the ${own.role} client at issue`,
        actual: `expires_in ${shown} s`,
      },
    );
  }
  own.tokens.push({ ...window(a.sent, a.received, own.validitySeconds), value: token });
  explore(r.ctx, "token explorer client", own.role);
}

/** The quota a client's own tokens are judged against: the model's, and for a client other than the quota
 *  client the slots the session added for the quota client's tokens from before the run (the quota is per
 *  client, so the raise is every client's; the quota client's token from before is not counted). */
function limitOf(m: TokenModel, r: TokenReal, own: OwnClient): number {
  return m.max + (own.role === "quota" ? 0 : slotsHeldFromBefore(r.ctx));
}

function grantedOrRefused(m: TokenModel, r: TokenReal, own: OwnClient, a: Answer): void {
  const surely = counted(own).filter((t) => surelyActive(t, a.received)).length;
  const maybe = counted(own).filter((t) => maybeActive(t, a.sent)).length;
  const token = accessTokenOf(a.response);
  const max = limitOf(m, r, own);
  const othersHolding = m.own.some(
    (c) => c !== own && c.tokens.filter((t) => maybeActive(t, a.sent)).length > 0,
  );
  if (token === undefined) {
    // Only the quota client is known to hold no token from before the check in real time (its session
    // asks); another client of the customer may (the kit cannot drive the clock past them).
    if (maybe < max && !m.drivable && own.role !== "quota" && !own.holdsUnknown) {
      own.holdsUnknown = true;
      r.ctx.log.info(`${own.role}: refused below its quota; it holds tokens from before the check`);
    }
    if (maybe < max && !own.holdsUnknown)
      stepFail(
        r,
        m.own.some((c) => c !== own) && othersHolding ? "TOKEN-QUOTA-04" : "TOKEN-STATE-02",
        `with multi-token support on, maxActiveTokensAllowed=${max} and at most ${maybe} active tokens of the ${own.role} client, its token request was not granted: ${describeResponse(a.response)}` +
          (othersHolding
            ? " (other clients of the customer hold tokens; the quota applies to every client individually)"
            : ""),
        {
          response: a.response,
          expected: `a new token (at most ${maybe} of ${max} active for this client)`,
        },
      );
    const problem = judgeQuotaRefusal(r.ctx.target.profile, a.response);
    if (problem !== undefined)
      stepFail(r, "TOKEN-STATE-03", `the token request at the limit: ${problem}`, {
        response: a.response,
        expected: "a limit-exceeded refusal",
      });
    judged(r, "TOKEN-STATE-03", "refused at the limit, with the limit stated");
    explore(r.ctx, DIMENSION.transition, "on: refused at limit");
    return;
  }
  const holder = heldBy(m, token);
  if (holder !== undefined)
    stepFail(
      r,
      "TOKEN-QUOTA-01",
      `with multi-token support on, the ${own.role} client's token request returned a token issued before (to the ${holder} client)`,
      {
        response: a.response,
        expected: "a newly issued token",
        actual: `${a.response.status}, a token held before`,
      },
    );
  judged(r, "TOKEN-QUOTA-01", "every granted request under multi-token support gets a new token");
  if (surely >= max)
    stepFail(
      r,
      "TOKEN-QUOTA-02",
      `with ${surely} tokens of the ${own.role} client active for certain and maxActiveTokensAllowed=${max}, a token was issued`,
      {
        response: a.response,
        expected: `a limit-exceeded refusal (${surely} of ${max} active)`,
        actual: `${a.response.status}, token ${surely + 1} issued`,
      },
    );
  judged(r, "TOKEN-QUOTA-02", "no grant with the client's quota full");
  judged(r, "TOKEN-STATE-02", "a grant below the limit");
  if (othersHolding) judged(r, "TOKEN-QUOTA-04", "each client's quota counted apart from the others'");
  // Granted where the quota may have been full: a token of the client must have expired (UseAll judges it).
  if (maybe >= max) judged(r, "TOKEN-STATE-05", "a grant at the limit only as a token expires");
  // Had its expired tokens still counted, this request would have been refused.
  const expired = counted(own).filter((t) => !maybeActive(t, a.sent)).length;
  if (expired > 0 && maybe + expired >= max) {
    judged(r, "TOKEN-STATE-05", "an expired token no longer counts toward the quota");
    explore(r.ctx, DIMENSION.transition, "expiry frees a slot");
  }
  explore(r.ctx, DIMENSION.transition, "on: new token below limit");
  addToken(m, r, own, token, a);
}

function sameTokenAgain(m: TokenModel, r: TokenReal, own: OwnClient, a: Answer): void {
  const token = accessTokenOf(a.response);
  const surely = own.tokens.filter((t) => surelyActive(t, a.received)).length;
  const returned = own.offReturned.some((i) => surelyActive(own.tokens[i] as HeldToken, a.received));
  if (token === undefined)
    stepFail(
      r,
      "TOKEN-STATE-01",
      `with multi-token support off, the ${own.role} client's token request got no token: ${describeResponse(a.response)}`,
      { response: a.response, expected: "a token: the same one again while it is valid, else a new one" },
    );
  const index = own.tokens.findIndex((t) => t.value === token);
  const held = own.tokens[index];
  if (held && maybeActive(held, a.sent)) {
    // The same token again: its validity ran from its issue, and returning it does not restart it.
    const shown = announced(a.response);
    const left = (held.latestExpiry - a.received) / 1000;
    judged(r, "TOKEN-VALIDITY-02", "a token returned again keeps its issue time");
    if (shown !== undefined && shown > left + 1)
      stepFail(
        r,
        "TOKEN-VALIDITY-02",
        `the ${own.role} client's token, returned again with multi-token support off, announces expires_in ${shown} s; issued with a ${held.validitySeconds} s validity, it has at most ${Math.ceil(left)} s left`,
        {
          response: a.response,
          expected: `expires_in at most ${Math.ceil(left)} s (its validity runs from its issue time)`,
          actual: `expires_in ${shown} s`,
        },
      );
    own.offReturned.push(index);
    judged(r, "TOKEN-STATE-01", "the same token again while it is valid");
    explore(r.ctx, DIMENSION.transition, "off: same token");
    return;
  }
  if (held)
    stepFail(
      r,
      "TOKEN-STATE-04",
      `with multi-token support off, the ${own.role} client was given an expired token of its own again`,
      {
        response: a.response,
        expected: "a new token (every earlier one expired)",
        actual: "an expired token",
      },
    );
  const holder = heldBy(m, token);
  if (holder !== undefined || (surely > 0 && returned))
    stepFail(
      r,
      "TOKEN-STATE-01",
      holder !== undefined
        ? `with multi-token support off, the ${own.role} client was given a token of the ${holder} client`
        : `with multi-token support off and a token of the ${own.role} client still valid, its token request got a newly issued token`,
      {
        response: a.response,
        expected: "the same token again",
        actual: `${a.response.status}, another token`,
      },
    );
  judged(r, "TOKEN-STATE-01", "a new token only where none is valid");
  const shown = announced(a.response);
  const slack = (a.received - a.sent) / 1000 + SKEW_MS / 1000;
  // The quota client's token from before the run that holds a slot of its own (the session's quotas are
  // one slot higher for it): returned with multi-token support off beside the kit's own tokens too.
  const outsideQuota = own.role === "quota" && slotsHeldFromBefore(r.ctx) > 0;
  const fromBefore =
    shown !== undefined &&
    (own.role === "quota"
      ? (own.tokens.length === 0 || outsideQuota) && shown > own.validitySeconds + 1
      : Math.abs(shown - own.validitySeconds) > slack);
  if (!m.drivable && fromBefore) {
    // In real time a token returned with multi-token support off may be one the client held before the
    // check (the quota client's session asks that it holds none, so only its first, overlong one), with
    // the validity it had then: held with the window its expires_in gives, judged by that from now on.
    r.ctx.log.info(`${own.role}: a token from before the check, ${shown} s left`);
    own.tokens.push({
      ...window(a.sent, a.received, shown),
      value: token,
      fromBefore: true,
      ...(outsideQuota ? { outsideQuota } : {}),
    });
  } else addToken(m, r, own, token, a);
  own.offReturned.push(own.tokens.length - 1);
}

/** A client of another customer: its customer's multi-token behaviour must be what it showed first. */
function judgeForeign(r: TokenReal, f: ForeignClient, a: Answer): void {
  const token = accessTokenOf(a.response);
  const before = f.token;
  const record = `client ${credentialOf(r.ctx, f.role).clientId} (credentials.${f.role}), another customer`;
  const changed = (what: string) =>
    stepFail(
      r,
      "TOKEN-QUOTA-04",
      `the ${f.role} client of another customer ${what}: multi-token support and the quota are set per customer, and the kit changed only customer ${r.session.customerId}`,
      {
        response: a.response,
        record,
        expected: `the behaviour its customer showed before (multi-token ${f.mode})`,
      },
    );
  if (token === undefined) {
    if (judgeQuotaRefusal(r.ctx.target.profile, a.response) !== undefined) {
      f.usable = false;
      r.ctx.log.info(`${f.role}: no token and no quota refusal (${describeResponse(a.response)}); left out`);
      return;
    }
    if (f.mode === "off" && before && surelyActive(before, a.received))
      changed("was refused a token for the limit where before it was given the same token again");
    f.mode = "on";
    return;
  }
  const shown = announced(a.response);
  if (before && token === before.value) {
    if (f.mode === "on")
      changed("got a token issued before, where its customer issued a new token per request");
    judged(r, "TOKEN-VALIDITY-02", "a token returned again keeps its issue time");
    const left = (before.latestExpiry - a.received) / 1000;
    if (shown !== undefined && shown > left + 1)
      stepFail(
        r,
        "TOKEN-VALIDITY-02",
        `the ${f.role} client's token, returned again, announces expires_in ${shown} s; it announced at most ${Math.ceil(left)} s left before`,
        {
          response: a.response,
          record,
          expected: `expires_in at most ${Math.ceil(left)} s`,
          actual: `expires_in ${shown} s`,
        },
      );
    f.mode = "off";
  } else if (before && surelyActive(before, a.received)) {
    if (f.mode === "off")
      changed("got a new token while its earlier token is valid, where before the same token came again");
    f.mode = "on";
  }
  if (before) judged(r, "TOKEN-QUOTA-04", "another customer's multi-token behaviour unchanged");
  explore(r.ctx, "token explorer client", `${f.role} (another customer)`);
  if (!before || token !== before.value)
    f.token = {
      ...window(a.sent, a.received, shown ?? 0),
      value: token,
      // Without expires_in the token's life is unknown: nothing is decided by it.
      ...(shown === undefined ? { earliestExpiry: a.sent, latestExpiry: Number.POSITIVE_INFINITY } : {}),
    };
}

// ---------------------------------------------------------------- uses
function judgeUse(
  r: TokenReal,
  owner: OwnClient,
  t: HeldToken,
  sent: number,
  received: number,
  response: ApiResponse<unknown>,
) {
  const what = `use of a token of the ${owner.role} client (validity ${t.validitySeconds} s at issue)`;
  const decided =
    sent >= t.latestExpiry
      ? {
          rule: "TOKEN-STATE-04",
          invariant: "an expired token refused as expired",
          problem: judgeExpiredRefusal(r.ctx.target.profile, response),
          expected: "an expired-token error",
          instant: "after expiry",
        }
      : received < t.earliestExpiry
        ? {
            rule: "TOKEN-VALIDITY-02",
            invariant: "a token accepted for its validity from its issue time",
            problem: judgeSuccess(response, what),
            expected: "the data: the token is within its validity",
            instant: "before expiry",
          }
        : undefined;
  // Between the two, the token's expiry window leaves either answer legal.
  if (decided === undefined) return;
  judged(r, decided.rule, decided.invariant);
  if (decided.problem !== undefined)
    stepFail(
      r,
      decided.rule,
      `${what}, ${Math.round((sent - t.sent) / 1000)} s after issue: ${decided.problem}`,
      {
        response,
        expected: decided.expected,
      },
    );
  explore(r.ctx, DIMENSION.instant, decided.instant);
}

async function use(r: TokenReal, owner: OwnClient, t: HeldToken) {
  const sent = r.ctx.clock.now();
  const response = await exchange(r, `use ${owner.role}`, () => r.session.use(t.value));
  return { response, sent, received: r.ctx.clock.now() };
}

export class UseToken implements TokenCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<TokenModel>) => m.budget.left >= 1 && allHeld(m).length > 0;
  async run(m: TokenModel, r: TokenReal) {
    const held = allHeld(m);
    const { owner, token, index } = held[this.pick % held.length] as (typeof held)[number];
    step(r, `useToken(${owner.role} #${index})`);
    const { response, sent, received } = await use(r, owner, token);
    judgeUse(r, owner, token, sent, received, response);
  }
  toString = () => `useToken(${this.pick})`;
}

/** Every token a client holds that may still be active, used one after another: the target accepts no
 *  more of them than the quota while multi-token support is on, and each as its window says. */
export class UseAll implements TokenCommand {
  constructor(readonly pick: number) {}
  private owner = (m: Readonly<TokenModel>) => m.own[this.pick % m.own.length] as OwnClient;
  private candidates = (m: Readonly<TokenModel>) =>
    counted(this.owner(m)).filter((t) => maybeActive(t, m.now()));
  check = (m: Readonly<TokenModel>) => {
    const n = this.candidates(m).length;
    return n > 0 && m.budget.left >= n;
  };
  async run(m: TokenModel, r: TokenReal) {
    const owner = this.owner(m);
    step(r, `useAll(${owner.role})`);
    const uses = [];
    for (const t of this.candidates(m)) uses.push({ t, ...(await use(r, owner, t)) });
    const accepted = uses.filter((u) => u.response.ok);
    // Tokens issued under a larger quota or with multi-token support off may outnumber a lowered one: the
    // model never lowers a quota below the tokens that may be active, so the count holds whenever it is on.
    const max = limitOf(m, r, owner);
    if (m.multiToken) {
      judged(r, "TOKEN-QUOTA-02", "tokens accepted at once at most the quota");
      if (accepted.length > max)
        stepFail(
          r,
          "TOKEN-QUOTA-02",
          `the target accepted ${accepted.length} tokens of the ${owner.role} client one after another, with maxActiveTokensAllowed=${max}`,
          {
            response: (accepted.at(-1) as (typeof uses)[number]).response,
            expected: `at most ${max} of its tokens accepted (a token granted at the limit means an earlier one expired)`,
            actual: `${accepted.length} accepted`,
          },
        );
    }
    for (const u of uses) judgeUse(r, owner, u.t, u.sent, u.received, u.response);
  }
  toString = () => `useAll(${this.pick})`;
}

// ---------------------------------------------------------------- configuration
/** accessTokenValidity written for ONE client of the quota customer. */
export class SetValidity implements TokenCommand {
  constructor(
    readonly pick: number,
    readonly choice: number,
  ) {}
  private owner = (m: Readonly<TokenModel>) => m.own[this.pick % m.own.length] as OwnClient;
  private seconds = (m: Readonly<TokenModel>) => m.validities[this.choice % m.validities.length] as number;
  check = (m: Readonly<TokenModel>) =>
    m.budget.left >= 1 && this.owner(m).validitySeconds !== this.seconds(m);
  async run(m: TokenModel, r: TokenReal) {
    const owner = this.owner(m);
    const seconds = this.seconds(m);
    step(r, `setValidity(${owner.role}, ${seconds} s)`);
    await upsertClient(r.ctx, r.session.customerId, owner.role, { accessTokenValidity: seconds });
    spent(r, `PUT .../clients ${owner.role} accessTokenValidity=${seconds}`, 1);
    explore(r.ctx, DIMENSION.method, methodName("PUT clients"));
    explore(r.ctx, "validity change", `${owner.role}: ${owner.validitySeconds} -> ${seconds} s`);
    judged(r, "CONFIG-CLIENT-02", "a validity written applies to that client's later tokens");
    owner.validitySeconds = seconds;
    // Whether a change reaches tokens already issued is not shown: either life is accepted for them.
    for (const t of owner.tokens) {
      t.earliestExpiry = Math.min(t.earliestExpiry, t.sent + seconds * 1000 - SKEW_MS);
      t.latestExpiry = Math.max(t.latestExpiry, t.received + seconds * 1000 + SKEW_MS);
    }
  }
  toString = () => `setValidity(${this.pick}, ${this.choice})`;
}

/** Multi-token support on for the quota customer with a quota, by PUT or POST: never below the tokens a
 *  client may hold (whether tokens are then revoked is not shown). */
export class SetQuota implements TokenCommand {
  constructor(
    readonly max: number,
    readonly method: CustomerMethod,
  ) {}
  check = (m: Readonly<TokenModel>) =>
    m.budget.left >= 1 &&
    m.own.every((c) => counted(c).filter((t) => maybeActive(t, m.now())).length <= this.max);
  async run(m: TokenModel, r: TokenReal) {
    step(r, `setQuota(${this.max} by ${this.method})`);
    await r.session.setQuota(this.max, this.method);
    spent(r, `${this.method} customer maxActiveTokensAllowed=${this.max}`, 1);
    explore(r.ctx, DIMENSION.transition, m.multiToken ? "quota changed" : "off → on");
    explore(r.ctx, DIMENSION.quota, this.max);
    m.multiToken = true;
    m.max = this.max;
  }
  toString = () => `setQuota(${this.max}, ${this.method})`;
}

export class SwitchOff implements TokenCommand {
  check = (m: Readonly<TokenModel>) => m.multiToken && m.budget.left >= 2;
  async run(m: TokenModel, r: TokenReal) {
    step(r, "multiTokenOff");
    await r.session.switchOffQuietly();
    spent(r, "PUT customer without multitokenConfig", 1);
    explore(r.ctx, DIMENSION.transition, "on → off");
    m.multiToken = false;
    for (const c of m.own) c.offReturned = [];
  }
  toString = () => "multiTokenOff";
}

/** multitokenConfig for the rdbms tenant's customer: refused with a validation error, and nothing changes
 *  (the customer read back as before; its client's tokens judged as before by the foreign model). */
export class RdbmsMultiToken implements TokenCommand {
  constructor(readonly method: CustomerMethod) {}
  check = (m: Readonly<TokenModel>) => m.rdbms !== undefined && m.budget.left >= 3;
  async run(m: TokenModel, r: TokenReal) {
    const { customerId, original } = m.rdbms as NonNullable<TokenModel["rdbms"]>;
    step(r, `rdbmsMultiToken(${this.method})`);
    const token = await r.ctx.token("rdbmsAdmin");
    const body = { ...original, multitokenConfig: multiTokenConfig(2) };
    const response = await exchange(r, `${this.method} ${customerId}`, () =>
      this.method === "PUT"
        ? r.client.putCustomer(token, customerId, body)
        : r.client.postCustomer(token, customerId, body),
    );
    explore(r.ctx, "rdbms write", methodName(this.method));
    const restore = () => exchange(r, "restore", () => r.client.putCustomer(token, customerId, original));
    const problem = judgeValidationError(r.ctx.target.profile, response);
    judged(r, "CONFIG-CUSTOMER-04", "multitokenConfig on the rdbms tenant's customer refused");
    if (problem !== undefined) {
      if (response.ok) await restore();
      stepFail(
        r,
        "CONFIG-CUSTOMER-04",
        `${this.method} of customer ${customerId} with multitokenConfig: ${problem}`,
        {
          response,
          expected: "a validation error (the customer's tenant uses auth.migration.mode=rdbms)",
        },
      );
    }
    const read = await exchange(r, "read back", () => r.client.postCustomer(token, customerId, {}));
    judged(r, "CONFIG-CUSTOMER-04", "a refused write changes nothing");
    // The same read (a merge of nothing) answered the customer before the write: it must again.
    if (!read.ok) {
      await restore();
      stepFail(
        r,
        "CONFIG-CUSTOMER-04",
        `after the refused ${this.method}, the read of customer ${customerId} that answered it before (POST {}) answers ${describeResponse(read)}: the refused write changed the stored customer`,
        answerDetail(read, { expected: "the customer as before: a refused write changes nothing" }),
      );
    }
    const stored = (read.body as Customer | undefined)?.multitokenConfig ?? null;
    if (JSON.stringify(stored) !== JSON.stringify(original.multitokenConfig ?? null)) {
      await restore();
      stepFail(
        r,
        "CONFIG-CUSTOMER-04",
        `${this.method} of customer ${customerId} with multitokenConfig was refused, yet the customer read back holds multitokenConfig ${JSON.stringify(stored)}`,
        answerDetail(read, {
          expected: `the customer as before (multitokenConfig ${JSON.stringify(original.multitokenConfig ?? null)}): a refused write changes nothing`,
          actual: `multitokenConfig ${JSON.stringify(stored)}`,
        }),
      );
    }
  }
  toString = () => `rdbmsMultiToken(${this.method})`;
}

// ---------------------------------------------------------------- time
/** Time passes: a step of a fraction of the shortest validity, or to just before or just past the expiry of
 *  the `pick`th token still to expire (past the rounding either way). In real time, a few per sequence. */
export class Wait implements TokenCommand {
  constructor(
    readonly kind: "step" | "before" | "past" | "all",
    readonly pick: number,
  ) {}
  private until(m: Readonly<TokenModel>): number | undefined {
    const now = m.now();
    if (this.kind === "step") return now + Math.min(...m.own.map((c) => c.validitySeconds)) * 400;
    // "all": past every token of one client (the `pick`th).
    const of = this.kind === "all" ? m.own[this.pick % m.own.length] : undefined;
    const ahead = allHeld(m)
      .filter(({ owner, token }) => token.fromBefore !== true && (of === undefined || owner === of))
      .map(({ token }) => (this.kind === "before" ? token.earliestExpiry - 1 : token.latestExpiry + 1))
      .filter((at) => at > now)
      .sort((a, b) => a - b);
    if (this.kind === "all") return ahead.at(-1);
    return ahead.length === 0 ? undefined : ahead[this.pick % ahead.length];
  }
  check = (m: Readonly<TokenModel>) =>
    m.passes < m.maxPasses && (m.drivable || this.kind !== "before") && this.until(m) !== undefined;
  async run(m: TokenModel, r: TokenReal) {
    const at = this.until(m) as number;
    step(
      r,
      `wait(${this.kind}${this.kind === "step" ? "" : ` ${this.kind === "all" ? "tokens of client" : "expiry"} ${this.pick}`})`,
    );
    const ms = at - m.now();
    if (ms > 0) await r.session.pass(ms / 1000);
    m.passes++;
    explore(
      r.ctx,
      "time passing",
      this.kind === "step"
        ? "a step within validity"
        : this.kind === "all"
          ? "past every expiry of a client"
          : `just ${this.kind} an expiry`,
    );
  }
  toString = () => `wait(${this.kind}, ${this.pick})`;
}

// ---------------------------------------------------------------- the alphabet
const methods = fc.constantFrom<CustomerMethod>("PUT", "POST");

export const tokenCommands: fc.WeightedArbitrary<TokenCommand>[] = [
  { arbitrary: fc.nat(11).map((p) => new RequestToken(p)), weight: 6 },
  { arbitrary: fc.nat(20).map((p) => new UseToken(p)), weight: 2 },
  { arbitrary: fc.nat(5).map((p) => new UseAll(p)), weight: 1 },
  {
    arbitrary: fc.tuple(fc.nat(5), fc.nat(5)).map(([p, c]) => new SetValidity(p, c)),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 3 }), methods)
      .map(([max, method]) => new SetQuota(max, method)),
    weight: 2,
  },
  { arbitrary: fc.constant(new SwitchOff()), weight: 1 },
  { arbitrary: methods.map((method) => new RdbmsMultiToken(method)), weight: 1 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom("step" as const, "before" as const, "past" as const, "all" as const), fc.nat(3))
      .map(([kind, pick]) => new Wait(kind, pick)),
    weight: 2,
  },
];

/**
 * A walk that judges every invariant once, in an order that decides each; the random sequences add orders
 * of their own. Clients are picked by position: own clients first (the quota client, then the others of its
 * customer), then the clients of other customers. `foreignAt` is the position of the first of those.
 */
export function tokenWalk(ownCount: number, foreignCount: number): TokenCommand[] {
  const quota = new RequestToken(0);
  const second = ownCount > 1 ? [new RequestToken(1)] : [];
  const foreign = Array.from({ length: foreignCount }, (_, i) => new RequestToken(ownCount + i));
  return [
    ...foreign,
    ...foreign, // what the other customers show before any change: the same token again, or a new one
    new SetQuota(2, "POST"),
    quota,
    quota,
    quota, // refused at the limit
    ...second, // granted: the quota is per client
    new Wait("before", 0), // just inside the quota client's validity: its tokens are accepted
    new UseAll(0),
    ...foreign.slice(0, 1), // another customer unchanged by this customer's quota (the rdbms one: below)
    new RdbmsMultiToken("POST"), // refused, and nothing stored
    ...foreign.slice(-1), // the rdbms tenant's client (named last) unchanged by the refused write
    new SetValidity(0, 3), // the quota client's validity changes; the others' do not
    ...second,
    new Wait("past", 0), // the quota client's first token expires
    new UseToken(0),
    quota, // its slot is free again
    new UseAll(0),
    new SwitchOff(),
    quota, // one of its valid tokens again
    new Wait("step", 0),
    quota, // the same again: its life still runs from its issue
    new Wait("past", 0),
    new UseAll(0),
    new Wait("all", 0),
    quota, // every token of the quota client expired: a new one, never an expired one again
  ];
}
