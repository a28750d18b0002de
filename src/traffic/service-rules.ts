// What the interface document asks of the service, judged on traffic it served to others, one exchange at
// a time as the traffic streams past: every answer against the contract, refusals of requests without a
// token or with one the traffic saw expire, and the scrolls the clients walked (no record twice, order and
// filter kept, no page above its limit). State is kept per open scroll (the record keys it has shown, the
// last sort value) and dropped when the scroll ends; the number of open scrolls is bounded, the oldest
// dropped as undecided. Exchanges not judged (a proxy's full judge queue: gap()) leave every scroll open
// across them and every comparison of reads around them undecided: a page, a repeat or a write may have
// been among them; a repeat or a disorder seen across them is still one. Each rule counts the opportunities it judged; where the traffic cannot decide (a
// scroll abandoned before a repeat could show, a token whose expiry was never observed, a body the
// recorder cut) it says so, never a pass.

import { createHash } from "node:crypto";
import { isObject, loadContract } from "../contract/index.ts";
import { neverIssued } from "../redaction/pseudonyms.ts";
import { scrollIdSent } from "../rules/caller/caller-rules.ts";
import { parseJson } from "../rules/caller/traffic.ts";
import { ConfigurationJudge } from "./configuration.ts";
import { DeleteTaskJudge } from "./delete-task.ts";
import { type ClientAccess, RolesJudge } from "./roles.ts";
import { ScanReads, scanKeyOf } from "./scan-reads.ts";
import {
  GAP_WHY,
  type ObservedExchange,
  type ServiceRule,
  type ServiceRuleJudge,
  type TokenTable,
} from "./service-rule.ts";
import {
  type Capture,
  FINDINGS_PER_RULE,
  type Finding,
  Tally,
  type TallyWatch,
  type TrafficVerdict,
} from "./tally.ts";
import { TokenQuotaJudge } from "./token-quota.ts";

export type { ObservedExchange, ServiceRule, TokenTable } from "./service-rule.ts";

export type ServiceVerdict = TrafficVerdict;

export interface ServiceLimits {
  /** Scrolls followed at once; past it the least recently continued is dropped, undecided. */
  maxOpenScrolls: number;
  /** Record keys remembered per scroll; past it a repeat can no longer be seen: the scroll is undecided. */
  maxKeysPerScroll: number;
}

export const DEFAULT_SERVICE_LIMITS: ServiceLimits = { maxOpenScrolls: 10_000, maxKeysPerScroll: 100_000 };

const SCANS = new Set(["scanLookups", "scanAutopilotStats", "scanAutopilotStatsByType"]);
/** expires_in is whole seconds (RFC 6749 §5.1): the token may live up to a second longer than it says. */
const EXPIRY_ROUNDING_MS = 1_000;
/** The documented default page size (100) and bound; the lookups scan's default is not shown. */
const DEFAULT_LIMIT = 100;

const answered = (x: ObservedExchange) => x.noAnswer !== true;
const ok = (x: ObservedExchange) => x.status >= 200 && x.status < 300;

/** x-requirements of the schemas an operation's responses use, else the operation's own (as the schema
 *  suite traces them). */
function responseRequirements(raw: unknown, own: readonly string[]): string[] {
  const found = new Set<string>();
  const seen = new WeakSet<object>();
  const walk = (node: unknown) => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    const ids = (node as Record<string, unknown>)["x-requirements"];
    if (Array.isArray(ids)) for (const id of ids) if (typeof id === "string") found.add(id);
    for (const value of Object.values(node)) walk(value);
  };
  walk(raw);
  return found.size > 0 ? [...found] : [...own];
}

const contractRuleId = (operationId: string) => `service/contract/${operationId}`;

const RULES = {
  missingToken: {
    id: "service/refuses-missing-token",
    level: "MUST",
    title: "MUST refuse a request without the Authorization header on every endpoint but the token endpoint",
    requirements: ["AUTH-01", "AUTH-02"],
    opportunity: "a request without Authorization",
    notExercised: "every request in the traffic carried an Authorization header",
  },
  malformedToken: {
    id: "service/refuses-malformed-token",
    level: "MUST",
    title:
      "MUST refuse a request whose Authorization is not Bearer and a well-formed token, or a token the recording shows never issued",
    requirements: ["AUTH-03"],
    opportunity:
      "a request with a malformed Authorization value, or a token the kit's own recording labels never issued",
    notExercised:
      "no request in the traffic carried a malformed Authorization value or a token labelled never issued",
  },
  expiredToken: {
    id: "service/refuses-expired-token",
    level: "MUST",
    title: "MUST refuse a request whose bearer token has expired",
    // The token answer's expires_in is its accessTokenValidity: past it the token is expired (the state
    // table) and its use refused (Errors).
    requirements: ["AUTH-04", "TOKEN-STATE-04"],
    opportunity: "a request with a token used past the expiry its token answer gave",
    notExercised:
      "no token was used past its expiry in the traffic (a token's expiry is known from the token answer the traffic holds)",
  },
  everyRecordOnce: {
    id: "service/scroll-every-record-once",
    level: "MUST",
    title: "MUST return no record twice across the pages of one scroll",
    requirements: ["SCAN-04"],
    opportunity: "a scroll the traffic followed past its first page",
    notExercised: "the traffic holds no scroll followed past its first page",
  },
  noneSkipped: {
    id: "service/scroll-none-skipped",
    level: "MUST",
    title:
      "MUST skip no record: two complete reads of one scan with no write between them show the same records",
    requirements: ["SCAN-04"],
    opportunity:
      "two complete reads of the same scan (method, path, query but for limit) with no write observed between them",
    notExercised:
      "the traffic holds no scan read completely twice (first page to end) with no write observed between the reads",
  },
  orderKept: {
    id: "service/scroll-order-kept",
    level: "MUST",
    title: "MUST keep the order sort and order ask for across the pages of a scroll",
    requirements: ["SCAN-06"],
    opportunity: "a scroll asked with sort and order that returned two records or more",
    notExercised: "no scroll in the traffic was asked with both sort and order",
  },
  filterKept: {
    id: "service/scroll-filter-kept",
    level: "MUST",
    title: "MUST return only records whose field holds the value an equals filter names",
    requirements: ["SCAN-07"],
    opportunity: "a scroll asked with an equals(field,'value') filter that returned records",
    notExercised: "no scroll in the traffic was asked with an equals(field,'value') filter",
  },
  pageWithinLimit: {
    id: "service/page-within-limit",
    level: "MUST",
    title:
      "MUST never return more records in a page than the limit asked for, nor more than 100 where the document gives that maximum (the autopilot scans, blocked values)",
    requirements: ["LOOKUP-SCAN-03", "AUTOPILOT-03", "BLOCKED-03"],
    opportunity: "a page of a scan or of blocked values",
    notExercised: "the traffic holds no page of a scan or of blocked values",
  },
} satisfies Record<string, ServiceRule>;

/** Every service rule, in report order: the refusals, roles and quota, the scrolls and limits, reads after
 *  a delete task, then one per operation. */
export function serviceRules(): ServiceRule[] {
  const parts = ruleJudges(() => new Tally("", () => undefined), new Map());
  return [
    ...Object.values(RULES).slice(0, 3),
    ...parts.flatMap((p) => p.rules),
    ...Object.values(RULES).slice(3),
    ...loadContract().operations.map(
      (operation): ServiceRule => ({
        id: contractRuleId(operation.operationId),
        // SHOULD, as the schema suite: the documents hold the kit's choices where the interface is silent.
        level: "SHOULD",
        title: `SHOULD answer ${operation.operationId} (${operation.method} ${operation.path}) as the contract declares: status, content type and body`,
        requirements: responseRequirements(operation.raw.responses, operation.requirements),
        opportunity: `an answer to ${operation.operationId}`,
        notExercised: `the traffic holds no answer to ${operation.operationId}`,
      }),
    ),
  ];
}

/** An Authorization value that cannot be a bearer token: another scheme, none, or characters a token68
 *  cannot hold (a pseudonym keeps that shape: pseudonyms.ts). A redacted value ([redacted]) is a token
 *  the recorder hid, not a malformed one. */
function malformedBearer(value: string): boolean {
  if (/\[redacted\]/i.test(value)) return false;
  const match = /^bearer(?:\s+(.*))?$/i.exec(value.trim());
  if (!match) return !/^bearer\b/i.test(value.trim());
  const credential = match[1] ?? "";
  return !/^[A-Za-z0-9._~+/-]+=*$/.test(credential);
}

type Scalar = string | number | boolean;
const scalar = (v: unknown): v is Scalar =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const codeUnit = (a: Scalar, b: Scalar) => (a === b ? 0 : a < b ? -1 : 1);
const caseless = (a: Scalar, b: Scalar) =>
  typeof a === "string" && typeof b === "string"
    ? codeUnit(a.toLowerCase(), b.toLowerCase())
    : codeUnit(a, b);

/** equals(field,'value') and equals(field,"value"): the document's sample; other grammar is not judged. */
const EQUALS = /^\s*equals\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*$/;

function sameValue(actual: unknown, wanted: string, field: string): boolean {
  if (!scalar(actual)) return false;
  const a = String(actual);
  if (a === wanted || a.toLowerCase() === wanted.toLowerCase()) return true;
  // A lookup type compares by its name: rdm/lookupTypes/Country and Country alike.
  return field === "type" && a.replace(/^.*\//, "") === wanted.replace(/^.*\//, "");
}

/** A record's identity: type and code for a lookup, else the record as a whole (hashed when long, so a
 *  scroll's memory is its number of records, not their size). */
function identityOf(record: unknown): string {
  if (isObject(record) && record.code !== undefined && record.type !== undefined && record.uri === undefined)
    return `${String(record.type).replace(/^.*\//, "")}/${String(record.code)}`;
  const whole = JSON.stringify(record) ?? "undefined";
  return whole.length <= 48 ? whole : `#${createHash("sha1").update(whole).digest("base64")}`;
}

const limitOf = (search: string) => {
  const raw = new URLSearchParams(search).get("limit");
  return raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
};

/** One scroll as followed so far: what its first request asked and what its pages have shown. */
interface OpenScroll {
  scope: string;
  /** The scan it reads (scan-reads.ts) and the writes observed before its first page. */
  scan: string;
  epoch: number;
  limit: number | undefined;
  sort: { field: string; order: "asc" | "desc" } | undefined;
  filter: { field: string; wanted: string } | undefined;
  pages: number;
  /** seq of its last page so far (where the timeline places what an open scroll shows). */
  lastSeq: number;
  /** Record keys shown so far and the page of each; undefined past maxKeysPerScroll. */
  seen: Map<string, number> | undefined;
  /** A repeat (or the key bound) decided every-record-once for this scroll. */
  onceDecided: "repeat" | "over" | undefined;
  previous: Scalar | undefined;
  sortValues: number;
  /** The first code-unit disorder, held until the scroll ends: a violation only if caseless order is
   *  broken too (the document leaves collation open). */
  disorder: { seq: number; message: string; captured?: Pick<Finding, "evidence" | "secrets"> } | undefined;
  caselessBroken: boolean;
  filterCounted: boolean;
  filterBroken: boolean;
  /** Exchanges were not judged while it was open: a page of it may be among them. */
  gapped?: true;
}

const ABANDONED = "scrolls abandoned before their end without a repeat so far";
const DROPPED = "scrolls no longer followed (over the bound of open scrolls, the least recent dropped)";
const OVER_KEYS = "scrolls longer than the record keys kept per scroll";
const GAPPED = `scrolls open across ${GAP_WHY}: a page of theirs may be among them`;

/** The parts of the service judge that each follow one concept of the document across exchanges. */
function ruleJudges(
  tally: (id: string) => Tally,
  access: ReadonlyMap<string, ClientAccess>,
): ServiceRuleJudge[] {
  return [
    new RolesJudge(tally, access),
    new TokenQuotaJudge(tally),
    new DeleteTaskJudge(tally),
    new ConfigurationJudge(tally),
  ];
}

/** The service rules judged one exchange at a time, in traffic order. */
export class ServiceJudge {
  private readonly tallies = new Map<string, Tally>();
  private readonly open = new Map<string, OpenScroll>();
  private unknownTokens = 0;
  private readonly contract = loadContract();
  private readonly parts: ServiceRuleJudge[];
  private readonly reads = new ScanReads(() => this.tally(RULES.noneSkipped.id), SCANS);

  /** `access`: what is known of clients' roles (--roles, the target file); `watch`: told of each rule's
   *  opportunities and findings as they are counted (the timeline). */
  constructor(
    capture: Capture,
    private readonly limits: ServiceLimits = DEFAULT_SERVICE_LIMITS,
    access: ReadonlyMap<string, ClientAccess> = new Map(),
    watch: (ruleId: string) => TallyWatch = () => ({}),
  ) {
    for (const rule of serviceRules())
      this.tallies.set(rule.id, new Tally(rule.notExercised, capture, watch(rule.id)));
    this.parts = ruleJudges((id) => this.tally(id), access);
  }

  private tally(id: string): Tally {
    return this.tallies.get(id) as Tally;
  }

  /** Scrolls followed now (for the bound's test). */
  get openScrolls(): number {
    return this.open.size;
  }

  /** Exchanges not judged, at time `at`: every scroll open now may have lost a page, any write may be
   *  among them, and each part undecides what it follows across them. */
  gap(at: number): void {
    this.reads.gap();
    for (const scroll of this.open.values()) scroll.gapped = true;
    for (const part of this.parts) part.gap?.(at);
  }

  see(x: ObservedExchange, tokens: TokenTable): void {
    if (x.operation === undefined) return;
    // A write may change what a scan shows, answered or not.
    this.reads.see(x);
    if (!answered(x)) {
      for (const part of this.parts) part.unanswered?.(x);
      return;
    }
    this.contractOf(x);
    this.refusals(x, tokens);
    for (const part of this.parts) part.see(x, tokens);
    if (SCANS.has(x.operation)) this.scrollPage(x);
    else if (x.operation === "listBlockedValues") this.blockedValuesPage(x);
  }

  private contractOf(x: ObservedExchange): void {
    const operation = x.operation as string;
    const responses = this.contract.operation(operation).raw.responses;
    // "Rate limits: not shown": a gateway's 429 the operation does not declare is the link's answer.
    if (x.status === 429 && !(isObject(responses) && "429" in responses)) return;
    const tally = this.tally(contractRuleId(operation));
    if (x.responseCut) {
      tally.undecide("answers whose body the recording cut");
      return;
    }
    tally.opportunities += 1;
    const found = this.contract.validateResponse(
      operation,
      x.status,
      x.responseHeaders["content-type"],
      x.responseBody,
    );
    if (found.length > 0)
      tally.violate(
        x.seq,
        `${x.status} to ${x.method} ${x.pathname}: ${found
          .slice(0, 3)
          .map((v) => v.message)
          .join("; ")}`,
      );
  }

  private refusals(x: ObservedExchange, tokens: TokenTable): void {
    const operation = x.operation as string;
    if (!this.contract.operation(operation).requiresBearer) return;
    const value = x.headers.authorization;
    if (value === undefined) {
      const tally = this.tally(RULES.missingToken.id);
      tally.opportunities += 1;
      if (ok(x))
        tally.violate(
          x.seq,
          `${x.method} ${x.pathname} without Authorization was answered ${x.status}, not refused`,
        );
      return;
    }
    const unissued = neverIssued(x.bearer);
    if (unissued || malformedBearer(value)) {
      const tally = this.tally(RULES.malformedToken.id);
      tally.opportunities += 1;
      if (ok(x))
        tally.violate(
          x.seq,
          `${x.method} ${x.pathname} with ${unissued ? `a bearer token never issued (${x.bearer})` : "a malformed Authorization value"} was answered ${x.status}, not refused`,
        );
    }
    if (x.bearer === undefined || unissued || /\[redacted\]/i.test(x.bearer)) return;
    const issued = tokens(x.bearer);
    if (issued === undefined) {
      // Issued before the recording began (or no longer tracked): its expiry was never observed.
      this.unknownTokens += 1;
      return;
    }
    // The token was issued at some moment while its token request was answered (on the recorder's clock,
    // which also timed this request): it has surely expired once its lifetime, rounded up to the second,
    // has passed since the answer came.
    const expiresAt = issued.expiresAt;
    const surelyExpired =
      expiresAt + ((issued.answeredAt ?? issued.issuedAt) - issued.issuedAt) + EXPIRY_ROUNDING_MS;
    if (x.at < surelyExpired) return;
    const tally = this.tally(RULES.expiredToken.id);
    tally.opportunities += 1;
    if (ok(x))
      tally.violate(
        x.seq,
        `${x.method} ${x.pathname} with a token ${Math.round((x.at - expiresAt) / 1000)} s past its expiry was answered ${x.status}, not refused`,
      );
  }

  private blockedValuesPage(x: ObservedExchange): void {
    if (!ok(x) || x.responseCut) return;
    const body = parseJson(x.responseBody);
    if (!Array.isArray(body)) return;
    const bound = Math.min(limitOf(x.search) ?? DEFAULT_LIMIT, DEFAULT_LIMIT);
    const tally = this.tally(RULES.pageWithinLimit.id);
    tally.opportunities += 1;
    if (body.length > bound)
      tally.violate(
        x.seq,
        `${x.method} ${x.pathname}${x.search}: ${body.length} blocked values, above the limit ${bound}`,
      );
  }

  /** A page of a scan: the first of a new scroll, or the next of the open scroll its scrollId names. */
  private scrollPage(x: ObservedExchange): void {
    const page = pageOf(x);
    const sent = scrollIdSent(x.body);
    const scope = `${x.method} ${x.pathname}`;
    let scroll: OpenScroll | undefined;
    if (sent.kind === "none") {
      if (page === undefined) return;
      const query = new URLSearchParams(x.search);
      const field = query.get("sort");
      const order = query.get("order")?.toLowerCase();
      const equals = EQUALS.exec(query.get("filter") ?? "");
      scroll = {
        scope,
        scan: scanKeyOf(x),
        epoch: this.reads.epoch,
        limit: limitOf(x.search),
        // Without order the direction is not shown: not judged.
        sort: field && (order === "asc" || order === "desc") ? { field, order } : undefined,
        filter: equals
          ? { field: equals[1] as string, wanted: (equals[2] ?? equals[3]) as string }
          : undefined,
        pages: 0,
        lastSeq: x.seq,
        seen: new Map(),
        onceDecided: undefined,
        previous: undefined,
        sortValues: 0,
        disorder: undefined,
        caselessBroken: false,
        filterCounted: false,
        filterBroken: false,
      };
    } else if (sent.kind === "id") {
      const key = `${scope} ${sent.id}`;
      scroll = this.open.get(key);
      if (scroll === undefined || page === undefined) return;
      this.open.delete(key);
    } else return;
    this.pageOfScroll(scroll, x, page.values);
    // No scrollId, or an empty page, ends the scroll (deployments do both).
    if (page.scrollId === undefined || page.values.length === 0) this.close(scroll, true, ABANDONED, x);
    else {
      this.open.set(`${scope} ${page.scrollId}`, scroll);
      if (this.open.size > this.limits.maxOpenScrolls) {
        const [oldest, dropped] = this.open.entries().next().value as [string, OpenScroll];
        this.open.delete(oldest);
        this.close(dropped, false, DROPPED);
      }
    }
  }

  private pageOfScroll(scroll: OpenScroll, x: ObservedExchange, values: unknown[]): void {
    const pageIndex = scroll.pages;
    scroll.pages += 1;
    scroll.lastSeq = x.seq;
    // The limit a page answers to: its request's, else its scroll's first request's; the documented
    // default and maximum (100) on the autopilot scans. The lookups scan's default and maximum are the
    // kit's assumption (LOOKUP-SCAN-04, SHOULD, not shown): its page is held to the limit asked only.
    const limit = limitOf(x.search) ?? scroll.limit;
    if (limit !== undefined || x.operation !== "scanLookups") {
      const bound =
        x.operation === "scanLookups" ? (limit as number) : Math.min(limit ?? DEFAULT_LIMIT, DEFAULT_LIMIT);
      const tally = this.tally(RULES.pageWithinLimit.id);
      tally.opportunities += 1;
      if (values.length > bound)
        tally.violate(
          x.seq,
          `${x.method} ${x.pathname}${x.search}: a page of ${values.length} records, above its limit ${bound}`,
        );
    }
    if (scroll.seen !== undefined && scroll.onceDecided === undefined) {
      for (const record of values) {
        const id = identityOf(record);
        const before = scroll.seen.get(id);
        if (before !== undefined && before !== pageIndex) {
          // A repeat decides the scroll whether it ends or not.
          scroll.onceDecided = "repeat";
          const tally = this.tally(RULES.everyRecordOnce.id);
          tally.opportunities += 1;
          tally.violate(
            x.seq,
            `${scroll.scope}: record ${id} came again on page ${pageIndex + 1} of the scroll, after page ${before + 1}`,
          );
          scroll.seen = undefined;
          break;
        }
        scroll.seen.set(id, pageIndex);
      }
      if (scroll.seen !== undefined && scroll.seen.size > this.limits.maxKeysPerScroll) {
        scroll.onceDecided = "over";
        scroll.seen = undefined;
      }
    }
    if (scroll.sort) {
      const { field, order } = scroll.sort;
      const sign = order === "asc" ? 1 : -1;
      for (const record of values) {
        const v = isObject(record) ? record[field] : undefined;
        if (!scalar(v)) continue;
        scroll.sortValues += 1;
        const a = scroll.previous;
        scroll.previous = v;
        if (a === undefined || typeof a !== typeof v) continue;
        if (scroll.disorder === undefined && sign * codeUnit(a, v) > 0) {
          const tally = this.tally(RULES.orderKept.id);
          // Judged when the scroll ends, when this exchange is gone: its evidence is taken now.
          const captured = tally.wantsEvidence ? tally.evidenceOf(x.seq) : undefined;
          scroll.disorder = {
            seq: x.seq,
            message: `${scroll.scope}?sort=${field}&order=${order}: ${JSON.stringify(v)} follows ${JSON.stringify(a)}`,
            ...(captured ? { captured } : {}),
          };
        }
        if (sign * caseless(a, v) > 0) scroll.caselessBroken = true;
      }
    }
    if (scroll.filter && values.length > 0) {
      const { field, wanted } = scroll.filter;
      const tally = this.tally(RULES.filterKept.id);
      if (!scroll.filterCounted) {
        scroll.filterCounted = true;
        tally.opportunities += 1;
      }
      const other = scroll.filterBroken
        ? undefined
        : values.find((r) => !sameValue(isObject(r) ? r[field] : undefined, wanted, field));
      if (other !== undefined) {
        scroll.filterBroken = true;
        tally.violate(
          x.seq,
          `${scroll.scope}?filter=equals(${field},'${wanted}') returned ${identityOf(other)} whose ${field} is ${JSON.stringify(isObject(other) ? other[field] : other)}`,
        );
      }
    }
  }

  /** A scroll leaves the judge: ended, or left (abandoned or dropped) with what it showed so far. */
  private close(scroll: OpenScroll, ended: boolean, why = ABANDONED, x?: ObservedExchange): void {
    if (x !== undefined)
      this.reads.ended(
        scroll.scan,
        ended && scroll.seen !== undefined
          ? { keys: new Set(scroll.seen.keys()), epoch: scroll.epoch }
          : undefined,
        x,
      );
    const once = this.tally(RULES.everyRecordOnce.id);
    if (scroll.onceDecided === "over") once.undecide(OVER_KEYS);
    else if (scroll.onceDecided === undefined) {
      if (!ended) once.undecide(why);
      else if (scroll.gapped) once.undecide(GAPPED);
      else if (scroll.pages >= 2) once.opportunities += 1;
    }
    if (scroll.sort && scroll.sortValues >= 2) {
      const tally = this.tally(RULES.orderKept.id);
      // Code-unit or case-insensitive order alike (the document leaves collation open). A disorder
      // across a gap is one still (the pages between can only have been in between); order kept is not
      // shown by a scroll with pages missing.
      const broken = scroll.disorder !== undefined && scroll.caselessBroken;
      if (scroll.gapped && !broken) tally.undecide(GAPPED);
      else tally.opportunities += 1;
      if (broken && scroll.disorder)
        tally.violate(scroll.disorder.seq, scroll.disorder.message, scroll.disorder.captured);
    }
  }

  /** Every rule's verdict so far; scrolls still open count as abandoned (undecided) in this verdict
   *  without being closed, so a running proxy can report and go on. */
  verdicts(interim = false): Map<string, ServiceVerdict> {
    const waiting = new Map<string, ReadonlyMap<string, number>>();
    for (const part of this.parts)
      for (const [id, why] of part.waiting?.(interim) ?? []) waiting.set(id, why);
    let openUndecided = 0;
    for (const scroll of this.open.values()) if (scroll.onceDecided === undefined) openUndecided += 1;
    const { opportunities: orderOpportunities, findings: orderFindings } = this.openOrder();
    const out = new Map<string, ServiceVerdict>();
    for (const [id, tally] of this.tallies) {
      let pending: Map<string, number> | undefined = waiting.has(id) ? new Map(waiting.get(id)) : undefined;
      if (id === RULES.everyRecordOnce.id && openUndecided > 0)
        pending = new Map([[ABANDONED, openUndecided]]);
      if (id === RULES.expiredToken.id && tally.opportunities === 0 && this.unknownTokens > 0)
        pending = new Map([
          ["requests with tokens whose issue (and so expiry) the traffic never showed", this.unknownTokens],
        ]);
      const verdict = tally.verdict(pending);
      if (id === RULES.orderKept.id) {
        // Open scrolls judged on what they showed so far, without closing them.
        verdict.opportunities += orderOpportunities.length;
        verdict.violationCount += orderFindings.length;
        verdict.violations.push(...orderFindings.slice(0, FINDINGS_PER_RULE - verdict.violations.length));
      }
      out.set(id, verdict);
    }
    return out;
  }
  /** What the open scrolls show of the order rule so far, not yet counted (they have not ended): an
   *  opportunity at each one's last page, a finding at its first disorder. */
  openOrder(): { check: string; opportunities: number[]; findings: Finding[] } {
    const opportunities: number[] = [];
    const findings: Finding[] = [];
    for (const scroll of this.open.values()) {
      if (!scroll.sort || scroll.sortValues < 2) continue;
      const broken = scroll.disorder !== undefined && scroll.caselessBroken;
      // Open across a gap and in order so far: undecided (counted as abandoned when it is left).
      if (scroll.gapped && !broken) continue;
      opportunities.push(scroll.lastSeq);
      if (scroll.disorder && scroll.caselessBroken)
        findings.push({
          seq: scroll.disorder.seq,
          message: scroll.disorder.message,
          ...(scroll.disorder.captured ?? {}),
        });
    }
    return { check: RULES.orderKept.id, opportunities, findings };
  }
}

function pageOf(x: ObservedExchange): { values: unknown[]; scrollId: string | undefined } | undefined {
  if (!ok(x) || x.responseCut) return undefined;
  const body = parseJson(x.responseBody);
  if (!isObject(body) || !Array.isArray(body.values)) return undefined;
  return { values: body.values, scrollId: typeof body.scrollId === "string" ? body.scrollId : undefined };
}
