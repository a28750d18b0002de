// The judge of recorded or live traffic, fed one exchange at a time (lckit judge reads a file into it,
// lckit proxy the exchanges it forwards) in memory bounded whatever the traffic's length:
//   - a short reorder buffer puts exchanges in time order (a HAR's entries are nearly so already);
//   - the service rules keep state per open scroll only (service-rules.ts), bounded in number;
//   - the caller rules read each client's exchanges in windows (caller-windows.ts), bodies slimmed to what
//     they read; clients with exchanges held are bounded in number, the least recently active judged and
//     let go;
//   - tokens (owner and expiry) are tracked up to a bound, the oldest forgotten (their later use is then
//     unattributed and its expiry undecided, said in the report);
//   - a finding keeps its evidence (bodies cut) only for the first few of each rule;
//   - what was judged when, per party and rule, is counted in a fixed number of buckets of the traffic's
//     time (traffic-timeline.ts).
// The result is a RunResult whose checks each name their party: suite "service", or "client <id>".
import type { Exchange } from "../check/index.ts";
import { loadContract, operationCalled } from "../contract/index.ts";
import { DEFAULT_LABELS_KEPT, Pseudonyms, type SecretKind } from "../redaction/pseudonyms.ts";
import { formValue, labelSecrets, REDACTED, Redactor } from "../redaction/redact.ts";
import { assembleRunResult } from "../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../result/catalogue-view.ts";
import type { CheckResult, RunResult } from "../result/model.ts";
import { CALLER_RULES } from "../rules/caller/caller-rules.ts";
import { bearerOf, type IssuedTokenSeen, parseJson, pathOf } from "../rules/caller/traffic.ts";
import { CallerWindows, DEFAULT_WINDOW_LIMITS, type WindowLimits } from "./caller-windows.ts";
import type { ReadExchange } from "./recorded-entry.ts";
import type { ClientAccess } from "./roles.ts";
import {
  DEFAULT_SERVICE_LIMITS,
  type ObservedExchange,
  ServiceJudge,
  type ServiceLimits,
  serviceRules,
} from "./service-rules.ts";
import type { Finding, TrafficVerdict } from "./tally.ts";
import { type Moment, TimelineRecorder } from "./traffic-timeline.ts";

/** What lckit proxy counts beside the exchanges it judges (proxy.ts fills it). */
export interface ProxyCounts {
  forwarded: number;
  upstreamTimedOut: number;
  upstreamReset: number;
  malformedRequests: number;
  clientAborted: number;
  firstFailures: string[];
  /** Exchanges forwarded but not judged: the judge's queue was full (judge-thread.ts). */
  notJudged?: number;
}

/** Bodies a finding's evidence keeps (the run's evidence keeps as much). */
const EVIDENCE_BODY_CHARS = 4096;
const SCANS = new Set(["scanLookups", "scanAutopilotStats", "scanAutopilotStatsByType"]);
/** Exchanges whose time is remembered by seq, for a finding counted after its exchange (a scroll's). */
const MOMENTS = 1 << 16;

export interface TrafficLimits extends ServiceLimits, WindowLimits {
  /** Exchanges held to put the traffic in time order. */
  reorder: number;
  /** Clients whose exchanges are held in a window at once. */
  maxClients: number;
  /** Tokens whose owner and expiry are remembered. */
  maxTokens: number;
  /** Secrets whose label the report uses are remembered (the least recently met forgotten past it). */
  maxLabels: number;
}

export const DEFAULT_TRAFFIC_LIMITS: TrafficLimits = {
  ...DEFAULT_SERVICE_LIMITS,
  ...DEFAULT_WINDOW_LIMITS,
  reorder: 256,
  maxClients: 256,
  maxTokens: 100_000,
  maxLabels: DEFAULT_LABELS_KEPT,
};

export interface TrafficJudgeOptions {
  excludeClients?: readonly string[];
  excludeTenants?: readonly string[];
  /** Secrets to keep out of the report besides every token and credential the traffic shows. */
  secrets?: readonly string[];
  limits?: Partial<TrafficLimits>;
  /** What is known of clients' roles and tenant lists (--roles, the target file), by client id. */
  access?: ReadonlyMap<string, ClientAccess>;
}

export interface TrafficReportOptions {
  /** The file, "-" or the proxy's address the traffic came from. */
  source: string;
  /** The command line, as the report records it. */
  command?: string;
  startedAt: Date;
  catalogue?: CatalogueView;
  /** Entries that were not exchanges, counted, with the first why. */
  skipped?: { count: number; first?: string };
  /** A running proxy's report keeps one run id, so each report it writes replaces the one before. */
  runId?: string;
  /** What a proxy saw that is no exchange of the service (upstream failures, garbage): no party's fault. */
  proxy?: ProxyCounts;
  /** The traffic goes on after this report (a running proxy's, every --report-every): what waits for
   *  later exchanges to be decided is said undecided, not decided as if the traffic had ended. */
  interim?: boolean;
}

export interface Judgement {
  result: RunResult;
  /** The parties judged: "service", then "client <id>" per client seen. */
  parties: string[];
}

const hidden = (value: string | undefined) => value?.includes(REDACTED) === true;

/** An exchange waiting in the reorder buffer (one without a time has the time of the one before), or a gap:
 *  `gap` exchanges forwarded and not judged from time `at` (a proxy's full judge queue). */
type Pending = (ReadExchange & { untimed?: true; gap?: undefined }) | Gap;
interface Gap {
  gap: number;
  at: number;
  until: number;
  untimed?: true;
}

const momentOf = (x: { at: number; untimed?: true }): Moment => (x.untimed ? undefined : x.at);

function cut(text: string, chars = EVIDENCE_BODY_CHARS): { body: string; bodyTruncated?: true } {
  return text.length > chars ? { body: text.slice(0, chars), bodyTruncated: true } : { body: text };
}

/** What the caller rules read of a page (its scrollId and how many records), not the records. */
function slimPage(x: ObservedExchange): string | undefined {
  if (x.status < 200 || x.status >= 300) return undefined;
  if (!(SCANS.has(x.operation ?? "") || x.operation === "listBlockedValues")) return undefined;
  const body = parseJson(x.responseBody);
  const zeros = (n: number) => new Array<number>(n).fill(0);
  if (Array.isArray(body)) return JSON.stringify(zeros(body.length));
  if (typeof body === "object" && body !== null) {
    const { scrollId, values } = body as { scrollId?: unknown; values?: unknown };
    return JSON.stringify({
      ...(scrollId === undefined ? {} : { scrollId }),
      ...(Array.isArray(values) ? { values: zeros(values.length) } : {}),
    });
  }
  return undefined;
}

/** An exchange a window holds: the response body slimmed, and what evidence would show of it. */
interface HeldExchange extends ObservedExchange {
  evidenceBody?: string;
}

/** The secrets one exchange carries: a token sent or issued, a client secret, a Basic pair. */
function secretsOf(x: ObservedExchange): string[] {
  const out: string[] = [];
  if (x.bearer !== undefined && !hidden(x.bearer)) out.push(x.bearer);
  const basic = /^basic\s+(\S+)/i.exec(x.headers.authorization ?? "");
  if (basic) out.push(basic[1] as string);
  if (x.operation === "issueToken") {
    const secret = new URLSearchParams(x.body ?? "").get("client_secret");
    if (secret) out.push(secret);
    const answer = parseJson(x.responseBody) as { access_token?: unknown } | undefined;
    if (typeof answer?.access_token === "string") out.push(answer.access_token);
  }
  return out;
}

function evidenceOf(x: HeldExchange): { evidence: Exchange; secrets: string[] } {
  const request = x.body === undefined ? undefined : cut(x.body);
  const response = cut(x.evidenceBody ?? x.responseBody);
  return {
    evidence: {
      id: x.seq,
      request: {
        method: x.method,
        url: x.url,
        headers: x.headers,
        ...(request ? { body: request.body, ...(request.bodyTruncated ? { bodyTruncated: true } : {}) } : {}),
      },
      response: {
        status: x.status,
        headers: x.responseHeaders,
        body: response.body,
        ...(response.bodyTruncated ? { bodyTruncated: true } : {}),
      },
      ...(x.noAnswer ? { error: "no answer came (the recording's status 0)" } : {}),
      durationMs: Math.round(x.durationMs),
    },
    secrets: secretsOf(x),
  };
}

export class TrafficJudge {
  private readonly limits: TrafficLimits;
  private readonly pending: Pending[] = [];
  private readonly timeline = new TimelineRecorder();
  /** The times of the last MOMENTS exchanges by seq (NaN: none). */
  private readonly moments = new Float64Array(MOMENTS);
  private readonly tokens = new Map<string, IssuedTokenSeen>();
  /** Each secret's label in the report, given in the order the traffic shows them (labelSecrets), as the
   *  proxy's recording and a client check's exchanges give theirs: one token followed across findings and
   *  files. Labels the traffic already carries (a recording of the kit's) stay themselves. */
  readonly labels: Pseudonyms;
  private readonly operations = new Map<string, string | undefined>();
  private readonly service: ServiceJudge;
  /** Every client judged, by id (their tallies are small); `active` holds those with exchanges held. */
  private readonly clients = new Map<string, CallerWindows>();
  private readonly active = new Map<string, CallerWindows>();
  private readonly excludedClients: Set<string>;
  private readonly excludedTenants: Set<string>;
  private current: ObservedExchange | undefined;
  private seq = 0;
  private lastAt = 0;
  /** Counts the report states. */
  read = 0;
  judged = 0;
  private untimed = 0;
  private unattributed = 0;
  private forgottenTokens = 0;
  private releasedClients = 0;
  private outOfOrder = 0;
  /** Exchanges not judged (gap()), in how many gaps, from when to when. */
  private notJudged = 0;
  private gaps = 0;
  private gapFrom: number | undefined;
  private gapUntil: number | undefined;
  /** The most exchanges held at once (the reorder buffer and every client's window). */
  peakRetained = 0;

  constructor(private readonly options: TrafficJudgeOptions = {}) {
    this.limits = { ...DEFAULT_TRAFFIC_LIMITS, ...options.limits };
    this.labels = new Pseudonyms(this.limits.maxLabels);
    this.excludedClients = new Set(options.excludeClients ?? []);
    this.excludedTenants = new Set(options.excludeTenants ?? []);
    // A service finding is always at the exchange being judged, or captured by its rule beforehand.
    this.service = new ServiceJudge(
      (seq) => (this.current?.seq === seq ? evidenceOf(this.current) : undefined),
      this.limits,
      options.access,
      (ruleId) => ({
        opportunities: (n) => this.timeline.count("service", ruleId, "opportunities", this.now(), n),
        finding: (seq) => this.timeline.count("service", ruleId, "findings", this.momentAt(seq)),
      }),
    );
  }

  /** Exchanges held now: the reorder buffer and the clients' windows. */
  get retained(): number {
    let n = this.pending.length;
    for (const c of this.active.values()) n += c.retained;
    return n;
  }

  /** The time of the exchange being judged (or of the last one judged). */
  private now(): Moment {
    return this.current === undefined ? this.lastAt : momentOf(this.current);
  }

  /** The time of exchange `seq`, if still remembered; else the time of the one being judged. */
  private momentAt(seq: number): Moment {
    if (seq < this.seq && seq >= this.seq - MOMENTS) {
      const at = this.moments[seq % MOMENTS] as number;
      return Number.isNaN(at) ? undefined : at;
    }
    return this.now();
  }

  /** One more exchange of the traffic, in the order recorded. */
  add(x: ReadExchange): void {
    this.read += 1;
    // In the order given (the recording's), not the reorder buffer's: the labels match the recording's.
    labelSecrets(this.labels, x);
    if (x.at === undefined) this.untimed += 1;
    const at = x.at ?? this.lastAt;
    this.enqueue({ ...x, at, ...(x.at === undefined ? { untimed: true as const } : {}) });
    this.peakRetained = Math.max(this.peakRetained, this.retained);
  }

  /** Into the reorder buffer by time (stable: the buffer is short and nearly sorted, so from the end); the
   *  oldest is judged once the buffer is over its bound. */
  private enqueue(entry: Pending): void {
    let i = this.pending.length;
    while (i > 0 && ((this.pending[i - 1] as Pending).at as number) > (entry.at as number)) i -= 1;
    this.pending.splice(i, 0, entry);
    if (this.pending.length > this.limits.reorder) this.process(this.pending.shift() as Pending);
  }

  /** `n` exchanges forwarded and not judged, from time `at` until `until` (a proxy's full judge queue):
   *  placed in time order among the others, and said to every rule that follows state across exchanges,
   *  service and clients alike (whose they were is not known), which undecides what they could change.
   *  `secrets`: those the exchanges showed, in the order met, labelled now as add() labels an exchange's
   *  (the proxy's recording labelled them: the labels stay in step). */
  gap(
    n: number,
    at: number = this.lastAt,
    until: number = at,
    secrets: readonly (readonly [string, SecretKind])[] = [],
  ): void {
    for (const [value, kind] of secrets) this.labels.of(value, kind);
    if (n <= 0) return;
    this.enqueue({ gap: n, at, until });
  }

  private gapped(g: Gap): void {
    this.notJudged += g.gap;
    this.gaps += 1;
    this.gapFrom ??= g.at;
    this.gapUntil = Math.max(this.gapUntil ?? g.until, g.until);
    this.lastAt = Math.max(this.lastAt, g.at);
    this.service.gap(g.at);
    for (const windows of this.clients.values()) windows.gap();
  }

  private operationOf(method: string, url: string, pathname: string): string | undefined {
    const key = `${method} ${pathname}`;
    if (this.operations.has(key)) return this.operations.get(key);
    const operation = operationCalled(method, url)?.operationId;
    // Paths with ids in them are many: the cache is bounded, then started again.
    if (this.operations.size >= 50_000) this.operations.clear();
    this.operations.set(key, operation);
    return operation;
  }

  private tenantOf(x: ObservedExchange): string | undefined {
    const contract = loadContract();
    for (const host of ["lookup-data", "platform"] as const) {
      const match = contract.findOperation(host, x.method, x.url);
      if (match) return match.pathParams.tenantId;
    }
    return undefined;
  }

  private process(read: Pending): void {
    if (read.gap !== undefined) {
      this.gapped(read);
      return;
    }
    const at = read.at as number;
    if (at < this.lastAt) this.outOfOrder += 1;
    this.lastAt = Math.max(this.lastAt, at);
    const seq = this.seq++;
    const { pathname, search } = pathOf(read.url);
    const operation = this.operationOf(read.method, read.url, pathname);
    const bearer = bearerOf(read.headers);
    let clientId: string | undefined;
    if (operation === "issueToken") clientId = this.issued(read, seq, at);
    else if (bearer !== undefined && !hidden(bearer)) clientId = this.tokens.get(bearer)?.clientId;
    const x: ObservedExchange = {
      seq,
      at,
      method: read.method,
      url: read.url,
      headers: read.headers,
      body: read.body,
      status: read.status,
      responseHeaders: read.responseHeaders,
      responseBody: read.responseBody,
      durationMs: read.durationMs,
      pathname,
      search,
      operation,
      bearer,
      clientId,
      ...(read.responseCut ? { responseCut: true as const } : {}),
      ...(read.noAnswer ? { noAnswer: true as const } : {}),
      ...(read.untimed ? { untimed: true as const } : {}),
    };
    if (clientId !== undefined && this.excludedClients.has(clientId)) return;
    if (this.excludedTenants.size > 0 && operation !== undefined) {
      const tenant = this.tenantOf(x);
      if (tenant !== undefined && this.excludedTenants.has(tenant)) return;
    }
    if (operation === undefined) return;
    this.judged += 1;
    this.moments[seq % MOMENTS] = read.untimed ? Number.NaN : at;
    this.timeline.exchange(
      clientId === undefined ? ["service"] : ["service", `client ${clientId}`],
      momentOf(x),
    );
    this.current = x;
    this.service.see(x, (token) => this.tokens.get(token));
    this.current = undefined;
    if (clientId === undefined) {
      this.unattributed += 1;
      return;
    }
    this.windowOf(clientId).add(this.held(x));
  }

  /** A token request: the client that asked, and the token it was issued (remembered, bounded). */
  private issued(x: ReadExchange, seq: number, at: number): string | undefined {
    const basic = /^basic\s+(\S+)/i.exec(x.headers.authorization ?? "");
    let clientId: string | undefined;
    if (basic) {
      const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon >= 0) clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
    }
    clientId ??= new URLSearchParams(x.body ?? "").get("client_id") ?? undefined;
    if (clientId === undefined || x.status !== 200) return clientId;
    const answer = parseJson(x.responseBody) as Record<string, unknown> | undefined;
    if (typeof answer?.access_token !== "string" || hidden(answer.access_token)) return clientId;
    const seconds = typeof answer.expires_in === "number" ? answer.expires_in : 3600;
    const token: IssuedTokenSeen = {
      value: answer.access_token,
      seq,
      clientId,
      issuedAt: at,
      expiresAt: at + seconds * 1000,
      answeredAt: at + x.durationMs,
    };
    this.tokens.delete(token.value);
    this.tokens.set(token.value, token);
    if (this.tokens.size > this.limits.maxTokens) {
      this.tokens.delete(this.tokens.keys().next().value as string);
      this.forgottenTokens += 1;
    }
    if (!this.excludedClients.has(clientId)) this.windowOf(clientId).addToken(token);
    return clientId;
  }

  private windowOf(clientId: string): CallerWindows {
    let windows = this.clients.get(clientId);
    if (windows === undefined) {
      const party = `client ${clientId}`;
      windows = new CallerWindows(clientId, evidenceOf, this.limits, CALLER_RULES, {
        bucketOf: (x) => this.timeline.bucketOf(momentOf(x)),
        opportunities: (ruleId, n, x) =>
          this.timeline.count(party, `${ruleId}[${clientId}]`, "opportunities", momentOf(x), n),
        finding: (ruleId, x) => this.timeline.count(party, `${ruleId}[${clientId}]`, "findings", momentOf(x)),
      });
      this.clients.set(clientId, windows);
    }
    // Least recently active last out: the map's order is the order of activity.
    this.active.delete(clientId);
    this.active.set(clientId, windows);
    if (this.active.size > this.limits.maxClients) {
      const [id, oldest] = this.active.entries().next().value as [string, CallerWindows];
      oldest.release();
      this.active.delete(id);
      this.releasedClients += 1;
    }
    return windows;
  }

  /** The exchange as a window holds it: a page's records replaced by their count, bodies cut. */
  private held(x: ObservedExchange): HeldExchange {
    const slim = slimPage(x);
    const evidence = cut(x.responseBody).body;
    return {
      ...x,
      ...(x.body === undefined ? {} : { body: x.body.length > 65_536 ? x.body.slice(0, 65_536) : x.body }),
      responseBody: slim ?? evidence,
      ...(slim === undefined ? {} : { evidenceBody: evidence }),
    };
  }

  /** Judges what the reorder buffer still holds (end of the traffic, or a report of a running proxy). */
  drain(): void {
    for (const x of this.pending.splice(0)) this.process(x);
  }

  /** The judgement of everything seen so far; the judge goes on afterwards (a proxy reports as it runs). */
  judgement(report: TrafficReportOptions): Judgement {
    this.drain();
    const timed = this.untimed === 0;
    const checks: CheckResult[] = [];
    const findings: Finding[] = [];
    const service = this.service.verdicts(report.interim === true);
    for (const rule of serviceRules()) {
      const verdict = service.get(rule.id) as TrafficVerdict;
      findings.push(...verdict.violations);
      const timeBound = rule.id === "service/refuses-expired-token" && !timed;
      checks.push(
        checkOf(
          rule,
          rule.id,
          "service",
          timeBound
            ? {
                kind: "inconclusive",
                why: "the traffic carries no times, so no expiry can be judged",
                opportunities: 0,
              }
            : { kind: "verdict", verdict },
        ),
      );
    }
    const clients = [...this.clients.keys()].filter((c) => !this.excludedClients.has(c)).sort();
    for (const clientId of clients) {
      const verdicts = (this.clients.get(clientId) as CallerWindows).verdicts(report.interim !== true);
      for (const rule of CALLER_RULES) {
        const verdict = verdicts.get(rule.id) as TrafficVerdict;
        findings.push(...verdict.violations);
        // A rule that reads the time between requests cannot decide on traffic without times.
        const untimed = !timed && rule.readsTime === true && verdict.opportunities > 0;
        checks.push(
          checkOf(
            rule,
            `${rule.id}[${clientId}]`,
            `client ${clientId}`,
            untimed
              ? {
                  kind: "inconclusive",
                  why: "the traffic carries no times, so the time between this client's requests cannot be judged",
                  opportunities: verdict.opportunities,
                }
              : { kind: "verdict", verdict },
          ),
        );
      }
    }
    // The redactor learns what the findings' exchanges carried (their tokens, a client's secret); any
    // Authorization value and token field is redacted by its shape besides.
    const redactor = new Redactor({ pseudonyms: true, names: this.labels });
    for (const s of this.options.secrets ?? []) redactor.addSecret(s, "secret");
    for (const f of findings) for (const s of f.secrets ?? []) learnSecret(redactor, s);
    const redacted = checks.map((c) => redactCheck(c, redactor));
    const parties = ["service", ...clients.map((c) => `client ${c}`)];
    const skipped = report.skipped ?? { count: 0 };
    const catalogue = report.catalogue ?? loadCatalogueView();
    const excluded = this.excludedClients.size + this.excludedTenants.size > 0;
    // Scrolls still open show the order rule what the verdict counts of them: drawn, not recorded.
    const open = this.service.openOrder();
    const timeline = this.timeline.snapshot([
      ...open.opportunities.map((seq) => ({
        party: "service",
        check: open.check,
        kind: "opportunities" as const,
        at: this.momentAt(seq),
      })),
      ...open.findings.map((f) => ({
        party: "service",
        check: open.check,
        kind: "findings" as const,
        at: this.momentAt(f.seq),
      })),
    ]);
    const result = assembleRunResult({
      checks: redacted,
      catalogue,
      subject: {
        kind: "traffic",
        source: report.source,
        exchanges: this.read,
        judged: this.judged,
        parties,
        timeline,
        ...(report.proxy === undefined
          ? {}
          : {
              proxy: {
                ...report.proxy,
                firstFailures: report.proxy.firstFailures.map((f) => redactor.text(f)),
              },
            }),
        ...(excluded
          ? {
              excluded: {
                ...(this.excludedClients.size ? { clients: [...this.excludedClients] } : {}),
                ...(this.excludedTenants.size ? { tenants: [...this.excludedTenants] } : {}),
              },
            }
          : {}),
      },
      selection: { suites: parties, checks: [], level: "MAY", allow: ["read"] },
      ...(report.runId === undefined ? {} : { runId: report.runId }),
      command: redactor.text(report.command ?? `lckit judge ${report.source}`),
      startedAt: report.startedAt,
      finishedAt: new Date(),
      requestsSent: this.judged,
      verdictReason: (reason) => {
        const proxy = report.proxy;
        const upstreamFailed = proxy === undefined ? 0 : proxy.upstreamTimedOut + proxy.upstreamReset;
        const proxyNotes =
          proxy === undefined
            ? []
            : [
                ...(upstreamFailed > 0
                  ? [
                      `upstream failed ${upstreamFailed} times (${proxy.upstreamTimedOut} no answer in time: 504; ${proxy.upstreamReset} unreachable or reset: 502), blamed on no party`,
                    ]
                  : []),
                ...(proxy.malformedRequests > 0
                  ? [`${proxy.malformedRequests} requests that were not HTTP refused with 400`]
                  : []),
                ...((proxy.notJudged ?? 0) > 0
                  ? [
                      `${proxy.notJudged} exchanges forwarded but not judged (the judge's queue was full): every rule's verdict leaves them out`,
                    ]
                  : []),
                ...(proxy.clientAborted > 0
                  ? [`${proxy.clientAborted} exchanges left by their client before the answer`]
                  : []),
              ];
        if (this.judged === 0 && proxy !== undefined)
          return [
            `no exchange through the proxy called an operation of the interface (${proxy.forwarded} forwarded): nothing was judged; do the clients call the proxy's URLs?`,
            ...proxyNotes,
          ].join("; ");
        if (this.judged === 0)
          return `no exchange of ${report.source} calls an operation of the interface (${this.read} read${skipped.count > 0 ? `, ${skipped.count} entries skipped: ${skipped.first}` : ""}): nothing was judged; is it the traffic of another API, or were the base URLs' paths rewritten?`;
        const notes = [
          `${this.judged} exchanges of the interface judged of ${this.read} read`,
          ...(this.unattributed > 0
            ? [
                `${this.unattributed} not attributed to a client (no token request of theirs in the traffic, or tokens redacted)`,
              ]
            : []),
          ...(skipped.count > 0 ? [`${skipped.count} entries skipped (${skipped.first})`] : []),
          ...(timed ? [] : ["the traffic carries no times: rules of time are inconclusive"]),
          ...(this.outOfOrder > 0
            ? [`${this.outOfOrder} exchanges came later than the reorder buffer could place them`]
            : []),
          ...(this.forgottenTokens > 0
            ? [`${this.forgottenTokens} tokens forgotten over the bound of ${this.limits.maxTokens} tracked`]
            : []),
          ...(this.notJudged > 0
            ? [
                `${this.notJudged} exchanges not judged (the proxy's judge queue was full) in ${this.gaps} gap${this.gaps === 1 ? "" : "s"} from ${new Date(this.gapFrom as number).toISOString()} to ${new Date(this.gapUntil as number).toISOString()}: what rules follow across them (a scroll, a token's grants, reads compared, a client's scroll or token requests) is undecided there`,
              ]
            : []),
          ...(this.releasedClients > 0
            ? [
                `clients' windows let go ${this.releasedClients} times over the bound of ${this.limits.maxClients} active clients`,
              ]
            : []),
          ...proxyNotes,
        ];
        return `${reason}; ${notes.join("; ")}`;
      },
    });
    return { result, parties };
  }
}

/** A secret a finding's exchange carried: a Basic pair as the credential it is (its secret's label),
 *  any other value as itself. */
function learnSecret(redactor: Redactor, value: string): void {
  const decoded = /^[A-Za-z0-9+/]+=*$/.test(value) ? Buffer.from(value, "base64").toString("utf8") : "";
  const colon = decoded.indexOf(":");
  if (colon > 0 && Buffer.from(decoded, "utf8").toString("base64") === value) {
    const secret = formValue(decoded.slice(colon + 1));
    redactor.addCredential(formValue(decoded.slice(0, colon)), secret);
    redactor.addSecret(value, "secret", secret);
  } else redactor.addSecret(value);
}

function redactExchange(x: Exchange, redactor: Redactor): Exchange {
  return {
    ...x,
    request: {
      ...x.request,
      url: redactor.text(x.request.url),
      headers: redactor.headers(x.request.headers),
      ...(x.request.body === undefined ? {} : { body: redactor.text(x.request.body) }),
    },
    ...(x.response
      ? {
          response: {
            ...x.response,
            headers: redactor.headers(x.response.headers),
            body: redactor.text(x.response.body),
          },
        }
      : {}),
  };
}

function redactCheck(c: CheckResult, redactor: Redactor): CheckResult {
  return {
    ...c,
    ...(c.message === undefined ? {} : { message: redactor.text(c.message) }),
    ...(c.details === undefined
      ? {}
      : {
          details: {
            ...c.details,
            ...(c.details.request
              ? { request: { ...c.details.request, path: redactor.text(c.details.request.path) } }
              : {}),
            ...(c.details.actual === undefined ? {} : { actual: redactor.text(String(c.details.actual)) }),
          },
        }),
    ...(c.evidence === undefined ? {} : { evidence: c.evidence.map((x) => redactExchange(x, redactor)) }),
    ...(c.log === undefined ? {} : { log: c.log.map((l) => redactor.text(l)) }),
  };
}

/** A rule's outcome as one check of the report, blamed on `party` (its suite). */
function checkOf(
  rule: {
    id: string;
    title: string;
    level: CheckResult["level"];
    requirements: readonly string[];
    opportunity: string;
  },
  id: string,
  party: string,
  outcome:
    | { kind: "verdict"; verdict: TrafficVerdict }
    | { kind: "inconclusive"; why: string; opportunities: number },
): CheckResult {
  const base = {
    id,
    suite: party,
    title: rule.title,
    level: rule.level,
    requirements: [...rule.requirements],
    safety: "read" as const,
    durationMs: 0,
  };
  // What an undecided rule saw, the two readings it leaves open, and what traffic would decide it.
  const undecided = (saw: string) => ({
    saw,
    readings: [`${party} kept the rule where the traffic could not show it`, `${party} broke it there`] as [
      string,
      string,
    ],
    decideBy: `traffic that shows ${rule.opportunity}`,
  });
  if (outcome.kind === "inconclusive")
    return {
      ...base,
      status: "inconclusive",
      requests: 0,
      opportunities: outcome.opportunities,
      reason: outcome.why,
      undecided: undecided(outcome.why),
    };
  const { verdict } = outcome;
  const undecidedNote =
    verdict.undecided.count > 0 ? `${verdict.undecided.count} ${verdict.undecided.why}` : undefined;
  if (verdict.violationCount > 0) {
    const evidence = verdict.violations.flatMap((v) => (v.evidence ? [v.evidence] : []));
    const first = verdict.violations[0] as Finding;
    const at = first.evidence;
    return {
      ...base,
      status: "failed",
      requests: 0,
      opportunities: verdict.opportunities,
      message: `${party} at fault: ${verdict.violationCount} of ${verdict.opportunities} opportunit${verdict.opportunities === 1 ? "y" : "ies"} (${rule.opportunity}) broke the rule; first: ${first.message}`,
      ...(at
        ? {
            details: {
              request: { method: at.request.method, path: pathAndQuery(at.request.url) },
              actual: first.message,
            },
          }
        : {}),
      evidence,
      exchangeIds: evidence.map((x) => x.id as number),
      log: [
        ...verdict.violations.map((v) => `#${v.seq} ${v.message}`),
        ...(verdict.violationCount > verdict.violations.length
          ? [`… ${verdict.violationCount - verdict.violations.length} more`]
          : []),
        ...(undecidedNote === undefined ? [] : [`not decided: ${undecidedNote}`]),
      ],
    };
  }
  if (verdict.opportunities > 0)
    return {
      ...base,
      status: "passed",
      requests: 0,
      opportunities: verdict.opportunities,
      ...(undecidedNote === undefined ? {} : { log: [`not decided: ${undecidedNote}`] }),
    };
  if (verdict.undecided.count > 0)
    return {
      ...base,
      status: "inconclusive",
      requests: 0,
      reason: `the traffic could not decide: ${undecidedNote}`,
      undecided: undecided(undecidedNote as string),
    };
  return { ...base, status: "not-exercised", requests: 0, reason: verdict.notExercised };
}

function pathAndQuery(url: string): string {
  const { pathname, search } = pathOf(url);
  return pathname + search;
}
