// Exchanges the proxy forwarded and did not judge (its judge queue was full): every rule that follows state
// across exchanges says undecided where one of them may have been what it follows, never a false finding
// and never a pass. Each case is judged twice: without the gap said (what the judge made of it before: a
// false finding or a pass), and with it.
import { describe, expect, it } from "vitest";
import { JudgeThread } from "../../src/traffic/judge-thread.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";
import { TrafficJudge } from "../../src/traffic/traffic-judge.ts";
import { closedAfterEach } from "./proxy-in-process.ts";
import { exchange, RDM, T0, token } from "./timed-traffic.ts";

/** A page of a lookups scan by the holder of `value`: the first (no body) or the one `sent` continues. */
const page = (at: number, codes: string[], next: string | undefined, sent?: string, query = "") =>
  exchange({
    url: `${RDM}/lookups/acme/_scan${query}`,
    at,
    headers: { authorization: "Bearer tok-c1" },
    ...(sent === undefined ? {} : { body: JSON.stringify({ scrollId: sent }) }),
    responseBody: JSON.stringify({
      values: codes.map((code) => ({ code, type: "rdm/lookupTypes/Country" })),
      ...(next === undefined ? {} : { scrollId: next }),
    }),
  });

type Step = ReadExchange | { gap: number; at: number };

/** The judgement of `steps`: with the gaps said to the judge, or (`said: false`) left out silently. */
function judged(steps: readonly Step[], said = true) {
  const judge = new TrafficJudge();
  for (const s of steps) {
    if ("gap" in s) {
      if (said) judge.gap(s.gap, s.at);
    } else judge.add(s);
  }
  const { result } = judge.judgement({ source: "proxy", startedAt: new Date(T0) });
  return (id: string) => {
    const check = result.checks.find((c) => c.id === id);
    return {
      status: check?.status,
      text: [check?.message, check?.reason, ...(check?.log ?? [])].join(" "),
      reason: result.verdictReason,
    };
  };
}

const S = 1000;

describe("a scroll whose middle page was not judged", () => {
  // The deployment keeps one scrollId for the whole scroll (the reference does): page 3 continues it.
  const gapped: Step[] = [
    token("c1", "tok-c1", T0),
    page(T0 + 1 * S, ["A", "B"], "s"),
    { gap: 1, at: T0 + 2 * S },
    page(T0 + 3 * S, ["E"], undefined, "s"),
  ];
  const again: Step[] = [
    page(T0 + 10 * S, ["A", "B"], "s2"),
    page(T0 + 11 * S, ["C", "D"], "s2", "s2"),
    page(T0 + 12 * S, ["E"], undefined, "s2"),
  ];

  it("is not judged to hold every record once: undecided, said why", () => {
    expect(judged(gapped, false)("service/scroll-every-record-once").status).toBe("passed");
    const verdict = judged(gapped)("service/scroll-every-record-once");
    expect(verdict).toMatchObject({ status: "inconclusive", text: /not judged/ });
    expect(verdict.reason).toMatch(
      /1 exchanges not judged .* in 1 gap from .*: what rules follow across them/,
    );
  });

  it("read again completely is not a record skipped: the comparison is undecided", () => {
    const before = judged([...gapped, ...again], false)("service/scroll-none-skipped");
    expect(before).toMatchObject({ status: "failed", text: /record Country\/C/ });
    expect(judged([...gapped, ...again])("service/scroll-none-skipped")).toMatchObject({
      status: "inconclusive",
      text: /exchanges not judged between them/,
    });
  });

  it("still shows a record repeated across the gap, and a disorder across it", () => {
    const repeated: Step[] = [
      page(T0 + 1 * S, ["A", "B"], "s"),
      { gap: 1, at: T0 + 2 * S },
      page(T0 + 3 * S, ["B", "E"], undefined, "s"),
    ];
    expect(judged(repeated)("service/scroll-every-record-once").status).toBe("failed");
    const sorted = "?sort=code&order=asc";
    const disorder: Step[] = [
      page(T0 + 1 * S, ["C", "D"], "s", undefined, sorted),
      { gap: 1, at: T0 + 2 * S },
      page(T0 + 3 * S, ["A"], undefined, "s", sorted),
    ];
    expect(judged(disorder)("service/scroll-order-kept").status).toBe("failed");
    const inOrder: Step[] = [
      page(T0 + 1 * S, ["A", "B"], "s", undefined, sorted),
      { gap: 1, at: T0 + 2 * S },
      page(T0 + 3 * S, ["E"], undefined, "s", sorted),
    ];
    expect(judged(inOrder, false)("service/scroll-order-kept").status).toBe("passed");
    expect(judged(inOrder)("service/scroll-order-kept").status).toBe("inconclusive");
  });

  it("a client's next page that continues a page not judged is no finding of the client: undecided", () => {
    // A deployment that gives each page its own scrollId: page 3 passes the id page 2 gave.
    const steps: Step[] = [
      token("c1", "tok-c1", T0),
      page(T0 + 1 * S, ["A", "B"], "s1"),
      { gap: 1, at: T0 + 2 * S },
      page(T0 + 3 * S, ["E"], undefined, "s2"),
    ];
    const rule = "client/scan-passes-previous-scroll-id[c1]";
    expect(judged(steps, false)(rule).status).toBe("failed");
    expect(judged(steps)(rule)).toMatchObject({ status: "inconclusive", text: /not judged/ });
  });
});

/** A write of customer cust-q (client q1) with its quota. */
const quota = (max: number, at: number) =>
  exchange({
    url: "https://auth.example/oauth/customers/cust-q",
    method: "PUT",
    at,
    headers: { authorization: "Bearer tok-admin", "content-type": "application/json" },
    body: JSON.stringify({
      id: "cust-q",
      applicationClients: ["q1"],
      multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: max } },
    }),
    responseBody: "{}",
  });

describe("a token's life with a grant not judged", () => {
  it("a grant after it is not passed below the quota: the dropped grant may be active", () => {
    // q1's first token before any quota; its second granted in the gap; the quota shown after it.
    const steps: Step[] = [
      token("q1", "tok-q1", T0),
      { gap: 1, at: T0 + 2 * S },
      quota(2, T0 + 3 * S),
      token("q1", "tok-q3", T0 + 4 * S),
    ];
    const rule = "service/token-quota-kept";
    expect(judged(steps, false)(rule).status).toBe("passed");
    expect(judged(steps)(rule)).toMatchObject({ status: "inconclusive", text: /within a token's life/ });
  });

  it("a quota set before the gap is not held against later grants: a write in it may have changed it", () => {
    const steps: Step[] = [
      token("q1", "tok-q1", T0),
      quota(1, T0 + 1 * S),
      { gap: 1, at: T0 + 2 * S },
      token("q1", "tok-q2", T0 + 3 * S),
    ];
    const rule = "service/token-quota-kept";
    expect(judged(steps, false)(rule).status).toBe("failed");
    expect(judged(steps)(rule)).toMatchObject({ status: "inconclusive", text: /quota set before/ });
  });

  it("a grant over the quota shown after the gap is a finding still: the tokens seen are a lower bound", () => {
    const steps: Step[] = [
      token("q1", "tok-q1", T0 + 1 * S),
      { gap: 1, at: T0 + 2 * S },
      quota(1, T0 + 3 * S),
      token("q1", "tok-q2", T0 + 4 * S),
    ];
    expect(judged(steps)("service/token-quota-kept").status).toBe("failed");
  });

  it("a grant followed across the gap is undecided, unless the tokens accepted after it break it still", () => {
    const use = (value: string, at: number) =>
      exchange({ url: `${RDM}/lookups/acme/_scan`, at, headers: { authorization: `Bearer ${value}` } });
    const granted: Step[] = [
      quota(2, T0),
      token("q1", "tok-q1", T0 + 1 * S),
      token("q1", "tok-q2", T0 + 2 * S),
    ];
    const rule = "service/active-tokens-within-quota";
    const quiet: Step[] = [...granted, { gap: 1, at: T0 + 3 * S }, use("tok-q1", T0 + 4 * S)];
    expect(judged(quiet, false)(rule).status).toBe("passed");
    expect(judged(quiet)(rule)).toMatchObject({ status: "inconclusive", text: /grants followed across/ });
    // Quota 1 set before both grants: the second grant's follow-up sees both tokens accepted after it.
    const over: Step[] = [
      quota(1, T0),
      token("q1", "tok-q1", T0 + 1 * S),
      token("q1", "tok-q2", T0 + 2 * S),
      { gap: 1, at: T0 + 3 * S },
      use("tok-q1", T0 + 4 * S),
      use("tok-q2", T0 + 5 * S),
    ];
    expect(judged(over)(rule).status).toBe("failed");
  });
});

describe("a refusal, then exchanges not judged, then the same granted", () => {
  it("is no roles finding: a configuration change may be among them", () => {
    const task = (status: number, at: number) =>
      exchange({
        url: `${RDM}/tasks/acme`,
        at,
        headers: { authorization: "Bearer tok-v" },
        body: JSON.stringify({ type: "delete" }),
        status,
        responseBody: status === 202 ? JSON.stringify({ id: "t1", status: "NOT_STARTED" }) : "{}",
      });
    const steps: Step[] = [task(403, T0), { gap: 1, at: T0 + S }, task(202, T0 + 2 * S)];
    expect(judged(steps, false)("service/roles-kept").status).toBe("failed");
    expect(judged(steps)("service/roles-kept").status).not.toBe("failed");
  });
});

const opened = closedAfterEach();

describe("through the proxy's judge thread", () => {
  it("a page its full queue turned away leaves the scroll undecided, said with when", async () => {
    const thread = opened(new JudgeThread({}, { exchanges: 1 }));
    const p1 = page(T0 + 1 * S, ["A", "B"], "s");
    const p2 = page(T0 + 2 * S, ["C", "D"], "s", "s");
    const p3 = page(T0 + 3 * S, ["E"], undefined, "s");
    thread.add(p1);
    // The queue holds p1 until the judge acknowledges it: p2 finds it full.
    thread.add(p2);
    expect(thread.notJudged).toBe(1);
    while (thread.backlog > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    thread.add(p3);
    const { result } = await thread.judgement({ source: "proxy", startedAt: new Date(T0) });
    const once = result.checks.find((c) => c.id === "service/scroll-every-record-once");
    expect(once?.status).toBe("inconclusive");
    expect(result.verdictReason).toMatch(
      new RegExp(`1 exchanges not judged .* in 1 gap from ${new Date(T0 + 2 * S).toISOString()}`),
    );
  }, 30_000);
});
