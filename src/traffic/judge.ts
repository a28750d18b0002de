// lckit judge as a library: recorded traffic (HAR or NDJSON, streamed) read into the kit's exchange model,
// judged by the service rules (service-rules.ts) and, per client, by the caller rules the client check
// uses, and returned as a RunResult whose checks each name their party: suite "service", or
// "client <id>" for a client known from its token requests and the tokens it then sent. A failed check's
// evidence is the redacted exchanges at fault; every report renders a curl line from them.
import type { Exchange } from "../check/index.ts";
import { loadContract } from "../contract/index.ts";
import { REDACTED, Redactor } from "../redaction/redact.ts";
import type { RecordedExchange } from "../reference/index.ts";
import { assembleRunResult } from "../result/assemble.ts";
import { type CatalogueView, loadCatalogueView } from "../result/catalogue-view.ts";
import type { CheckResult, RunResult } from "../result/model.ts";
import { CALLER_RULES, type RuleVerdict } from "../rules/caller/caller-rules.ts";
import { readTraffic, type Traffic } from "../rules/caller/traffic.ts";
import { type RawEntry, rawEntries, type TrafficFormat, TrafficInputError } from "./har-stream.ts";
import { exchangeOfEntry, type ReadExchange } from "./recorded-entry.ts";
import {
  type ObservedExchange,
  type ObservedTraffic,
  type ServiceVerdict,
  serviceRules,
} from "./service-rules.ts";

/** Exchanges kept for judging at most: past it the rest are counted and said, never judged in part. */
export const MAX_KEPT = 1_000_000;
const EVIDENCE_PER_RULE = 5;
const LOG_PER_RULE = 20;
const EVIDENCE_BODY_CHARS = 4096;
/** Caller rules that read the time between requests: on traffic without times they cannot decide. */
const TIMED_CALLER_RULES = new Set([
  "client/token-reuse",
  "client/token-quota",
  "client/token-dropped-when-over",
  "client/backoff-after-refusal",
]);

export interface JudgeOptions {
  /** A file path, or "-" for stdin. */
  source: string;
  format?: TrafficFormat;
  stdin?: NodeJS.ReadableStream;
  excludeClients?: readonly string[];
  excludeTenants?: readonly string[];
  /** Secrets to keep out of the report besides every token and credential the traffic shows. */
  secrets?: readonly string[];
  catalogue?: CatalogueView;
  /** The command line, as the report records it. */
  command?: string;
  maxKept?: number;
}

export interface ReadTraffic {
  exchanges: ReadExchange[];
  read: number;
  dropped: number;
  /** Entries that were not exchanges (no request method and URL) or too large: counted, with the first why. */
  skipped: { count: number; first?: string };
}

/** Reads every entry of the source, streamed, into exchanges (at most `maxKept`). */
export async function readRecordedTraffic(
  options: Pick<JudgeOptions, "source" | "format" | "stdin" | "maxKept">,
): Promise<ReadTraffic> {
  const max = options.maxKept ?? MAX_KEPT;
  const exchanges: ReadExchange[] = [];
  let read = 0;
  let dropped = 0;
  const skipped: ReadTraffic["skipped"] = { count: 0 };
  const skip = (why: string) => {
    skipped.count += 1;
    skipped.first ??= why;
  };
  const entries: AsyncIterable<RawEntry> = rawEntries(options.source, {
    ...(options.format ? { format: options.format } : {}),
    ...(options.stdin ? { stdin: options.stdin as never } : {}),
  });
  for await (const entry of entries) {
    if ("skipped" in entry) {
      skip(entry.skipped);
      continue;
    }
    const x = exchangeOfEntry(entry.value, entry.index);
    if ("notAnExchange" in x) {
      skip(x.notAnExchange);
      continue;
    }
    read += 1;
    if (exchanges.length >= max) dropped += 1;
    else exchanges.push(x);
  }
  return { exchanges, read, dropped, skipped };
}

/** The tenant a request names in its path (tenantId), when its operation has one. */
function tenantOf(x: ReadExchange): string | undefined {
  const contract = loadContract();
  for (const host of ["lookup-data", "platform"] as const) {
    const match = contract.findOperation(host, x.method, x.url);
    if (match) return match.pathParams.tenantId;
  }
  return undefined;
}

const hidden = (value: string | undefined) => value?.includes(REDACTED) === true;

/** The traffic as both rule sets read it: ordered by time (where every entry has one), clients known from
 *  token requests, tokens a recorder redacted left unattributed (every hidden token looks alike). */
export function observedTraffic(exchanges: readonly ReadExchange[]): {
  traffic: ObservedTraffic;
  timed: boolean;
} {
  const timed = exchanges.every((x) => x.at !== undefined);
  const recorded: RecordedExchange[] = exchanges.map((x, i) => ({ ...x, seq: i, at: x.at ?? i }));
  if (timed) recorded.sort((a, b) => a.at - b.at || a.seq - b.seq);
  recorded.forEach((x, i) => {
    x.seq = i;
  });
  const extra = new Map<number, ReadExchange>();
  recorded.forEach((x) => {
    extra.set(x.seq, x as unknown as ReadExchange);
  });
  const base = readTraffic(recorded, []);
  const traffic: ObservedTraffic = {
    ...base,
    tokens: base.tokens.filter((t) => !hidden(t.value)),
    exchanges: base.exchanges.map((x): ObservedExchange => {
      const read = extra.get(x.seq);
      const unattributable = x.operation !== "issueToken" && hidden(x.bearer);
      return {
        ...x,
        ...(unattributable ? { clientId: undefined } : {}),
        ...(read?.responseCut ? { responseCut: true as const } : {}),
        ...(read?.noAnswer ? { noAnswer: true as const } : {}),
      };
    }),
  };
  return { traffic, timed };
}

/** One client's part of the traffic: its exchanges and the tokens issued to it. */
function trafficOf(traffic: ObservedTraffic, clientId: string): Traffic {
  return {
    exchanges: traffic.exchanges.filter((x) => x.clientId === clientId),
    tokens: traffic.tokens.filter((t) => t.clientId === clientId),
    clients: traffic.clients,
  };
}

function cut(text: string): { body: string; bodyTruncated?: true } {
  return text.length > EVIDENCE_BODY_CHARS
    ? { body: text.slice(0, EVIDENCE_BODY_CHARS), bodyTruncated: true }
    : { body: text };
}

function evidenceOf(x: ObservedExchange, redactor: Redactor): Exchange {
  const request = x.body === undefined ? undefined : cut(redactor.text(x.body));
  const response = cut(redactor.text(x.responseBody));
  return {
    id: x.seq,
    request: {
      method: x.method,
      url: redactor.text(x.url),
      headers: redactor.headers(x.headers),
      ...(request ? { body: request.body, ...(request.bodyTruncated ? { bodyTruncated: true } : {}) } : {}),
    },
    response: {
      status: x.status,
      headers: redactor.headers(x.responseHeaders),
      body: response.body,
      ...(response.bodyTruncated ? { bodyTruncated: true } : {}),
    },
    durationMs: Math.round(x.durationMs),
  };
}

/** A rule's outcome as one check of the report, blamed on `party` (its suite). */
function checkOf(
  rule: { id: string; title: string; level: CheckResult["level"]; requirements: readonly string[] },
  id: string,
  party: string,
  outcome:
    | { kind: "verdict"; verdict: ServiceVerdict }
    | { kind: "inconclusive"; why: string; opportunities: number },
  context: { bySeq: Map<number, ObservedExchange>; redactor: Redactor; ms: number; opportunity: string },
): CheckResult {
  const base = {
    id,
    suite: party,
    title: rule.title,
    level: rule.level,
    requirements: [...rule.requirements],
    safety: "read" as const,
    durationMs: Math.round(context.ms),
  };
  if (outcome.kind === "inconclusive")
    return { ...base, status: "inconclusive", requests: outcome.opportunities, reason: outcome.why };
  const { verdict } = outcome;
  const { redactor, bySeq } = context;
  const undecidedNote =
    verdict.undecided.count > 0 ? `${verdict.undecided.count} ${verdict.undecided.why}` : undefined;
  if (verdict.violations.length > 0) {
    const evidence = verdict.violations
      .slice(0, EVIDENCE_PER_RULE)
      .map((v) => bySeq.get(v.seq))
      .filter((x): x is ObservedExchange => x !== undefined)
      .map((x) => evidenceOf(x, redactor));
    const first = verdict.violations[0] as { seq: number; message: string };
    const at = bySeq.get(first.seq);
    return {
      ...base,
      status: "failed",
      requests: verdict.opportunities,
      message: redactor.text(
        `${party} at fault: ${verdict.violations.length} of ${verdict.opportunities} opportunit${verdict.opportunities === 1 ? "y" : "ies"} (${context.opportunity}) broke the rule; first: ${first.message}`,
      ),
      ...(at
        ? {
            details: {
              request: { method: at.method, path: redactor.text(at.pathname + at.search) },
              actual: redactor.text(first.message),
            },
          }
        : {}),
      evidence,
      exchangeIds: evidence.map((x) => x.id as number),
      log: [
        ...verdict.violations.slice(0, LOG_PER_RULE).map((v) => redactor.text(`#${v.seq} ${v.message}`)),
        ...(undecidedNote === undefined ? [] : [`not decided: ${undecidedNote}`]),
      ],
    };
  }
  if (verdict.opportunities > 0)
    return {
      ...base,
      status: "passed",
      requests: verdict.opportunities,
      ...(undecidedNote === undefined ? {} : { log: [`not decided: ${undecidedNote}`] }),
    };
  if (verdict.undecided.count > 0)
    return {
      ...base,
      status: "inconclusive",
      requests: 0,
      reason: `the traffic could not decide: ${undecidedNote}`,
    };
  return { ...base, status: "not-exercised", requests: 0, reason: verdict.notExercised };
}

function fromCallerVerdict(v: RuleVerdict): ServiceVerdict {
  if (v.status === "not-exercised")
    return { opportunities: 0, violations: [], undecided: { count: 0, why: "" }, notExercised: v.reason };
  return {
    opportunities: v.opportunities,
    violations:
      v.status === "failed" ? v.found.map((f) => ({ seq: f.evidence.seq, message: f.message })) : [],
    undecided: { count: 0, why: "" },
    notExercised: "",
  };
}

export interface Judgement {
  result: RunResult;
  /** The parties judged: "service", then "client <id>" per client seen. */
  parties: string[];
}

/** Judges recorded traffic that is already read (the proxy judges as it goes with the same function). */
export function judgeExchanges(
  read: ReadTraffic,
  options: Omit<JudgeOptions, "stdin" | "format"> & { startedAt?: Date },
): Judgement {
  const startedAt = options.startedAt ?? new Date();
  const excludedClients = new Set(options.excludeClients ?? []);
  const excludedTenants = new Set(options.excludeTenants ?? []);
  const { traffic: all, timed } = observedTraffic(read.exchanges);
  const kept = all.exchanges.filter((x) => {
    if (x.clientId !== undefined && excludedClients.has(x.clientId)) return false;
    if (excludedTenants.size === 0) return true;
    const tenant = tenantOf(x as unknown as ReadExchange);
    return tenant === undefined || !excludedTenants.has(tenant);
  });
  const traffic: ObservedTraffic = {
    ...all,
    exchanges: kept,
    tokens: all.tokens.filter((t) => !excludedClients.has(t.clientId)),
  };
  const interfaceExchanges = traffic.exchanges.filter((x) => x.operation !== undefined).length;
  const redactor = new Redactor();
  for (const s of options.secrets ?? []) redactor.addSecret(s);
  for (const t of all.tokens) redactor.addSecret(t.value);
  for (const x of all.exchanges) {
    // Every credential the traffic carried: a client's secret from a form body, the Basic pair.
    const form = x.operation === "issueToken" ? new URLSearchParams(x.body ?? "") : undefined;
    redactor.addSecret(form?.get("client_secret") ?? undefined);
    const basic = /^basic\s+(\S+)/i.exec(x.headers.authorization ?? "");
    if (basic) redactor.addSecret(basic[1]);
    if (x.bearer !== undefined && !hidden(x.bearer)) redactor.addSecret(x.bearer);
  }
  const bySeq = new Map(traffic.exchanges.map((x) => [x.seq, x]));
  const checks: CheckResult[] = [];
  for (const rule of serviceRules()) {
    const started = performance.now();
    const timeBound = rule.id === "service/refuses-expired-token" && !timed;
    const verdict = timeBound ? undefined : rule.judge(traffic);
    checks.push(
      checkOf(
        rule,
        rule.id,
        "service",
        verdict === undefined
          ? {
              kind: "inconclusive",
              why: "the traffic carries no times, so no expiry can be judged",
              opportunities: 0,
            }
          : { kind: "verdict", verdict },
        { bySeq, redactor, ms: performance.now() - started, opportunity: rule.opportunity },
      ),
    );
  }
  const clients = [
    ...new Set(
      [...traffic.tokens.map((t) => t.clientId), ...traffic.exchanges.map((x) => x.clientId)].filter(
        (c): c is string => c !== undefined,
      ),
    ),
  ].sort();
  for (const clientId of clients) {
    const own = trafficOf(traffic, clientId);
    const party = `client ${clientId}`;
    for (const rule of CALLER_RULES) {
      const started = performance.now();
      const untimed = !timed && TIMED_CALLER_RULES.has(rule.id);
      const verdict = rule.judge(own);
      checks.push(
        checkOf(
          rule,
          `${rule.id}[${clientId}]`,
          party,
          untimed && verdict.status !== "not-exercised"
            ? {
                kind: "inconclusive",
                why: "the traffic carries no times, so the time between this client's requests cannot be judged",
                opportunities: verdict.opportunities,
              }
            : { kind: "verdict", verdict: fromCallerVerdict(verdict) },
          { bySeq, redactor, ms: performance.now() - started, opportunity: rule.opportunity },
        ),
      );
    }
  }
  const unattributed = traffic.exchanges.filter(
    (x) => x.clientId === undefined && x.operation !== undefined,
  ).length;
  const parties = ["service", ...clients.map((c) => `client ${c}`)];
  const finishedAt = new Date();
  const catalogue = options.catalogue ?? loadCatalogueView();
  const result = assembleRunResult({
    checks,
    catalogue,
    subject: {
      kind: "traffic",
      source: options.source,
      exchanges: read.read,
      judged: interfaceExchanges,
      parties,
      ...(excludedClients.size + excludedTenants.size === 0
        ? {}
        : {
            excluded: {
              ...(excludedClients.size ? { clients: [...excludedClients] } : {}),
              ...(excludedTenants.size ? { tenants: [...excludedTenants] } : {}),
            },
          }),
      ...(read.dropped > 0 ? { dropped: read.dropped } : {}),
    },
    selection: { suites: parties, checks: [], level: "MAY", allow: ["read"] },
    seed: 0,
    runs: 1,
    command: redactor.text(options.command ?? `lckit judge ${options.source}`),
    startedAt,
    finishedAt,
    requestsSent: interfaceExchanges,
    verdictReason: (reason) => {
      if (interfaceExchanges === 0)
        return `no exchange of ${options.source} calls an operation of the interface (${read.read} read${read.skipped.count > 0 ? `, ${read.skipped.count} entries skipped: ${read.skipped.first}` : ""}): nothing was judged; is it the traffic of another API, or were the base URLs' paths rewritten?`;
      const notes = [
        `${interfaceExchanges} exchanges of the interface judged of ${read.read} read`,
        ...(unattributed > 0
          ? [
              `${unattributed} not attributed to a client (no token request of theirs in the traffic, or tokens redacted)`,
            ]
          : []),
        ...(read.dropped > 0 ? [`${read.dropped} not judged: over the bound of ${MAX_KEPT} kept`] : []),
        ...(read.skipped.count > 0 ? [`${read.skipped.count} entries skipped (${read.skipped.first})`] : []),
        ...(timed ? [] : ["the traffic carries no times: rules of time are inconclusive"]),
      ];
      return `${reason}; ${notes.join("; ")}`;
    },
  });
  return { result, parties };
}

/** Reads and judges recorded traffic: what `lckit judge` runs. */
export async function judgeTraffic(options: JudgeOptions): Promise<Judgement> {
  const startedAt = new Date();
  const read = await readRecordedTraffic(options);
  if (read.read === 0 && read.skipped.count > 0)
    throw new TrafficInputError(
      `${options.source} holds no exchange: ${read.skipped.count} entries skipped, the first because ${read.skipped.first}`,
    );
  return judgeExchanges(read, { ...options, startedAt });
}
