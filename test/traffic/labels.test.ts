// Pseudonymous labels across the traffic judge's files: the judge's report names each token and client
// secret by the label the proxy's recording and the client check's exchanges.ndjson give it
// (redacted-token-N, redacted-secret-N), never by the secret and never by one placeholder for all, so one
// token is followed across findings and files; and the label tables stay bounded on endless traffic.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactedExchanges } from "../../src/commands/client/result.ts";
import { Pseudonyms } from "../../src/redaction/pseudonyms.ts";
import { readTraffic } from "../../src/rules/caller/traffic.ts";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import { JudgeThread } from "../../src/traffic/judge-thread.ts";
import { exchangeOfEntry, type ReadExchange } from "../../src/traffic/recorded-entry.ts";
import { ExchangeRecording } from "../../src/traffic/recording.ts";
import { TrafficJudge } from "../../src/traffic/traffic-judge.ts";
import { closedAfterEach } from "./proxy-in-process.ts";

const RDM = "https://rdm.example";
const T0 = 1_700_000_000_000;
const SECRET = "s3cret-of-c1-xyz";
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

let seq = 0;
function x(over: Partial<ReadExchange> & Pick<ReadExchange, "url" | "at">): ReadExchange {
  seq += 1;
  return {
    seq,
    method: "POST",
    headers: {},
    status: 200,
    responseHeaders: { "content-type": "application/json" },
    responseBody: "{}",
    durationMs: 1,
    ...over,
  };
}
const tokenRequest = (token: string, at: number, clientId = "c1", secret = SECRET) =>
  x({
    url: `${RDM}/oauth/token`,
    at,
    headers: { authorization: basic(clientId, secret), "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
    responseBody: JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 60 }),
  });
const use = (token: string, at: number, status = 200) =>
  x({
    url: `${RDM}/lookups/acme/_scan`,
    at,
    headers: { authorization: `Bearer ${token}` },
    status,
    responseBody: status === 200 ? '{"values":[]}' : '{"error":"invalid_token"}',
  });

/** Two tokens of one client, each answered 200 past its expiry: two findings of one rule. */
const expiredTwice = () => [
  tokenRequest("tok-first-0123456789", T0),
  tokenRequest("tok-second-0123456789", T0 + 1_000),
  use("tok-first-0123456789", T0 + 120_000),
  use("tok-second-0123456789", T0 + 121_000),
  use("tok-first-0123456789", T0 + 122_000),
];

describe("the judge's report labels tokens and secrets as the recordings do", () => {
  it("names each token by its own label across findings, never the token nor one placeholder for all", () => {
    const { result } = judgeExchanges(expiredTwice(), { source: "t.har" });
    const check = result.checks.find((c) => c.id === "service/refuses-expired-token");
    expect(check?.status).toBe("failed");
    const bearers = (check?.evidence ?? []).map((e) => e.request.headers.authorization);
    // The first and third findings are of one token: one label; the second of another.
    expect(bearers).toEqual([
      "Bearer redacted-token-1",
      "Bearer redacted-token-2",
      "Bearer redacted-token-1",
    ]);
    const text = JSON.stringify(result);
    expect(text).not.toMatch(/tok-first|tok-second|s3cret/);
    expect(text).not.toContain("Bearer [redacted]");
  });

  it("gives the labels the proxy's recording of the same traffic gives, and keeps a recording's labels", () => {
    const file = join(mkdtempSync(join(tmpdir(), "lckit-labels-")), "traffic.ndjson");
    const recording = new ExchangeRecording(file);
    const judge = new TrafficJudge();
    // Another client's token first, so the counters are not trivially in step.
    const traffic = [
      tokenRequest("tok-other-0123456789", T0 - 5_000, "c2", "other-secret-1"),
      ...expiredTwice(),
    ];
    for (const e of traffic) {
      recording.add(e);
      judge.add(e);
    }
    recording.close();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const recorded = lines.map((l, i) => exchangeOfEntry(JSON.parse(l), i) as ReadExchange);
    const labelOf = (i: number) => recorded[i]?.headers.authorization;
    const live = judge.judgement({ source: "proxy", startedAt: new Date() }).result;
    const liveBearers = live.checks
      .find((c) => c.id === "service/refuses-expired-token")
      ?.evidence?.map((e) => e.request.headers.authorization);
    expect(liveBearers).toEqual([labelOf(3), labelOf(4), labelOf(5)]);
    expect(labelOf(3)).toBe("Bearer redacted-token-2");
    // lckit judge on the recording: the labels it carries stay themselves.
    const later = judgeExchanges(recorded, { source: file }).result;
    const laterBearers = later.checks
      .find((c) => c.id === "service/refuses-expired-token")
      ?.evidence?.map((e) => e.request.headers.authorization);
    expect(laterBearers).toEqual(liveBearers);
    // The Basic pair keeps its client id and shows the secret's label.
    const pair = live.checks
      .flatMap((c) => c.evidence ?? [])
      .find((e) => e.request.url.endsWith("/oauth/token"));
    if (pair) {
      const decoded = Buffer.from(
        (pair.request.headers.authorization ?? "").replace(/^Basic /, ""),
        "base64",
      ).toString();
      expect(decoded).toMatch(/^c1:redacted-secret-\d+$/);
    }
  });
});

const opened = closedAfterEach();

describe("the proxy's judge thread with its queue full", () => {
  it("labels the tokens of the exchanges it did not judge, so its report's labels stay the recording's", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "lckit-labels-")), "traffic.ndjson");
    const recording = new ExchangeRecording(file);
    const thread = opened(new JudgeThread({}, { exchanges: 1 }));
    // The proxy's sink: recorded, then handed to the judge. The first token answer finds the queue full.
    const traffic = expiredTwice();
    const [first, dropped, ...rest] = [
      tokenRequest("tok-other-0123456789", T0 - 5_000, "c2", "other-secret-1"),
      ...traffic,
    ] as ReadExchange[];
    for (const e of [first, dropped] as ReadExchange[]) {
      recording.add(e);
      thread.add(e);
    }
    expect(thread.notJudged).toBe(1);
    for (const e of rest) {
      while (thread.backlog > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      recording.add(e);
      thread.add(e);
    }
    recording.close();
    const recorded = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l, i) => exchangeOfEntry(JSON.parse(l), i) as ReadExchange);
    const { result } = await thread.judgement({ source: "proxy", startedAt: new Date() });
    // tok-first's answer was not judged: its uses are undecided; tok-second's use past its expiry is a
    // finding, its token named by the label the recording gives it (not the next label along).
    const bearers = result.checks
      .find((c) => c.id === "service/refuses-expired-token")
      ?.evidence?.map((e) => e.request.headers.authorization);
    expect(bearers).toEqual([recorded[4]?.headers.authorization]);
    expect(recorded[4]?.headers.authorization).toBe("Bearer redacted-token-3");
    expect(recorded[1]?.responseBody).toContain("redacted-token-2");
  }, 30_000);
});

describe("the client check's exchanges.ndjson", () => {
  it("is the recorded exchanges with their times, each token labelled, so lckit judge follows the client", () => {
    const recorded = [
      { ...tokenRequest("tok-first-0123456789", T0), seq: 0, at: T0 },
      { ...use("tok-first-0123456789", T0 + 1_000), seq: 1, at: T0 + 1_000 },
      { ...use("tok-first-0123456789", T0 + 120_000, 401), seq: 2, at: T0 + 120_000 },
    ];
    const traffic = readTraffic(recorded, []);
    const lines = redactedExchanges(traffic, { credentials: [{ clientId: "c1", clientSecret: SECRET }] }).map(
      (e) => JSON.stringify(e),
    );
    const text = lines.join("\n");
    expect(text).not.toMatch(/tok-first|s3cret/);
    expect(text).toContain("Bearer redacted-token-1");
    const read = lines.map((l, i) => exchangeOfEntry(JSON.parse(l), i) as ReadExchange);
    expect(read.map((e) => e.at)).toEqual([T0, T0 + 1_000, T0 + 120_000]);
    const { result, parties } = judgeExchanges(read, { source: "exchanges.ndjson" });
    expect(parties).toEqual(["service", "client c1"]);
    expect(result.checks.find((c) => c.id === "service/refuses-expired-token")?.status).toBe("passed");
  });
});

describe("label tables on an endless day of traffic", () => {
  const N = 300;
  // Tokens and secrets as random as real ones (values sharing long runs would only slow the redactor).
  const random = (s: string) => createHash("sha256").update(s).digest("base64url").slice(0, 24);
  const fresh = (i: number) => [
    tokenRequest(random(`t${i}`), T0 + i * 10, `client-${i}`, random(`s${i}`)),
    x({
      url: `${RDM}/lookups/acme/_scan`,
      at: T0 + i * 10 + 5,
      headers: { authorization: `Bearer ${random(`t${i}`)}` },
      // The service echoes the token bare: only the learnt secret redacts it.
      responseBody: JSON.stringify({ values: [], echo: `seen ${random(`t${i}`)}` }),
    }),
  ];

  it("keeps at most the bound of labels, the least recently met forgotten, never reusing a label", () => {
    const names = new Pseudonyms(3);
    expect(["a1234", "b1234", "c1234"].map((v) => names.of(v, "token"))).toEqual([
      "redacted-token-1",
      "redacted-token-2",
      "redacted-token-3",
    ]);
    names.of("a1234", "token"); // met again: the most recent now
    expect(names.of("d1234", "token")).toBe("redacted-token-4"); // b forgotten
    expect(names.size).toBe(3);
    expect(names.of("a1234", "token")).toBe("redacted-token-1");
    expect(names.of("b1234", "token")).toBe("redacted-token-5");
    expect(names.of("redacted-token-2", "token")).toBe("redacted-token-2");
  });

  it("the proxy's recording and the judge stay within their bounds however many tokens pass", () => {
    const file = join(mkdtempSync(join(tmpdir(), "lckit-labels-")), "traffic.ndjson");
    const recording = new ExchangeRecording(file, [], { labels: 100, secrets: 50 });
    const judge = new TrafficJudge({ limits: { maxLabels: 100 } });
    let peakLabels = 0;
    let peakSecrets = 0;
    let peakJudge = 0;
    for (let i = 0; i < N; i++)
      for (const e of fresh(i)) {
        recording.add(e);
        judge.add(e);
        peakLabels = Math.max(peakLabels, recording.labels.size);
        peakSecrets = Math.max(peakSecrets, recording.secretsKnown);
        peakJudge = Math.max(peakJudge, judge.labels.size);
      }
    recording.close();
    expect(peakLabels).toBeLessThanOrEqual(100);
    expect(peakSecrets).toBeLessThanOrEqual(8 * 50);
    expect(peakJudge).toBeLessThanOrEqual(100);
    expect(recording.labels.forgotten).toBeGreaterThan(N);
    // Bounded, and still no secret: the recent tokens' bare echoes are redacted, the rest by field and scheme.
    const text = readFileSync(file, "utf8");
    for (let i = 0; i < N; i++) expect(text).not.toContain(random(`s${i}`));
    for (let i = N - 20; i < N; i++) expect(text).not.toContain(random(`t${i}`));
    expect(text).toContain(`redacted-token-${N}`);
  });
});
