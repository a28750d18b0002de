// The multi-token quota as the traffic shows it (States and transitions / Access token; Limits): with
// multi-token support on, a token request while the client's active token count is at
// maxActiveTokensAllowed is declined, so the service never grants a client more simultaneously active
// tokens than its customer's quota. The quota is known only from a configuration write of the customer in
// the traffic (PUT or POST of the customer with multitokenConfig, answered 2xx), and the customer's clients
// from its applicationClients and from PUT .../clients. A client's active tokens are those the traffic saw
// issued to it whose expiry (expires_in of the token answer) has not passed: a lower bound, as tokens
// issued before the recording began are not seen, so a grant with that many active already is over the
// quota whatever else is active. Token requests of a client whose quota is not known are undecided.
// Exchanges not judged (a proxy's full judge queue: gap()) may hold grants and configuration writes: a
// quota set before them is no longer known (a write among them may have changed it), a grant within a
// token's life after them is at the quota only as a lower bound (a finding still, never a pass), and a
// grant followed across them is undecided unless a token accepted after it breaks it still.
import { isObject } from "../contract/index.ts";
import { isQuotaRefusal } from "../rules/caller/tokens.ts";
import { parseJson } from "../rules/caller/traffic.ts";
import type { ObservedExchange, ServiceRule, ServiceRuleJudge, TokenTable } from "./service-rule.ts";
import { GAP_WHY } from "./service-rule.ts";
import type { Finding, Tally } from "./tally.ts";
import { type MultiToken, TOKEN_STATE_RULE, TokenStateJudge, VALIDITY_RULE } from "./token-state.ts";

export const QUOTA_RULE = {
  id: "service/token-quota-kept",
  level: "MUST",
  title:
    "MUST NOT grant a client a token while its active tokens already number its customer's maxActiveTokensAllowed",
  requirements: ["TOKEN-QUOTA-02", "TOKEN-QUOTA-04", "TOKEN-STATE-03"],
  opportunity: "a token request of a client whose quota the traffic showed (multi-token support on)",
  notExercised:
    "the traffic showed no quota (no PUT or POST of a customer with multitokenConfig answered 2xx) to hold token requests to",
} satisfies ServiceRule;

export const QUOTA_SHOWN_RULE = {
  id: "service/active-tokens-within-quota",
  level: "MUST",
  title:
    "MUST NOT have more of a client's tokens active at once than its customer's maxActiveTokensAllowed, as the tokens it accepts show",
  requirements: ["TOKEN-QUOTA-02", "TOKEN-STATE-03"],
  opportunity:
    "a token granted to a client whose quota the traffic showed, held against every token of the client the service accepted afterwards",
  notExercised:
    "the traffic showed no quota (no PUT or POST of a customer with multitokenConfig answered 2xx) to hold the tokens accepted to",
} satisfies ServiceRule;

export const REFUSAL_RULE = {
  id: "service/token-granted-below-quota",
  level: "MUST",
  title:
    "MUST NOT decline a client's token request for the limit while fewer of its tokens than its customer's maxActiveTokensAllowed are active (an expired token no longer counts)",
  requirements: ["TOKEN-STATE-02", "TOKEN-STATE-05", "TOKEN-QUOTA-10"],
  opportunity:
    "a token request declined for the limit, of a client whose quota the traffic showed, with every token that could be active then issued within the recording",
  notExercised:
    "the traffic showed no token request declined for the limit (the body says the limit is exceeded) under a quota it showed",
} satisfies ServiceRule;

/** A refusal for the limit waiting for its end to pass: a grant answered meanwhile may have been counted. */
interface Refusal {
  seq: number;
  at: number;
  end: number;
  clientId: string;
  max: number;
  quotaSeq: number;
  captured?: Pick<Finding, "evidence" | "secrets">;
}

/** Grants per client whose tokens active at once are followed (the most recent). */
const GRANTS_PER_CLIENT = 16;

/** A token granted under a known quota: the tokens of the client the traffic shows active at that moment
 *  (issued before it, accepted after it: a token is active from its issue until it expires, and an expired
 *  one is never accepted again, so one accepted after the grant was active at it). */
interface Grant {
  at: number;
  seq: number;
  max: number;
  active: Set<string>;
  broken: boolean;
  /** Exchanges were not judged while it was followed: its opportunity was taken back, undecided. */
  gapped?: true;
}

/** Slack for clocks: a token within this of its expiry is not counted as active. */
const EXPIRY_SLACK_MS = 2_000;
/** Tokens followed per client: above any quota (at most 200), so the count past it is over every quota. */
const TOKENS_PER_CLIENT = 512;
/** Clients whose tokens are followed; the least recently active forgotten past it. */
const CLIENTS_KEPT = 10_000;
/** Customers and client-to-customer links remembered. */
const CUSTOMERS_KEPT = 10_000;

const UNKNOWN_QUOTA =
  "token requests granted to clients whose quota the traffic never showed (no write of their customer's multitokenConfig, or the client not among its applicationClients or PUT clients)";
const STALE_QUOTA = `token requests under a quota set before ${GAP_WHY} (a configuration write among them may have changed it)`;
const GAP_GRANTS = `token requests granted below the quota within a token's life after ${GAP_WHY} (a grant among them may have been active)`;
const GAP_FOLLOWED = `grants followed across ${GAP_WHY} (a token accepted among them may have been active at the grant)`;
/** A token's life where the traffic showed none longer (expires_in's common value). */
const DEFAULT_LIFETIME_MS = 3_600_000;

const BEFORE_RECORDING =
  "refusals for the limit less than a token's life after the recording began (tokens issued before it may have been active)";
const REFUSAL_GAP = `refusals for the limit less than a token's life after ${GAP_WHY} (a grant among them may have been active)`;
const HIDDEN_GRANT =
  "refusals for the limit less than a token's life after a grant the traffic could not attribute (no client id, or a redacted token)";
const REFUSAL_UNKNOWN_QUOTA =
  "refusals for the limit of clients whose quota the traffic never showed, or showed before exchanges not judged";

const UNKNOWN_EXPIRY =
  "token requests granted at the quota only if tokens without expires_in in their answer were still active";

interface Quota {
  max: number;
  /** The configuration write that set it, and when its answer came. */
  seq: number;
  end: number;
  /** Exchanges were not judged since it was set. */
  stale?: true;
}

const customerOf = (pathname: string) => /\/oauth\/customers\/([^/]+)(\/clients)?$/.exec(pathname);

function boundedSet<K, V>(map: Map<K, V>, key: K, value: V, bound: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > bound) map.delete(map.keys().next().value as K);
}

export class TokenQuotaJudge implements ServiceRuleJudge {
  readonly rules = [QUOTA_RULE, QUOTA_SHOWN_RULE, REFUSAL_RULE, TOKEN_STATE_RULE, VALIDITY_RULE];
  /** Per client: the accessTokenValidity written for it (seconds), where and when that write's answer came. */
  private readonly validity = new Map<string, { seconds: number; seq: number; end: number }>();
  private readonly state = new TokenStateJudge(() => this.tally(TOKEN_STATE_RULE.id));
  /** Per customer: when a PUT without multitokenConfig, answered without one, ended (support off), and
   *  when a write of a multitokenConfig with client-credentials settings but no quota ended (on). */
  private readonly offSince = new Map<string, number>();
  private readonly onSince = new Map<string, number>();
  /** Per client: its tokens seen issued, with the latest moment each may still be active (undefined: the
   *  answer gave no expires_in, so possibly active still). */
  private readonly lastsUntil = new Map<string, Map<string, number | undefined>>();
  private readonly refusals: Refusal[] = [];
  /** The first exchange's time, the last grant not attributable to a client, the longest validity written. */
  private firstAt: number | undefined;
  private hiddenGrantAt: number | undefined;
  private longestValidityMs = 0;
  /** Per client: the recent grants under a known quota (the state table beyond the grant itself). */
  private readonly grants = new Map<string, Grant[]>();
  /** Per customer id: its quota, when multi-token support is known on; absent when not known. */
  private readonly quotas = new Map<string, Quota>();
  private readonly customerOfClient = new Map<string, string>();
  /** Per client: its tokens seen issued, with their expiry (undefined: the answer gave none). */
  private readonly issued = new Map<string, Map<string, number | undefined>>();
  /** The time of the last exchanges not judged, and the longest token life the traffic showed. */
  private lastGapAt: number | undefined;
  private longestLifeMs = 0;

  constructor(private readonly tally: (id: string) => Tally) {}

  gap(at: number): void {
    this.lastGapAt = at;
    this.state.gap();
    this.offSince.clear();
    this.onSince.clear();
    this.validity.clear();
    for (const quota of this.quotas.values()) quota.stale = true;
    const life = this.longestLifeMs || DEFAULT_LIFETIME_MS;
    const shown = this.tally(QUOTA_SHOWN_RULE.id);
    for (const grants of this.grants.values())
      for (const g of grants)
        if (!g.broken && !g.gapped && g.at + life + EXPIRY_SLACK_MS > at) {
          g.gapped = true;
          shown.retract(GAP_FOLLOWED);
        }
  }

  see(x: ObservedExchange, tokens: TokenTable): void {
    this.firstAt ??= x.at;
    this.settle(x.at);
    if (x.operation === "putCustomer" || x.operation === "postCustomer" || x.operation === "putClients")
      this.configuration(x);
    else if (x.operation === "issueToken") this.tokenRequest(x, tokens);
    else if (x.status >= 200 && x.status < 300 && x.bearer !== undefined) this.accepted(x, tokens);
    else if (x.status === 401 && x.bearer !== undefined) {
      const token = tokens(x.bearer);
      if (token !== undefined) this.state.refused(token.clientId, token.value);
    }
  }

  /** The validity a PUT .../clients wrote for a client: what it sent, else what its answer shows stored. */
  private validityWritten(x: ObservedExchange, clientId: string, sent: unknown): void {
    let seconds = typeof sent === "number" ? sent : undefined;
    const stored = parseJson(x.responseBody);
    if (seconds === undefined && Array.isArray(stored))
      for (const c of stored)
        if (isObject(c) && c.clientId === clientId && typeof c.accessTokenValidity === "number")
          seconds = c.accessTokenValidity;
    if (seconds === undefined || !Number.isInteger(seconds) || seconds <= 0) this.validity.delete(clientId);
    else
      boundedSet(
        this.validity,
        clientId,
        { seconds, seq: x.seq, end: x.at + (x.durationMs ?? 0) },
        CUSTOMERS_KEPT,
      );
  }

  /** A new token: its expires_in against the validity written for its client before the request. */
  private newToken(x: ObservedExchange, clientId: string, answer: unknown): void {
    const written = this.validity.get(clientId);
    const expiresIn = isObject(answer) ? answer.expires_in : undefined;
    if (written === undefined || written.end > x.at || typeof expiresIn !== "number") return;
    const tally = this.tally(VALIDITY_RULE.id);
    tally.opportunities += 1;
    // Whole seconds, counted from the issue: a second's rounding below, and the seconds the answer took.
    const lowest = written.seconds - 1 - Math.ceil((x.durationMs ?? 0) / 1000);
    if (expiresIn > written.seconds || expiresIn < lowest)
      tally.violate(
        x.seq,
        `client ${clientId} was issued a new token with expires_in ${expiresIn}, where its accessTokenValidity was written ${written.seconds} s (at #${written.seq}): its validity is the client's own, from its issue`,
      );
  }

  /** Whether multi-token support is on for the client at `at`: on from a quota written before it, off
   *  from a PUT of its customer without multitokenConfig whose answer shows none either. */
  private multiToken(clientId: string, at: number): MultiToken {
    const customer = this.customerOfClient.get(clientId);
    if (customer === undefined) return undefined;
    const quota = this.quotas.get(customer);
    if (quota !== undefined) return !quota.stale && quota.end <= at ? { on: true } : undefined;
    const on = this.onSince.get(customer);
    if (on !== undefined) return on <= at ? { on: true } : undefined;
    const since = this.offSince.get(customer);
    return since !== undefined && since <= at ? { on: false, since } : undefined;
  }

  /** A token the service accepted: active at every grant since its issue, as far as the traffic shows. A
   *  grant at the limit is so only if an earlier token is refused from then on (never accepted again). */
  private accepted(x: ObservedExchange, tokens: TokenTable): void {
    const token = tokens(x.bearer as string);
    if (token === undefined) return;
    const grants = this.grants.get(token.clientId);
    if (grants === undefined) return;
    for (const g of grants) {
      if (g.broken || g.at < token.issuedAt || g.at > x.at || g.active.has(token.value)) continue;
      g.active.add(token.value);
      if (g.active.size <= g.max) continue;
      g.broken = true;
      // Tokens seen accepted are a lower bound of those active: a gap cannot have made this finding.
      if (g.gapped) this.tally(QUOTA_SHOWN_RULE.id).restore(GAP_FOLLOWED);
      this.tally(QUOTA_SHOWN_RULE.id).violate(
        x.seq,
        `client ${token.clientId}'s token issued at #${token.seq} was accepted (${x.method} ${x.pathname}, ${x.status}) after the grant at #${g.seq}, so it was active then: with the others accepted after that grant, ${g.active.size} of its tokens were active at once, above its customer's maxActiveTokensAllowed ${g.max}; a grant at the limit should have been declined, or an earlier token refused from then on`,
      );
    }
  }

  /** A grant under a known quota: followed against the tokens accepted afterwards. */
  private granted(clientId: string, value: string, x: ObservedExchange, max: number): void {
    this.tally(QUOTA_SHOWN_RULE.id).opportunities += 1;
    const grants = this.grants.get(clientId) ?? [];
    grants.push({ at: x.at, seq: x.seq, max, active: new Set([value]), broken: false });
    if (grants.length > GRANTS_PER_CLIENT) grants.shift();
    boundedSet(this.grants, clientId, grants, CLIENTS_KEPT);
  }

  private configuration(x: ObservedExchange): void {
    if (x.status < 200 || x.status >= 300) return;
    const match = customerOf(x.pathname);
    if (!match) return;
    const customer = decodeURIComponent(match[1] as string);
    const body = parseJson(x.body);
    if (x.operation === "putClients") {
      if (Array.isArray(body))
        for (const c of body)
          if (isObject(c) && typeof c.clientId === "string") {
            boundedSet(this.customerOfClient, c.clientId, customer, CUSTOMERS_KEPT);
            this.validityWritten(x, c.clientId, c.accessTokenValidity);
            if (typeof c.accessTokenValidity === "number")
              this.longestValidityMs = Math.max(this.longestValidityMs, c.accessTokenValidity * 1000);
          }
      return;
    }
    if (!isObject(body)) return;
    if (Array.isArray(body.applicationClients))
      for (const id of body.applicationClients)
        if (typeof id === "string") boundedSet(this.customerOfClient, id, customer, CUSTOMERS_KEPT);
    const config = isObject(body.multitokenConfig)
      ? body.multitokenConfig.clientCredentialsMultiTokenConfig
      : undefined;
    const max = isObject(config) ? config.maxActiveTokensAllowed : undefined;
    // Without multitokenConfig, whether PUT and POST replace or merge is not shown: the quota is unknown.
    if (typeof max === "number" && Number.isInteger(max) && max >= 1 && max <= 200)
      boundedSet(this.quotas, customer, { max, seq: x.seq, end: x.at + (x.durationMs ?? 0) }, CUSTOMERS_KEPT);
    else this.quotas.delete(customer);
    // Off only where PUT (which replaces) wrote none (or null) and the stored customer it answers shows none.
    const stored = parseJson(x.responseBody);
    if (
      x.operation === "putCustomer" &&
      (body.multitokenConfig ?? undefined) === undefined &&
      isObject(stored) &&
      Array.isArray(stored.applicationClients) &&
      (stored.multitokenConfig ?? undefined) === undefined
    )
      boundedSet(this.offSince, customer, x.at + (x.durationMs ?? 0), CUSTOMERS_KEPT);
    else this.offSince.delete(customer);
    // On without a quota shown: client-credentials settings written, and the stored customer shows them.
    if (isObject(config) && max === undefined && isObject(stored) && isObject(stored.multitokenConfig))
      boundedSet(this.onSince, customer, x.at + (x.durationMs ?? 0), CUSTOMERS_KEPT);
    else this.onSince.delete(customer);
  }

  private tokenRequest(x: ObservedExchange, tokens: TokenTable): void {
    const clientId = x.clientId;
    const answer = x.status >= 200 && x.status < 300 ? parseJson(x.responseBody) : undefined;
    const value =
      isObject(answer) && typeof answer.access_token === "string" ? answer.access_token : undefined;
    const granted = value !== undefined && !/\[redacted\]/i.test(value);
    const customer = clientId === undefined ? undefined : this.customerOfClient.get(clientId);
    const quota = customer === undefined ? undefined : this.quotas.get(customer);
    const tally = this.tally(QUOTA_RULE.id);
    if (value !== undefined && (!granted || clientId === undefined)) this.hiddenGrantAt = x.at;
    if (isQuotaRefusal(x)) this.refused(x, clientId, quota);
    if (granted && clientId !== undefined && !this.state.knows(clientId, value as string))
      this.newToken(x, clientId, answer);
    if (granted && clientId !== undefined)
      this.state.granted(
        x,
        clientId,
        value as string,
        isObject(answer) && typeof answer.expires_in === "number" ? answer.expires_in : undefined,
        this.multiToken(clientId, x.at),
      );
    if (quota?.stale) {
      // Whether the quota still holds is not known: nothing decided of this request.
      if (granted && clientId !== undefined) {
        tally.undecide(STALE_QUOTA);
        this.tally(QUOTA_SHOWN_RULE.id).undecide(STALE_QUOTA);
        this.remember(clientId, value as string, answer, x, tokens);
      } else if (!granted) tally.undecide(STALE_QUOTA);
      return;
    }
    if (value !== undefined && !granted) {
      if (this.quotas.size > 0)
        tally.undecide("tokens granted that the recording redacted (their count cannot be followed)");
      return;
    }
    if (clientId === undefined || !granted) {
      // A refusal grants nothing: judged where the quota is known, else nothing to decide.
      if (quota !== undefined) tally.opportunities += 1;
      else if (granted && this.quotas.size > 0) tally.undecide(UNKNOWN_QUOTA);
      return;
    }
    const held = this.issued.get(clientId) ?? new Map<string, number | undefined>();
    let active = 0;
    let maybe = 0;
    const first: string[] = [];
    for (const [token, expiresAt] of held) {
      if (token === value) continue;
      if (expiresAt === undefined) maybe += 1;
      else if (expiresAt > x.at + EXPIRY_SLACK_MS) {
        active += 1;
        if (first.length < 3) first.push(`until ${new Date(expiresAt).toISOString()}`);
      } else held.delete(token);
    }
    // No quota shown for any customer: nothing to judge against (not exercised); some shown, not this
    // client's: undecided.
    if (quota === undefined) {
      if (this.quotas.size > 0) {
        tally.undecide(UNKNOWN_QUOTA);
        this.tally(QUOTA_SHOWN_RULE.id).undecide(UNKNOWN_QUOTA);
      }
    } else if (!held.has(value)) this.granted(clientId, value, x, quota.max);
    if (quota === undefined) {
      // undecided above, or nothing to judge
    } else if (active >= quota.max) {
      tally.opportunities += 1;
      tally.violate(
        x.seq,
        `client ${clientId} was granted a new token while ${active} tokens issued to it were still active (${first.join(", ")}${active > first.length ? ", …" : ""}), at its customer ${customer}'s maxActiveTokensAllowed ${quota.max} (set at #${quota.seq}): the request should have been declined with limit exceeded`,
      );
    } else if (active + maybe >= quota.max) tally.undecide(UNKNOWN_EXPIRY);
    else if (
      this.lastGapAt !== undefined &&
      x.at < this.lastGapAt + (this.longestLifeMs || DEFAULT_LIFETIME_MS) + EXPIRY_SLACK_MS
    )
      tally.undecide(GAP_GRANTS);
    else tally.opportunities += 1;
    this.remember(clientId, value, answer, x, tokens, held);
  }

  /** A refusal for the limit: judged once its end has passed (a grant answered meanwhile may count). */
  private refused(x: ObservedExchange, clientId: string | undefined, quota: Quota | undefined): void {
    const tally = this.tally(REFUSAL_RULE.id);
    if (clientId === undefined) return;
    if (quota === undefined || quota.stale) {
      if (quota !== undefined || this.quotas.size > 0) tally.undecide(REFUSAL_UNKNOWN_QUOTA);
      return;
    }
    const refusal: Refusal = {
      seq: x.seq,
      at: x.at,
      end: x.at + (x.durationMs ?? 0),
      clientId,
      max: quota.max,
      quotaSeq: quota.seq,
    };
    if (tally.wantsEvidence) {
      const captured = tally.evidenceOf(x.seq);
      if (captured !== undefined) refusal.captured = captured;
    }
    this.refusals.push(refusal);
  }

  waiting(interim: boolean): ReadonlyMap<string, ReadonlyMap<string, number>> {
    if (!interim) this.settle(Number.POSITIVE_INFINITY);
    if (this.refusals.length === 0) return new Map();
    const why = "refusals for the limit answered last (a grant answered beside them may follow)";
    return new Map([[REFUSAL_RULE.id, new Map([[why, this.refusals.length]])]]);
  }

  /** The refusals whose end lies before `now`: the client's tokens that may have been active at the
   *  refusal (issued before its end, not surely expired at its start) against the quota. */
  private settle(now: number): void {
    while (this.refusals.length > 0 && (this.refusals[0] as Refusal).end < now)
      this.judgeRefusal(this.refusals.shift() as Refusal);
  }

  private judgeRefusal(r: Refusal): void {
    const tally = this.tally(REFUSAL_RULE.id);
    const life =
      Math.max(this.longestLifeMs || DEFAULT_LIFETIME_MS, this.longestValidityMs) + EXPIRY_SLACK_MS;
    const since = r.at - life;
    const why =
      (this.firstAt ?? r.at) > since
        ? BEFORE_RECORDING
        : this.lastGapAt !== undefined && this.lastGapAt > since
          ? REFUSAL_GAP
          : this.hiddenGrantAt !== undefined && this.hiddenGrantAt > since
            ? HIDDEN_GRANT
            : undefined;
    if (why !== undefined) {
      tally.undecide(why);
      return;
    }
    tally.opportunities += 1;
    let active = 0;
    for (const until of this.lastsUntil.get(r.clientId)?.values() ?? [])
      if (until === undefined || until > r.at) active += 1;
    if (active < r.max)
      tally.violate(
        r.seq,
        `client ${r.clientId}'s token request was declined for the limit while at most ${active} of its tokens the traffic saw issued could still be active (the others expired by their expires_in), below its customer's maxActiveTokensAllowed ${r.max} (set at #${r.quotaSeq}): a new token should have been issued`,
        r.captured,
      );
  }

  /** A token granted: held with its expiry among the client's, for the grants after it. */
  private remember(
    clientId: string,
    value: string,
    answer: unknown,
    x: ObservedExchange,
    tokens: TokenTable,
    held = this.issued.get(clientId) ?? new Map<string, number | undefined>(),
  ): void {
    const expiresIn =
      isObject(answer) && typeof answer.expires_in === "number" ? answer.expires_in : undefined;
    if (expiresIn !== undefined) this.longestLifeMs = Math.max(this.longestLifeMs, expiresIn * 1000);
    held.set(
      value,
      expiresIn === undefined ? undefined : (tokens(value)?.issuedAt ?? x.at) + expiresIn * 1000,
    );
    if (held.size > TOKENS_PER_CLIENT) held.delete(held.keys().next().value as string);
    boundedSet(this.issued, clientId, held, CLIENTS_KEPT);
    // The latest it may be active: expires_in is whole seconds, counted from the answer at the latest.
    const lasts = this.lastsUntil.get(clientId) ?? new Map<string, number | undefined>();
    const answeredAt = x.at + (x.durationMs ?? 0);
    const until = expiresIn === undefined ? undefined : answeredAt + expiresIn * 1000 + EXPIRY_SLACK_MS;
    lasts.delete(value);
    lasts.set(value, until);
    // Expired before this grant and before every refusal still waiting: no refusal can count it again.
    const horizon = Math.min(x.at, this.refusals[0]?.at ?? x.at) - EXPIRY_SLACK_MS;
    for (const [token, end] of lasts) if (end !== undefined && end <= horizon) lasts.delete(token);
    if (lasts.size > TOKENS_PER_CLIENT) lasts.delete(lasts.keys().next().value as string);
    boundedSet(this.lastsUntil, clientId, lasts, CLIENTS_KEPT);
  }
}
