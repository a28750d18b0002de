// The caller rules on small recordings: each tolerance (every legal encoding, end signal, parallel scans,
// a waited-out 429) is accepted, each mistake is named. Tables of [name, { given, want }].
import { describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../src/reference/index.ts";
import { CALLER_RULES, scrollIdSent } from "../../src/workbench/caller-rules.ts";
import { pathOf, readTraffic } from "../../src/workbench/traffic.ts";

const BASE = "http://127.0.0.1:1";
const BEARER = { authorization: "Bearer tok-a" };
type Step = Partial<RecordedExchange> & { method: string; path: string };

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
  clients = [{ clientId: "c1", multitoken: true, maxActiveTokensAllowed: 5 }],
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
      expect(judge(id, steps).status, id).toBe("passed");
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
      "client/page-size-within-maximum",
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
      "client/delete-task-body",
      "no type",
      [{ method: "POST", path: "/tasks/t", body: '{"parameters":{}}' }],
      /type is undefined, expected "delete"/,
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
    expect(verdict.status === "failed" ? verdict.violations[0]?.message : "").toMatch(want);
  });

  it("the lookups scan states no maximum page size: limit=500 there is not judged", () => {
    const verdict = judge("client/page-size-within-maximum", [
      { method: "POST", path: "/lookups/t/_scan?limit=500" },
    ]);
    expect(verdict).toEqual({
      status: "skipped",
      reason: expect.stringMatching(/no autopilot scan or blocked values/),
    });
  });

  it("a delete task with parameters null or only a type is of the documented shape", () => {
    for (const body of [
      '{"type":"delete","parameters":null}',
      '{"type":"delete","parameters":{"type":"rdm/lookupTypes/Country"}}',
      '{"type":"delete"}',
    ])
      expect(
        judge("client/delete-task-body", [{ method: "POST", path: "/tasks/t", body }]).status,
        body,
      ).toBe("passed");
  });

  it("a retry after the Retry-After passes; a quota refusal under 409 counts as a refusal", () => {
    const waited = judge("client/backoff-after-refusal", [
      { method: "GET", path: "/healthcheck", status: 429, responseHeaders: { "retry-after": "1" } },
      { method: "GET", path: "/healthcheck", at: 1_020 },
    ]);
    expect(waited.status).toBe("passed");
    const quota = judge("client/token-reuse", [
      {
        method: "POST",
        path: "/oauth/token",
        headers: { authorization: `Basic ${Buffer.from("c1:s1").toString("base64")}` },
        status: 409,
        responseBody: '{"error":"limit_exceeded","error_description":"Max active tokens limit exceeded"}',
      },
    ]);
    expect(quota.status === "failed" ? quota.violations[0]?.message : quota.status).toMatch(
      /ran into its token quota/,
    );
  });

  it("token reuse is not judged where multi-token support is off", () => {
    expect(
      judge("client/token-reuse", [], [{ clientId: "c1", multitoken: false, maxActiveTokensAllowed: 5 }])
        .status,
    ).toBe("skipped");
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
