// The report of a running proxy is written while its traffic goes on (every --report-every): a rule that
// looks ahead (a scroll left: no later page came) cannot decide the latest exchanges at such a report. It
// says them undecided, and the traffic that follows decides them: a scroll continued after the report is
// no finding, and one left later is still found in the final report.
import { describe, expect, it } from "vitest";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";
import { TrafficJudge } from "../../src/traffic/traffic-judge.ts";
import { BASE, exchange, RDM, S, T0, token } from "./timed-traffic.ts";

const RULE = "client/scan-read-to-end[alpha]";

/** A page of alpha's scan: `sent` the scrollId passed (none: a first page), `next` the one answered. */
const page = (at: number, records: string[], sent?: string, next?: string): ReadExchange =>
  exchange({
    url: `${RDM}/lookups/acme/_scan?limit=2`,
    at,
    headers: { authorization: "Bearer tok-alpha", "content-type": "application/json" },
    ...(sent === undefined ? {} : { body: sent }),
    responseBody: JSON.stringify({
      ...(next === undefined ? {} : { scrollId: next }),
      values: records.map((uri) => ({ uri, value: uri })),
    }),
  });

const checkOf = (judge: TrafficJudge, interim: boolean) =>
  judge
    .judgement({ source: "proxy", startedAt: new Date(), ...(interim ? { interim } : {}) })
    .result.checks.find((c) => c.id === RULE);

describe("a running proxy's report and the caller rules that look ahead", () => {
  it("leaves a scroll open at the report undecided, and the traffic after it decides every scroll", () => {
    const judge = new TrafficJudge();
    judge.add(token("alpha", "tok-alpha", T0));
    const first = page(T0 + S, ["a", "b"], undefined, "scroll-A-1");
    judge.add(first);
    // The report while the proxy runs: scroll A may yet be continued.
    const during = checkOf(judge, true);
    expect(during?.status).not.toBe("failed");
    expect(during?.log?.join(" ")).toMatch(
      /not decided: 1 moments that wait for this client's next exchanges/,
    );
    // A is read to its end; B is left after its first page.
    judge.add(page(T0 + 2 * S, ["c"], "scroll-A-1"));
    const left = page(T0 + 3 * S, ["d", "e"], undefined, "scroll-B-1");
    judge.add(left);
    judge.add(exchange({ url: `${RDM}/healthcheck`, method: "GET", at: T0 + 4 * S, headers: {} }));
    const after = checkOf(judge, false);
    expect(after?.status).toBe("failed");
    expect(after?.opportunities).toBe(2);
    expect(after?.log).toEqual([expect.stringMatching(/^#\d+ .*left the scroll after 1 page/)]);
    expect(after?.exchangeIds).toHaveLength(1);
    expect(after?.message).toMatch(/1 of 2 opportunities/);
    expect(after?.message).toMatch(/scroll-B-1/);
  });

  it("a report of traffic that ended decides at once: a scroll left is a finding", () => {
    const judge = new TrafficJudge();
    judge.add(token("alpha", "tok-alpha", T0));
    judge.add(page(T0 + S, ["a", "b"], undefined, "scroll-A-1"));
    const end = checkOf(judge, false);
    expect(end?.status).toBe("failed");
    expect(end?.message).toMatch(/scroll-A-1/);
  });
});

describe("a client let go over the bound of active clients, then active again", () => {
  it("is still judged by the rules that look ahead: a scroll it leaves later is found too", () => {
    const judge = new TrafficJudge({ limits: { maxClients: 1 } });
    judge.add(token("alpha", "tok-alpha", T0));
    judge.add(page(T0 + S, ["a", "b"], undefined, "scroll-A-1"));
    // beta's token request lets alpha go (judged as it stands: scroll A left); alpha comes back with a
    // second scroll, left too, and beta's next token request lets it go again.
    judge.add(token("beta", "tok-beta", T0 + 2 * S));
    judge.add(page(T0 + 3 * S, ["c", "d"], undefined, "scroll-B-1"));
    judge.add(token("beta", "tok-beta-2", T0 + 4 * S));
    const check = checkOf(judge, false);
    expect(check).toMatchObject({ status: "failed", opportunities: 2 });
    expect(check?.log?.filter((l) => /left the scroll/.test(l))).toHaveLength(2);
    expect(check?.message).toMatch(/^client alpha at fault: 2 of 2/);
  });
});

describe("a running proxy's report and a token refusal answered last", () => {
  it("leaves the refusal undecided at the report; a grant answered beside it keeps it within the quota", () => {
    const judge = new TrafficJudge();
    const service = (interim: boolean) =>
      judge
        .judgement({ source: "proxy", startedAt: new Date(), ...(interim ? { interim } : {}) })
        .result.checks.find((c) => c.id === "service/token-granted-below-quota");
    judge.add(exchange({ url: `${RDM}/healthcheck`, method: "GET", at: T0, headers: {} }));
    judge.add(
      exchange({
        method: "PUT",
        url: `${BASE}/oauth/customers/cust-q`,
        at: T0 + 100 * S,
        headers: { authorization: "Bearer tok-admin", "content-type": "application/json" },
        body: JSON.stringify({
          applicationClients: ["q1"],
          multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 2 } },
        }),
        responseBody: "{}",
      }),
    );
    judge.add(token("q1", "tok-q1", T0 + 101 * S, 200, 60));
    judge.add(token("q1", "", T0 + 102 * S, 429));
    expect(service(true)?.status).toBe("inconclusive");
    // Parallel requests: the grant the service answered first was recorded after the refusal.
    judge.add(token("q1", "tok-q2", T0 + 102 * S, 200, 60));
    judge.add(exchange({ url: `${RDM}/healthcheck`, method: "GET", at: T0 + 103 * S, headers: {} }));
    expect(service(false)).toMatchObject({ status: "passed", opportunities: 1 });
  });
});
