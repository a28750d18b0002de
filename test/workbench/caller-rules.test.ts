// The caller rules on small recordings: each tolerance (every legal encoding, end signal, parallel scans,
// a waited-out 429) is accepted, each mistake is named. Tables of [name, { given, want }].
import { describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../src/reference/index.ts";
import { CALLER_RULES, scrollIdSent } from "../../src/rules/caller/caller-rules.ts";
import { SCANS_READ_UNDER_EVERY_CHOICE } from "../../src/rules/caller/sweep-difference.ts";
import { type CallerClient, pathOf, readTraffic } from "../../src/rules/caller/traffic.ts";

const BASE = "http://127.0.0.1:1";
const BEARER = { authorization: "Bearer tok-a" };
type Step = Partial<RecordedExchange> & { method: string; path: string };
type RuleStatus = "passed" | "failed" | "not-exercised";

function recording(steps: Step[]): RecordedExchange[] {
  const token: RecordedExchange = {
    seq: 0,
    at: 0,
    method: "POST",
    url: `${BASE}/oauth/token`,
    headers: { authorization: `Basic ${Buffer.from("c1:s1").toString("base64")}` },
    body: "grant_type=client_credentials",
    status: 200,
    responseHeaders: {},
    responseBody: JSON.stringify({ access_token: "tok-a", expires_in: 900 }),
    durationMs: 1,
  };
  return [
    token,
    ...steps.map(({ path, ...step }, i) => ({
      seq: i + 1,
      at: (i + 1) * 10,
      url: `${BASE}${path}`,
      headers: BEARER,
      status: 200,
      responseHeaders: {},
      responseBody: "{}",
      durationMs: 1,
      ...step,
    })),
  ];
}

function judge(
  id: string,
  steps: Step[],
  clients: CallerClient[] = [{ clientId: "c1", multitoken: true, maxActiveTokensAllowed: 5 }],
) {
  const rule = CALLER_RULES.find((r) => r.id === id);
  if (!rule) throw new Error(id);
  return rule.judge(readTraffic(recording(steps), clients));
}

const SCAN = "/lookups/t/_scan?limit=2";
const page = (scrollId?: string | null, values: unknown[] = [{}]) =>
  JSON.stringify({ ...(scrollId === undefined ? {} : { scrollId }), values });

describe("scan rules accept every legal client", () => {
  it.each<[string, Step[]]>([
    [
      "a raw id",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "s1", responseBody: page() },
      ],
    ],
    [
      "a JSON string",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: '"s1"', responseBody: page() },
      ],
    ],
    [
      "an object",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: '{"scrollId":"s1"}', responseBody: page() },
      ],
    ],
    ["a null first body", [{ method: "POST", path: SCAN, body: "null", responseBody: page() }]],
    [
      "following an empty page that still carries the scrollId",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "s1", responseBody: page("s1", []) },
        { method: "POST", path: SCAN, body: "s1", responseBody: page() },
      ],
    ],
    ["stopping at a null scrollId", [{ method: "POST", path: SCAN, responseBody: page(null) }]],
    [
      "two scans of one path at once",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, responseBody: page("s2") },
        { method: "POST", path: SCAN, body: "s1", responseBody: page() },
        { method: "POST", path: SCAN, body: "s2", responseBody: page() },
      ],
    ],
    [
      "abandoning a scroll and starting again",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, responseBody: page() },
      ],
    ],
  ])("%s", (_name, steps) => {
    for (const id of [
      "client/scan-first-request-without-body",
      "client/scan-passes-previous-scroll-id",
      "client/scan-stops-at-end",
    ])
      expect(["passed", "not-exercised"], id).toContain(judge(id, steps).status);
  });
});

describe("a rule passes only on opportunities it judged", () => {
  const SCROLL = "client/scan-passes-previous-scroll-id";
  const END = "client/scan-stops-at-end";

  it("a scan whose answers carry no scrollId gives the scroll and end rules nothing: not exercised, naming how to page", () => {
    const steps: Step[] = [
      { method: "POST", path: SCAN, responseBody: page() },
      { method: "POST", path: SCAN, responseBody: page() },
    ];
    expect(judge("client/scan-first-request-without-body", steps)).toEqual({
      status: "passed",
      opportunities: 2,
    });
    for (const id of [SCROLL, END]) {
      const verdict = judge(id, steps);
      expect(verdict.status).toBe("not-exercised");
      expect(verdict.status === "not-exercised" ? verdict.reason : "").toMatch(
        /give --data with more lookups than your scans' limit, or run with --variants short-pages/,
      );
    }
    const scroll = judge(SCROLL, steps);
    expect(scroll.status === "not-exercised" ? scroll.reason : "").toMatch(
      /^no answer your client got carried a scrollId/,
    );
  });

  it("a client that never passes the scrollId back is not exercised, never passed, and says so", () => {
    const verdict = judge(SCROLL, [
      { method: "POST", path: SCAN, responseBody: page("s1") },
      { method: "POST", path: SCAN, responseBody: page("s2") },
    ]);
    expect(verdict.status).toBe("not-exercised");
    expect(verdict.status === "not-exercised" ? verdict.reason : "").toMatch(
      /2 answers your client got carried a scrollId, but it never asked for a next page/,
    );
  });

  it("counts next-page requests and ends, not the scan requests it looked at", () => {
    const steps: Step[] = [
      { method: "POST", path: SCAN, responseBody: page("s1") },
      { method: "POST", path: SCAN, body: "s1", responseBody: page("s2") },
      { method: "POST", path: SCAN, body: "s2", responseBody: page() },
      { method: "POST", path: SCAN, responseBody: page() },
    ];
    expect(judge(SCROLL, steps)).toEqual({ status: "passed", opportunities: 2 });
    expect(judge(END, steps)).toEqual({ status: "passed", opportunities: 1 });
    expect(judge("client/scan-first-request-without-body", steps)).toEqual({
      status: "passed",
      opportunities: 2,
    });
  });

  it.each([
    ["client/bearer-on-every-request", /no lookup-data or autopilot request/],
    ["client/request-within-contract", /no lookup-data or autopilot request/],
    ["client/delete-task-whole-tenant", /sent no delete task/],
    ["client/delete-task-uris-of-its-tenant", /no delete task with parameters.uris of the documented shape/],
    ["client/token-reuse", /no call while it held a token that had already served one/],
    ["client/backoff-after-refusal", /PUT \$LCKIT_CONTROL_URL\/rate-limit/],
  ])("%s without an opportunity is not exercised: %s", (id, want) => {
    const verdict = judge(id, []);
    expect(verdict.status).toBe("not-exercised");
    expect(verdict.status === "not-exercised" ? verdict.reason : "").toMatch(want);
  });
});

describe("each rule names the mistake", () => {
  it.each<[string, string, Step[], RegExp]>([
    [
      "client/bearer-on-every-request",
      "Basic on a scan",
      [{ method: "POST", path: SCAN, headers: { authorization: "Basic eDp5" } }],
      /with Authorization "Basic \.\.\."/,
    ],
    [
      "client/scan-passes-previous-scroll-id",
      "a scroll id of another scan",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "other", responseBody: "{}" },
      ],
      /passed scrollId "other", not the scrollId the previous answer gave \("s1"\)/,
    ],
    [
      "client/scan-stops-at-end",
      "a null scrollId followed",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "s1", responseBody: page(null) },
        { method: "POST", path: SCAN, body: "s1" },
      ],
      /already answered/,
    ],
    [
      "client/request-within-contract",
      "blocked values limit=101",
      [
        {
          method: "GET",
          path: "/configuration/t/autopilot/Country/blockedValues?limit=101",
          responseBody: "[]",
        },
      ],
      /limit=101; the maximum is 100/,
    ],
    [
      "client/request-within-contract",
      "no type",
      [{ method: "POST", path: "/tasks/t", body: '{"parameters":{}}' }],
      /type is undefined, expected "delete"/,
    ],
    [
      "client/request-within-contract",
      "parameters.uri for uris: the whole tenant would go",
      [
        {
          method: "POST",
          path: "/tasks/shop",
          body: '{"type":"delete","parameters":{"uri":["shop/Country/NOPE"]}}',
        },
      ],
      /carries "parameters\.uri", which the document does not define .*The task as the document reads it: neither type nor uris: deletes all lookups of tenant shop\. Send \{"type": "delete", "parameters": \{"uris": \["shop\/<type_name>\/<code>"\]\}\}/,
    ],
    [
      "client/request-within-contract",
      "uris at the top level",
      [{ method: "POST", path: "/tasks/shop", body: '{"type":"delete","uris":["shop/Country/DE"]}' }],
      /carries "uris", which the document does not define .*neither type nor uris: deletes all lookups of tenant shop/,
    ],
    [
      "client/request-within-contract",
      "an unknown member beside uris",
      [
        {
          method: "POST",
          path: "/tasks/shop",
          body: '{"type":"delete","parameters":{"uris":["shop/Country/DE"],"force":true}}',
        },
      ],
      /carries "parameters\.force".*reads it: uris: deletes the listed lookups/,
    ],
    [
      "client/request-within-contract",
      "a bare type name",
      [{ method: "POST", path: "/tasks/shop", body: '{"type":"delete","parameters":{"type":"Country"}}' }],
      /parameters\.type is "Country", expected a lookup type URI rdm\/lookupTypes\/<type_name> \("rdm\/lookupTypes\/Country"\)/,
    ],
    [
      "client/request-within-contract",
      "a URI without its tenant and type",
      [{ method: "POST", path: "/tasks/shop", body: '{"type":"delete","parameters":{"uris":["DE"]}}' }],
      /parameters\.uris\[0\] is "DE", expected a lookup URI <tenant_id>\/<type_name>\/<code>, e\.g\. "shop\/<type_name>\/<code>"/,
    ],
    [
      "client/delete-task-whole-tenant",
      "no parameters",
      [{ method: "POST", path: "/tasks/shop", body: '{"type":"delete"}' }],
      /neither type nor uris: deletes all lookups of tenant shop\. If that is what you mean, this finding only says so/,
    ],
    [
      "client/delete-task-whole-tenant",
      "an empty uris list",
      [{ method: "POST", path: "/tasks/shop", body: '{"type":"delete","parameters":{"uris":[]}}' }],
      /empty list: the document does not say what an empty list deletes/,
    ],
    [
      "client/delete-task-uris-of-its-tenant",
      "another tenant's lookup",
      [
        {
          method: "POST",
          path: "/tasks/shop",
          body: '{"type":"delete","parameters":{"uris":["shop/Country/DE","acme/Country/FR"]}}',
        },
      ],
      /parameters\.uris\[1\] "acme\/Country\/FR" is a lookup of tenant "acme", but the task is for tenant "shop".*POST \/tasks\/acme/,
    ],
    [
      "client/backoff-after-refusal",
      "a retry 100 ms after Retry-After: 2",
      [
        { method: "GET", path: "/healthcheck", status: 429, responseHeaders: { "retry-after": "2" } },
        { method: "GET", path: "/healthcheck" },
      ],
      /should have waited 2000 ms/,
    ],
  ])("%s: %s", (id, _name, steps, want) => {
    const verdict = judge(id, steps);
    expect(verdict.status).toBe("failed");
    expect(verdict.status === "failed" ? verdict.found[0]?.message : "").toMatch(want);
  });

  it("the lookups scan states no maximum page size: limit=500 there passes, judged on what the document states", () => {
    const verdict = judge("client/request-within-contract", [
      { method: "POST", path: "/lookups/t/_scan?limit=500" },
    ]);
    expect(verdict).toEqual({ status: "passed", opportunities: 1 });
  });

  it("a delete task with parameters null, only a type, uris of its tenant or null members is of the documented shape", () => {
    for (const body of [
      '{"type":"delete","parameters":null}',
      '{"type":"delete","parameters":{"type":"rdm/lookupTypes/Country"}}',
      '{"type":"delete","parameters":{"type":"rdm/lookupTypes/Country","uris":["t/Country/DE"]}}',
      '{"type":"delete","parameters":{"type":null,"uris":["t/Country/DE","t/Country/a/b"]}}',
      '{"type":"delete"}',
    ])
      expect(
        judge("client/request-within-contract", [{ method: "POST", path: "/tasks/t", body }]).status,
        body,
      ).toBe("passed");
    // Scoped deletes are no whole-tenant finding; URIs of the path's tenant no foreign one.
    for (const body of [
      '{"type":"delete","parameters":{"type":"rdm/lookupTypes/Country"}}',
      '{"type":"delete","parameters":{"uris":["t/Country/DE"]}}',
    ]) {
      const steps = [{ method: "POST", path: "/tasks/t", body }];
      expect(judge("client/delete-task-whole-tenant", steps).status, body).toBe("passed");
    }
    expect(
      judge("client/delete-task-uris-of-its-tenant", [
        {
          method: "POST",
          path: "/tasks/t",
          body: '{"type":"delete","parameters":{"uris":["t/Country/DE"]}}',
        },
      ]),
    ).toEqual({ status: "passed", opportunities: 1 });
  });

  it("a body the MUST rule fails is no whole-tenant finding on top: the failure already says what it deletes", () => {
    const steps = [
      {
        method: "POST",
        path: "/tasks/shop",
        body: '{"type":"delete","parameters":{"uri":["shop/Country/NOPE"]}}',
      },
    ];
    expect(judge("client/request-within-contract", steps).status).toBe("failed");
    expect(judge("client/delete-task-whole-tenant", steps).status).toBe("not-exercised");
  });

  it("a retry after the Retry-After passes; a quota refusal under 409 counts as a refusal", () => {
    const waited = judge("client/backoff-after-refusal", [
      { method: "GET", path: "/healthcheck", status: 429, responseHeaders: { "retry-after": "1" } },
      { method: "GET", path: "/healthcheck", at: 1_020 },
    ]);
    expect(waited.status).toBe("passed");
    const quota = judge("client/token-quota", [
      {
        method: "POST",
        path: "/oauth/token",
        headers: { authorization: `Basic ${Buffer.from("c1:s1").toString("base64")}` },
        status: 409,
        responseBody: '{"error":"limit_exceeded","error_description":"Max active tokens limit exceeded"}',
      },
    ]);
    expect(quota.status === "failed" ? quota.found[0]?.message : quota.status).toMatch(
      /ran into its token quota/,
    );
  });

  it("the token quota is not exercised where multi-token support is off and nothing was refused", () => {
    const verdict = judge(
      "client/token-quota",
      [],
      [{ clientId: "c1", multitoken: false, maxActiveTokensAllowed: 5 }],
    );
    expect(verdict.status).toBe("not-exercised");
    expect(verdict.status === "not-exercised" ? verdict.reason : "").toMatch(/multitokenConfig/);
  });
});

describe("token reuse is judged by the pattern, at any quota", () => {
  const BASIC = { authorization: `Basic ${Buffer.from("c1:s1").toString("base64")}` };
  const issue = (token: string, at?: number): Step => ({
    method: "POST",
    path: "/oauth/token",
    headers: BASIC,
    responseBody: JSON.stringify({ access_token: token, expires_in: 900 }),
    ...(at === undefined ? {} : { at }),
  });
  const call = (token: string, extra: Partial<Step> = {}): Step => ({
    method: "GET",
    path: "/healthcheck",
    headers: { authorization: `Bearer ${token}` },
    ...extra,
  });
  const QUOTA_20 = [{ clientId: "c1", multitoken: true, maxActiveTokensAllowed: 20 }];
  const NO_MULTITOKEN = [{ clientId: "c1", multitoken: false }];

  it("a token per call under a quota of 20 is a finding, though the quota was never reached", () => {
    const verdict = judge(
      "client/token-reuse",
      [call("tok-a"), issue("tok-b"), call("tok-b"), issue("tok-c"), call("tok-c")],
      QUOTA_20,
    );
    expect(verdict.status).toBe("failed");
    expect(verdict.status === "failed" ? verdict.found[0]?.message : "").toMatch(
      /client c1 requested a new token at #2 while it held a valid one that could serve the call \(the token of #0, \d+ s of validity left\); 2 such requests, 3 tokens for 3 calls\. With multi-token support on/,
    );
    expect(judge("client/token-quota", [call("tok-a"), issue("tok-b"), call("tok-b")], QUOTA_20).status).toBe(
      "passed",
    );
  });

  it("a token per call without multi-token support (the same token back) is a finding too, naming the setting", () => {
    const verdict = judge(
      "client/token-reuse",
      [call("tok-a"), issue("tok-a"), call("tok-a"), issue("tok-a"), call("tok-a")],
      NO_MULTITOKEN,
    );
    expect(verdict.status === "failed" ? verdict.found[0]?.message : verdict.status).toMatch(
      /multi-token support off, so the same token came back/,
    );
  });

  it.each<[string, Step[], typeof NO_MULTITOKEN]>([
    ["one token for every call", [call("tok-a"), call("tok-a"), call("tok-a")], QUOTA_20],
    [
      "two workers, each keeping its own token",
      [call("tok-a"), issue("tok-b"), call("tok-b"), call("tok-a"), call("tok-b"), call("tok-a")],
      QUOTA_20,
    ],
    [
      "workers sharing the one token multi-token support off gives back",
      [call("tok-a"), issue("tok-a"), call("tok-a"), call("tok-a"), call("tok-a"), call("tok-a")],
      NO_MULTITOKEN,
    ],
    [
      "a renewal when less than half the validity is left",
      [
        call("tok-a"),
        issue("tok-b", 500_000),
        call("tok-b", { at: 500_010 }),
        call("tok-b", { at: 500_020 }),
      ],
      QUOTA_20,
    ],
    [
      "a new token after its token was refused",
      [call("tok-a", { status: 401 }), issue("tok-b"), call("tok-b"), call("tok-b")],
      QUOTA_20,
    ],
  ])("%s passes", (_name, steps, clients) => {
    expect(judge("client/token-reuse", steps, clients)).toEqual({
      status: "passed",
      opportunities: expect.any(Number),
    });
  });
});

describe("reading a recording", () => {
  it.each([
    ["http://h:1/a/b?x=1#f", "/a/b", "?x=1"],
    ["http://h:1/a", "/a", ""],
    ["http://h:1", "/", ""],
    ["http://h:1/a#x?y", "/a", ""],
  ])("pathOf(%s) is the same as the URL parser's", (url, pathname, search) => {
    expect(pathOf(url)).toEqual({ pathname, search });
    const parsed = new URL(url);
    expect([parsed.pathname, parsed.search]).toEqual([pathname, search]);
  });

  it.each([
    [undefined, { kind: "none" }],
    ["  ", { kind: "none" }],
    ["null", { kind: "none" }],
    ["abc", { kind: "id", id: "abc" }],
    ['"abc"', { kind: "id", id: "abc" }],
    ['{"scrollId":"abc"}', { kind: "id", id: "abc" }],
    ["{}", { kind: "other" }],
    ["42", { kind: "other" }],
  ])("scrollIdSent(%j)", (body, want) => {
    expect(scrollIdSent(body)).toEqual(want);
  });
});

describe("the request rule derived from the contract: strict where the document is explicit", () => {
  const RULE = "client/request-within-contract";
  it.each<[string, Step[], RegExp]>([
    [
      "order=ascending on the lookups scan",
      [{ method: "POST", path: "/lookups/t/_scan?order=ascending" }],
      /^POST \/lookups\/t\/_scan \(scanLookups\): query order=ascending; expected one of asc, desc; the document: "order \(asc or desc\)"/,
    ],
    [
      "a limit that is no integer on the lookups scan",
      [{ method: "POST", path: "/lookups/t/_scan?limit=ten" }],
      /query limit=ten; expected an integer; the document: "limit \(integer; the sample uses 100\)"/,
    ],
    [
      "limit=101 on the autopilot scan of one type",
      [{ method: "POST", path: "/configuration/t/autopilot/stats/Country/_scan?limit=101" }],
      /\(scanAutopilotStatsByType\): query limit=101; the maximum is 100; the document: "limit \| integer \| No \| page size; default 100, maximum 100"/,
    ],
    [
      "a negative offset on blocked values",
      [
        {
          method: "GET",
          path: "/configuration/t/autopilot/Country/blockedValues?offset=-5",
          responseBody: "[]",
        },
      ],
      /\(listBlockedValues\): query offset=-5; the minimum is 0; the document: "offset \(integer, optional, default 0, starting offset\)"/,
    ],
    [
      "the lookup type URI, encoded, as the path's lookupType",
      [
        {
          method: "GET",
          path: "/configuration/t/autopilot/rdm%2FlookupTypes%2FCountry/blockedValues",
          responseBody: "[]",
        },
      ],
      /path parameter lookupType is the lookup type URI "rdm\/lookupTypes\/Country", expected the type name \("Country"\)/,
    ],
    [
      "the lookup type URI, with its slashes, in the path",
      [
        {
          method: "POST",
          path: "/configuration/t/autopilot/stats/rdm/lookupTypes/Country/_scan",
          status: 404,
        },
      ],
      /the path carries a lookup type URI \(rdm\/lookupTypes\/<type_name>\) where the lookup type name goes/,
    ],
    [
      "a delete task URI of the form rdm/lookupTypes/<type>/<code>",
      [
        {
          method: "POST",
          path: "/tasks/shop",
          body: '{"type":"delete","parameters":{"uris":["rdm/lookupTypes/Country/DE"]}}',
        },
      ],
      /\(createTask\): parameters\.uris\[0\] is "rdm\/lookupTypes\/Country\/DE", expected a lookup URI <tenant_id>\/<type_name>\/<code> \("shop\/Country\/DE"\).*deletes nothing; the document: .*"A lookup URI, as used in the delete task, has the shape <tenant_id>\/<type_name>\/<code>\."/,
    ],
  ])("%s", (_name, steps, want) => {
    const verdict = judge(RULE, steps);
    expect(verdict.status).toBe("failed");
    expect(verdict.status === "failed" ? verdict.found.map((v) => v.message) : []).toEqual([
      expect.stringMatching(want),
    ]);
  });

  it("tolerant where it is silent: every reasonable request passes, each one an opportunity", () => {
    const steps: Step[] = [
      { method: "POST", path: "/lookups/t/_scan?limit=500&sort=anyField&order=desc" },
      { method: "POST", path: "/lookups/t/_scan?filter=startsWith(code,'D')%20and%20exists(parents)" },
      {
        method: "POST",
        path: "/lookups/t/_scan?_=1712345&trace=on",
        body: '{"scrollId":"whatever encoding"}',
      },
      { method: "POST", path: "/configuration/t/autopilot/stats/_scan?limit=1&order=asc&sort=createdAt" },
      {
        method: "GET",
        path: "/configuration/t/autopilot/Country/blockedValues?offset=200&limit=100",
        responseBody: "[]",
      },
      { method: "POST", path: "/tasks/t", body: '{"type":"delete","parameters":{"uris":["t/Country/a/b"]}}' },
      { method: "GET", path: "/healthcheck" },
    ];
    expect(judge(RULE, steps)).toEqual({ status: "passed", opportunities: steps.length });
  });

  it("the token request and the kit's own extensions are not judged: not exercised without another call", () => {
    const verdict = judge(RULE, [{ method: "GET", path: "/tasks/t/task-1" }]);
    expect(verdict.status).toBe("not-exercised");
  });
});

describe("the scroll's lifecycle, per scroll, with several open at once", () => {
  const SCROLL = "client/scan-passes-previous-scroll-id";
  const END = "client/scan-stops-at-end";
  const STATS = "/configuration/t/autopilot/stats/_scan";

  it("a provider that gives a new id per page: two scrolls interleaved, each continued by its own last id, pass", () => {
    const steps: Step[] = [
      { method: "POST", path: SCAN, responseBody: page("a1") },
      { method: "POST", path: SCAN, responseBody: page("b1") },
      { method: "POST", path: SCAN, body: "a1", responseBody: page("a2") },
      { method: "POST", path: SCAN, body: "b1", responseBody: page("b2") },
      { method: "POST", path: SCAN, body: "a2", responseBody: page() },
      { method: "POST", path: SCAN, body: "b2", responseBody: page() },
    ];
    expect(judge(SCROLL, steps)).toEqual({ status: "passed", opportunities: 4 });
    expect(judge(END, steps)).toEqual({ status: "passed", opportunities: 2 });
  });

  it.each<[string, string, Step[], RegExp]>([
    [
      SCROLL,
      "the id of an earlier page of that scroll, while another is open",
      [
        { method: "POST", path: SCAN, responseBody: page("a1") },
        { method: "POST", path: SCAN, responseBody: page("b1") },
        { method: "POST", path: SCAN, body: "a1", responseBody: page("a2") },
        { method: "POST", path: SCAN, body: "a1", responseBody: page("a3") },
      ],
      /passed scrollId "a1", which an earlier answer of that scroll gave, not the scrollId its last answer gave \("a2"\)/,
    ],
    [
      SCROLL,
      "the id another scan gave",
      [
        { method: "POST", path: SCAN, responseBody: page("a1") },
        { method: "POST", path: STATS, responseBody: page("s1") },
        { method: "POST", path: STATS, body: '{"scrollId":"a1"}', status: 400 },
      ],
      /passed scrollId "a1" of another scan \(POST \/lookups\/t\/_scan, opened at #1\)/,
    ],
    [
      SCROLL,
      "the id in the query string, no body",
      [
        { method: "POST", path: SCAN, responseBody: page("a1") },
        { method: "POST", path: `${SCAN}&scroll_id=a1`, responseBody: page("a9") },
      ],
      /passed the scroll id in the query string \(scroll_id=a1\) with no body/,
    ],
    [
      END,
      "an ended scroll asked for more while another scroll of the scan is open",
      [
        { method: "POST", path: SCAN, responseBody: page("a1") },
        { method: "POST", path: SCAN, responseBody: page("b1") },
        { method: "POST", path: SCAN, body: "a1", responseBody: page() },
        { method: "POST", path: SCAN, body: "a1" },
      ],
      /asked for another page of a scroll whose end was already answered/,
    ],
  ])("%s: %s", (id, _name, steps, want) => {
    const verdict = judge(id, steps);
    expect(verdict.status).toBe("failed");
    expect(verdict.status === "failed" ? verdict.found.map((v) => v.message) : []).toEqual([
      expect.stringMatching(want),
    ]);
  });
});

describe("the token's lifecycle: an expired or rejected token serves nothing more", () => {
  const RULE = "client/token-dropped-when-expired";
  const EXPIRED = JSON.stringify({ error: "invalid_token", error_description: "The access token expired" });
  const reissue = (value: string): Step => ({
    method: "POST",
    path: "/oauth/token",
    headers: { authorization: `Basic ${Buffer.from("c1:s1").toString("base64")}` },
    body: "grant_type=client_credentials",
    responseBody: JSON.stringify({ access_token: value, expires_in: 900 }),
  });

  it.each<[string, Step[], RegExp]>([
    [
      "the expired token sent again (401)",
      [
        { method: "GET", path: "/status", status: 401, responseBody: EXPIRED },
        { method: "GET", path: "/status" },
      ],
      /GET \/status at #2 carried a token the service had answered at #1 had expired; the document: "use of the token yields an expired-token error/,
    ],
    [
      "the expired token sent again (403 saying so: the status is not shown)",
      [
        { method: "GET", path: "/status", status: 403, responseBody: '{"message":"token has expired"}' },
        { method: "POST", path: SCAN },
      ],
      /POST \/lookups\/t\/_scan at #2 carried a token the service had answered at #1 had expired/,
    ],
    [
      "a token the service did not accept, sent again",
      [
        { method: "GET", path: "/status", status: 401, responseBody: '{"error":"invalid_token"}' },
        { method: "GET", path: "/status", status: 401 },
      ],
      /was not accepted \(401\)/,
    ],
  ])("%s", (_name, steps, want) => {
    const verdict = judge(RULE, steps);
    expect(verdict.status).toBe("failed");
    expect(verdict.status === "failed" ? verdict.found.map((v) => v.message) : []).toEqual([
      expect.stringMatching(want),
    ]);
  });

  it.each<[string, Step[], RuleStatus]>([
    [
      "a new token after the expiry, then calls with it",
      [
        { method: "GET", path: "/status", status: 401, responseBody: EXPIRED },
        reissue("tok-b"),
        { method: "GET", path: "/status", headers: { authorization: "Bearer tok-b" } },
      ],
      "passed",
    ],
    [
      "the same value issued again by a token request, then used",
      [
        { method: "GET", path: "/status", status: 401, responseBody: EXPIRED },
        reissue("tok-a"),
        { method: "GET", path: "/status" },
      ],
      "passed",
    ],
    [
      "a role refusal (403 without expiry): the token still serves other calls",
      [
        { method: "POST", path: "/tasks/t", status: 403, body: '{"type":"delete"}', responseBody: "{}" },
        { method: "GET", path: "/status" },
      ],
      "not-exercised",
    ],
  ])("%s: %s", (_name, steps, want) => {
    expect(judge(RULE, steps).status).toBe(want);
  });
});

describe("the sweep judges differences: a scan read to its end under the default, less under a choice", () => {
  const RULE = SCANS_READ_UNDER_EVERY_CHOICE;
  const clients: CallerClient[] = [{ clientId: "c1", multitoken: true, maxActiveTokensAllowed: 5 }];
  const values = (n: number) => Array.from({ length: n }, () => ({}));
  const DEFAULT: Step[] = [
    { method: "POST", path: SCAN, responseBody: page("s1", values(2)) },
    { method: "POST", path: SCAN, body: "s1", responseBody: page(undefined, values(1)) },
  ];
  const underChoice = (steps: Step[]) => {
    const traffic = readTraffic(recording(steps), clients);
    traffic.variant = "short-pages";
    traffic.baseline = { traffic: readTraffic(recording(DEFAULT), clients) };
    return RULE.judge(traffic);
  };

  it("a short page taken for the end under the choice: failed, with the choice and both runs' figures", () => {
    const verdict = underChoice([{ method: "POST", path: SCAN, responseBody: page("s1", values(1)) }]);
    expect(verdict.status).toBe("failed");
    expect(verdict.status === "failed" ? verdict.found[0]?.message : "").toMatch(
      /^POST \/lookups\/t\/_scan: under the provider choice short-pages your client read 1 records and stopped after the answer at #1, which carried 1 records \(limit=2\) and a scrollId it never passed on; under the default the same command read 3 records to the end .*The choice: the lookups scan serves at most 25 records a page/,
    );
  });

  it.each<[string, Step[], RuleStatus]>([
    [
      "every page read under the choice too",
      [
        { method: "POST", path: SCAN, responseBody: page("s1", values(1)) },
        { method: "POST", path: SCAN, body: "s1", responseBody: page("s1", values(1)) },
        { method: "POST", path: SCAN, body: "s1", responseBody: page(undefined, values(1)) },
      ],
      "passed",
    ],
    [
      "stopped at an empty page that still carries a scrollId (may be followed or not)",
      [
        { method: "POST", path: SCAN, responseBody: page("s1", values(3)) },
        { method: "POST", path: SCAN, body: "s1", responseBody: page("s1", []) },
      ],
      "passed",
    ],
    ["a scan the choice's run did not make", [{ method: "GET", path: "/status" }], "not-exercised"],
  ])("%s: %s", (_name, steps, want) => {
    expect(underChoice(steps).status).toBe(want);
  });

  it("one run alone (no default beside it) is not judged", () => {
    expect(RULE.judge(readTraffic(recording(DEFAULT), clients)).status).toBe("not-exercised");
  });
});

describe("the blocked values listing's paging model: offset counts records", () => {
  const ID = "client/blocked-values-offset-counts-records";
  const LIST = "/configuration/t/autopilot/Country/blockedValues";
  const values = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ value: `v${i}` })));
  const get = (query: string, n: number, status = 200): Step => ({
    method: "GET",
    path: `${LIST}${query}`,
    responseBody: status === 200 ? values(n) : '{"error":"x"}',
    status,
  });

  it.each<[string, Step[]]>([
    [
      "offsets stepped by the records received",
      [get("?limit=2", 2), get("?limit=2&offset=2", 2), get("?limit=2&offset=4", 1)],
    ],
    [
      "no limit, the offset stepped by what each page gave, to an empty page",
      [get("", 100), get("?offset=100", 30), get("?offset=130", 0)],
    ],
    ["a short page taken as the end: where a read stops is not judged", [get("?limit=50", 20)]],
    [
      "a retry of the same page after an error, then the next",
      [get("?limit=2", 2), get("?limit=2&offset=2", 0, 500), get("?limit=2&offset=2", 2)],
    ],
    [
      "a read started again from the default offset",
      [get("?limit=2", 2), get("?limit=2", 2), get("?limit=2&offset=2", 1)],
    ],
    [
      "the page size changed between pages",
      [get("?limit=3", 3), get("?limit=5&offset=3", 5), get("?offset=8", 0)],
    ],
  ])("%s: passed", (_name, steps) => {
    expect(judge(ID, steps)).toMatchObject({ status: "passed" });
  });

  it.each<[string, Step[], RegExp]>([
    [
      "offset as a page number",
      [get("?limit=2", 2), get("?limit=2&offset=1", 2)],
      /asked offset=1 \(advanced by one, as a page number\) after the page at offset 0 gave 2 records: the next page starts at offset 2, so it reads 1 record of that page again/,
    ],
    [
      "offset stepped by the limit after a page that gave fewer",
      [get("?limit=5", 3), get("?limit=5&offset=5", 2)],
      /asked offset=5 after the page at offset 0 gave 3 records: the next page starts at offset 3, so it skips 2 records/,
    ],
  ])("%s: failed, naming the offset it should have asked", (_name, steps, says) => {
    const result = judge(ID, steps);
    expect(result.status).toBe("failed");
    if (result.status !== "failed") return;
    expect(result.found).toHaveLength(1);
    expect(result.found[0]?.message).toMatch(says);
    expect(result.found[0]?.message).toContain("starting offset");
  });

  it("counts reads, and is not exercised by a client that never lists blocked values", () => {
    expect(judge(ID, [get("?limit=2", 2), get("?limit=2&offset=2", 2), get("?limit=2", 2)])).toEqual({
      status: "passed",
      opportunities: 2,
    });
    const none = judge(ID, [{ method: "POST", path: SCAN, responseBody: page(null) }]);
    expect(none).toMatchObject({
      status: "not-exercised",
      reason: expect.stringMatching(/never listed blocked values/),
    });
  });
});

describe("a scan read to its end, per scroll (SHOULD: the document says how to get the next page, not that a caller reads them all)", () => {
  const RULE = "client/scan-read-to-end";
  it.each<[string, Step[], RuleStatus]>([
    [
      "every scroll followed to an answer without a scrollId",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "s1", responseBody: page(null) },
      ],
      "passed",
    ],
    [
      "a left scroll whose last page was empty but still carried its id (end-empty-page-with-scroll-id)",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "s1", responseBody: page("s1", []) },
      ],
      "passed",
    ],
    [
      "a wrong id sent: the scroll was continued, wrongly (the scroll-id rule's finding, not this one's)",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "other", status: 400, responseBody: "{}" },
      ],
      "passed",
    ],
    [
      "the right id refused (a choice that reads another encoding): the client tried",
      [
        { method: "POST", path: SCAN, responseBody: page("s1") },
        { method: "POST", path: SCAN, body: "s1", status: 400, responseBody: "{}" },
      ],
      "passed",
    ],
    ["a scan of one page", [{ method: "POST", path: SCAN, responseBody: page() }], "not-exercised"],
  ])("%s: %s", (_name, steps, want) => {
    expect(judge(RULE, steps).status).toBe(want);
  });

  it("only the first page read: failed, naming the records and the scrollId never passed on", () => {
    const verdict = judge(RULE, [
      { method: "POST", path: SCAN, responseBody: page("s1", [{}, {}]) },
      { method: "POST", path: "/lookups/t/_scan?limit=1", responseBody: page("s2") },
      { method: "POST", path: "/lookups/t/_scan?limit=1", body: "s2", responseBody: page() },
    ]);
    expect(verdict).toMatchObject({ status: "failed", opportunities: 2 });
    expect(verdict.status === "failed" ? verdict.found.map((f) => f.message) : []).toEqual([
      expect.stringMatching(
        /^POST \/lookups\/t\/_scan: your client left the scroll after 1 page: the answer at #1 gave 2 records and a scrollId \("s1"\) it never passed on.*"Each response carries scrollId/,
      ),
    ]);
  });

  it("a page taken for the end after paging: failed at the scroll's last answer", () => {
    const verdict = judge(RULE, [
      { method: "POST", path: SCAN, responseBody: page("s1") },
      { method: "POST", path: SCAN, body: "s1", responseBody: page("s2") },
    ]);
    expect(verdict.status === "failed" ? verdict.found[0] : undefined).toMatchObject({
      evidence: { seq: 2 },
      message: expect.stringMatching(/left the scroll after 2 pages/),
    });
  });
});

describe("the token's lifecycle: a request declined at the quota leaves the count at the limit", () => {
  const RULE = "client/token-waits-after-quota-refusal";
  const BASIC = { authorization: `Basic ${Buffer.from("c1:s1").toString("base64")}` };
  const refused: Step = {
    method: "POST",
    path: "/oauth/token",
    headers: BASIC,
    status: 429,
    responseBody: JSON.stringify({
      error: "limit_exceeded",
      error_description: "Max active tokens limit exceeded",
    }),
  };
  const askAgain = (at?: number): Step => ({
    method: "POST",
    path: "/oauth/token",
    headers: BASIC,
    responseBody: JSON.stringify({ access_token: "tok-b", expires_in: 900 }),
    ...(at === undefined ? {} : { at }),
  });

  it("asked again at once, and in a loop: failed, each refusal its finding, in the document's words", () => {
    const verdict = judge(RULE, [
      { method: "GET", path: "/status" },
      refused,
      { ...refused },
      { ...refused },
    ]);
    // Every token request under the quota is judged against its state: the recording's first and the three here.
    expect(verdict).toMatchObject({ status: "failed", opportunities: 4 });
    const messages = verdict.status === "failed" ? verdict.found.map((f) => f.message) : [];
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(
      /^client c1 asked for a token again at #3, 10 ms after its token request at #2 was declined at the quota \(429, limit exceeded\), before any of the 1 token it held then expired .*the caller waits for a token to expire or raises the quota"/,
    );
  });

  it.each<[string, Step[], RuleStatus]>([
    ["stops asking and uses the token it holds", [refused, { method: "GET", path: "/status" }], "passed"],
    ["asks again once its token expired (the sandbox's clock)", [refused, askAgain(900_001)], "passed"],
    [
      "raises the quota first (PUT of its customer)",
      [refused, { method: "PUT", path: "/oauth/customers/cust", body: "{}" }, askAgain()],
      "passed",
    ],
    [
      "a rate limit (429 naming it) is no quota refusal",
      [{ ...refused, responseBody: "rate limit exceeded" }, askAgain()],
      "passed",
    ],
    [
      "a token request under the quota, no refusal before it: a legal request, judged",
      [askAgain()],
      "passed",
    ],
  ])("%s: %s", (_name, steps, want) => {
    expect(judge(RULE, steps).status).toBe(want);
  });

  it("never declined: passed on the requests below the limit, with a note naming the sweep's world that starts the client at its quota", () => {
    const verdict = judge(RULE, [askAgain()]);
    expect(verdict.status === "passed" ? verdict.note : "").toMatch(
      /was not seen: run the sweep .*--variants quota-held-elsewhere/,
    );
    // A judged refusal leaves no note.
    expect(judge(RULE, [refused, askAgain(900_001)])).toEqual({ status: "passed", opportunities: 3 });
  });

  it("without multi-token support and no refusal, no token request is under a quota: not exercised, naming the setting", () => {
    const verdict = judge(RULE, [askAgain()], [{ clientId: "c1", multitoken: false }]);
    expect(verdict.status === "not-exercised" ? verdict.reason : "").toMatch(/no multi-token support/);
  });

  describe("other sessions hold the quota (world quota-held-elsewhere): tokens the client cannot see", () => {
    // The recording's own token (tok-a, #0) expires at 900 s; the others' expire at 3 s.
    const atQuota: CallerClient[] = [
      {
        clientId: "c1",
        multitoken: true,
        maxActiveTokensAllowed: 5,
        heldElsewhere: Array.from({ length: 5 }, () => ({ expiresAt: 3_000 })),
      },
    ];
    const declinedAt = (at: number): Step => ({ ...refused, at, responseHeaders: { "retry-after": "3" } });
    const ownless = (steps: Step[]) => judge(RULE, steps, atQuota);

    it("asked again at once, in a loop: failed, each at once, naming the others' tokens and Retry-After", () => {
      const verdict = ownless([
        declinedAt(10),
        declinedAt(15),
        declinedAt(20),
        declinedAt(25),
        declinedAt(30),
        askAgain(3_100),
      ]);
      expect(verdict).toMatchObject({ status: "failed", opportunities: 7 });
      const messages = verdict.status === "failed" ? verdict.found.map((f) => f.message) : [];
      expect(messages).toHaveLength(4);
      expect(messages[0]).toMatch(
        /^client c1 asked for a token again at #2, 5 ms after its token request at #1 was declined at the quota \(429, limit exceeded\): at once \(4 ms after the answer\), while other sessions of the client held 5 tokens of its quota \(the first expires 3 s after the refusal; the answer said Retry-After: 3\)/,
      );
    });

    it.each<[string, Step[]]>([
      [
        "waits (half a second, Retry-After unread) and asks again",
        [declinedAt(10), declinedAt(520), askAgain(3_100)],
      ],
      ["honours Retry-After", [declinedAt(10), askAgain(3_020)]],
      // Workers of one client that each ask once learn of the refusal only by their own: a request at once
      // after another's refusal is its first, not a loop.
      [
        "has two more workers ask once each, at once after the first's refusal",
        [declinedAt(10), declinedAt(15), declinedAt(20)],
      ],
      ["stops asking", [declinedAt(10)]],
    ])("%s: passed", (_name, steps) => {
      expect(ownless(steps).status).toBe("passed");
    });

    it("running into a quota others hold is not the client's doing: no client/token-quota finding", () => {
      expect(judge("client/token-quota", [declinedAt(10), askAgain(3_020)], atQuota).status).toBe("passed");
    });
  });
});

describe("every request judged against the contract's request side, and the scroll's state on a first request", () => {
  const RULE = "client/request-within-contract";
  const messages = (v: ReturnType<typeof judge>) =>
    v.status === "failed" ? v.found.map((f) => f.message) : [];

  it("a path the interface does not have: failed, naming the nearest operation", () => {
    const v = judge(RULE, [{ method: "POST", path: "/lookup/t/_scan", status: 404 }]);
    expect(messages(v)).toEqual([
      expect.stringMatching(
        /^POST \/lookup\/t\/_scan matches no operation of the interface .*the nearest: POST \/lookups\/\{tenantId\}\/_scan \(scanLookups\)/,
      ),
    ]);
  });

  it("a token request elsewhere, a well-known lookup, HEAD and OPTIONS of a known path are not judged", () => {
    const v = judge(RULE, [
      { method: "POST", path: "/auth/token", body: "grant_type=client_credentials" },
      { method: "GET", path: "/.well-known/openid-configuration" },
      { method: "HEAD", path: "/healthcheck" },
      { method: "OPTIONS", path: "/lookups/t/_scan" },
    ]);
    expect(v.status).toBe("not-exercised");
  });

  const blocked = (query: string, n = 2) => ({
    method: "GET",
    path: `/configuration/t/autopilot/Country/blockedValues${query}`,
    responseBody: JSON.stringify(Array.from({ length: n }, () => ({}))),
  });

  it("paging blocked values by page (offset unchanged): failed at MUST, in the document's words", () => {
    const v = judge(RULE, [blocked("?page=0&size=2"), blocked("?page=1&size=2"), blocked("?page=2&size=2")]);
    expect(messages(v)).toEqual([
      expect.stringMatching(
        /asked for the next page by page=1 \(0 at #1, which gave 2 records\), a query parameter listBlockedValues does not define \(it defines offset, limit\): .*"offset \(integer, optional, default 0, starting offset\)"/,
      ),
    ]);
    // size is a parameter nothing pages by: the SHOULD rule's, once per operation and parameter.
    expect(
      messages(
        judge("client/query-parameters-defined", [blocked("?page=0&size=2"), blocked("?page=1&size=2")]),
      ),
    ).toEqual([expect.stringMatching(/sent size=2, a query parameter the operation does not define/)]);
  });

  it("a cache-buster (a time) on every request, offset moved by the records: passes the MUST rule, a SHOULD finding", () => {
    const steps = [
      blocked("?offset=0&limit=2&_=1712345000"),
      blocked("?offset=2&limit=2&_=1712345001"),
      blocked("?limit=2&offset=2&_=1712345002", 0),
    ];
    expect(judge(RULE, steps).status).toBe("passed");
    expect(judge("client/query-parameters-defined", steps).status).toBe("failed");
  });

  it("a scan opened again with the next page number: failed, the scrollId is the scan's position", () => {
    const v = judge(RULE, [
      { method: "POST", path: "/lookups/t/_scan?page=1", responseBody: page("s1", [{}, {}]) },
      { method: "POST", path: "/lookups/t/_scan?page=2", responseBody: page("s2", [{}, {}]) },
    ]);
    expect(messages(v)).toEqual([
      expect.stringMatching(/by page=2 .*Pass the last answer's scrollId in the body/),
    ]);
  });

  const FIRST = "client/scan-first-request-without-body";
  it("a new query opened with the scrollId of a scroll already ended: failed at MUST, naming that scroll", () => {
    const v = judge(FIRST, [
      { method: "POST", path: "/lookups/t/_scan?filter=a", responseBody: page("a1") },
      { method: "POST", path: "/lookups/t/_scan?filter=a", body: "a1", responseBody: page(null) },
      { method: "POST", path: "/lookups/t/_scan?filter=b", body: "a1", status: 404 },
    ]);
    expect(messages(v)).toEqual([
      expect.stringMatching(
        /opened a scan with a body: scrollId "a1" of the scroll opened at #1 with filter=a \(another query of this scan, already ended\)/,
      ),
    ]);
  });

  it("two queries of one scan read side by side, continuations with or without the query: pass", () => {
    const steps: Step[] = [
      { method: "POST", path: "/lookups/t/_scan?filter=a&limit=2", responseBody: page("a1") },
      { method: "POST", path: "/lookups/t/_scan?filter=b", responseBody: page("b1") },
      { method: "POST", path: "/lookups/t/_scan?filter=a&limit=5", body: "a1", responseBody: page() },
      { method: "POST", path: "/lookups/t/_scan", body: "b1", responseBody: page() },
    ];
    for (const id of [FIRST, "client/scan-passes-previous-scroll-id"])
      expect(judge(id, steps).status, id).toBe("passed");
  });
});
