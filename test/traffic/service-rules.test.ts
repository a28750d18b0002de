// The service rules on small made-up traffic: each catches its faulty answer, accepts the correct choices
// the document leaves open, and says "undecided" where the traffic cannot decide, never a pass.
import { describe, expect, it } from "vitest";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import type { ReadExchange } from "../../src/traffic/recorded-entry.ts";

const RDM = "https://rdm.example";
let seq = 0;
function x(over: Partial<ReadExchange> & Pick<ReadExchange, "url">): ReadExchange {
  seq += 1;
  return {
    seq,
    at: 1_700_000_000_000 + seq * 10,
    method: "POST",
    headers: { authorization: "Bearer [redacted]" },
    status: 200,
    responseHeaders: { "content-type": "application/json" },
    responseBody: "{}",
    durationMs: 1,
    ...over,
  };
}

const lookup = (code: string, type = "rdm/lookupTypes/Country") => ({ code, type });
/** A scroll of pages (each a list of codes); the last answer carries a scrollId unless `ended`. */
function scroll(pages: string[][], query = "", ended = true): ReadExchange[] {
  return pages.map((codes, i) =>
    x({
      url: `${RDM}/lookups/acme/_scan${i === 0 ? query : ""}`,
      ...(i === 0 ? {} : { body: JSON.stringify({ scrollId: `s${i}` }) }),
      responseBody: JSON.stringify({
        values: codes.map((c) => lookup(c)),
        ...(i === pages.length - 1 && ended ? {} : { scrollId: `s${i + 1}` }),
      }),
    }),
  );
}

function statusOf(exchanges: ReadExchange[], id: string) {
  const { result } = judgeExchanges(exchanges, { source: "test.har" });
  const check = result.checks.find((c) => c.id === id);
  return { status: check?.status, text: check?.message ?? check?.reason ?? "" };
}

describe("service/scroll-every-record-once", () => {
  const id = "service/scroll-every-record-once";
  it("catches a record repeated at a page boundary, even in a scroll left midway", () => {
    expect(
      statusOf(
        scroll([
          ["A", "B"],
          ["B", "C"],
        ]),
        id,
      ).status,
    ).toBe("failed");
    expect(
      statusOf(
        scroll(
          [
            ["A", "B"],
            ["B", "C"],
          ],
          "",
          false,
        ),
        id,
      ).status,
    ).toBe("failed");
  });
  it("accepts an end by an empty page that still carries a scrollId (deployments do this)", () => {
    const pages = scroll([["A"], ["B"], []], "", false);
    expect(statusOf(pages, id).status).toBe("passed");
  });
  it("cannot decide a scroll abandoned midway without a repeat: inconclusive, not passed", () => {
    const { status, text } = statusOf(scroll([["A"], ["B"]], "", false), id);
    expect(status).toBe("inconclusive");
    expect(text).toMatch(/1 scrolls abandoned before their end/);
  });
});

describe("service/scroll-none-skipped", () => {
  const id = "service/scroll-none-skipped";
  const deleteTask = () => x({ url: `${RDM}/tasks/acme`, body: '{"type":"delete"}', status: 202 });
  it("catches a record one complete read shows and another of the same scan lacks, whatever the page size", () => {
    const reads = [...scroll([["A", "B"], ["C"]], "?limit=2"), ...scroll([["A"], ["C"]], "?limit=1")];
    const { status, text } = statusOf(reads, id);
    expect(status).toBe("failed");
    expect(text).toMatch(
      /record Country\/B, shown by the complete read .* is missing from this complete read/,
    );
    const same = [...scroll([["A", "B"], ["C"]], "?limit=2"), ...scroll([["A"], ["B"], ["C"]], "?limit=1")];
    expect(statusOf(same, id).status).toBe("passed");
  });
  it("cannot decide where a write came between the reads, or the second read was not complete", () => {
    const first = scroll([["A", "B"]]);
    const written = [...first, deleteTask(), ...scroll([["A"]])];
    expect(statusOf(written, id)).toMatchObject({ status: "inconclusive" });
    expect(statusOf(written, id).text).toMatch(/a task accepted before them had not shown itself over/);
    const put = x({
      url: "https://auth.example/oauth/customers/c",
      method: "PUT",
      body: "{}",
      responseBody: "{}",
    });
    expect(statusOf([...first, put, ...scroll([["A"]])], id).text).toMatch(/a write observed between them/);
    // Abandoned midway: no second complete read, nothing judged.
    expect(statusOf([...scroll([["A", "B"]]), ...scroll([["A"]], "", false)], id).status).not.toBe("passed");
  });
  it("a delete task works after its answer: reads after it differ undecided until a read of the task shows it over", () => {
    // As the correct reference does: 202 NOT_STARTED, the records gone a moment later.
    const accepted = x({
      url: `${RDM}/tasks/acme`,
      body: '{"type":"delete"}',
      status: 202,
      responseBody: '{"id":"t1","type":"delete","status":"NOT_STARTED"}',
    });
    const running = [accepted, ...scroll([["A", "B"]]), ...scroll([["A"]])];
    expect(statusOf(running, id)).toMatchObject({
      status: "inconclusive",
      text: /had not shown itself over/,
    });
    const over = x({
      url: `${RDM}/tasks/acme/t1`,
      method: "GET",
      responseBody: '{"id":"t1","type":"delete","status":"COMPLETED"}',
    });
    expect(statusOf([accepted, over, ...scroll([["A", "B"]]), ...scroll([["A"]])], id).status).toBe("failed");
    expect(statusOf([accepted, over, ...scroll([["A"]]), ...scroll([["A"]])], id).status).toBe("passed");
  });
  it("compares only reads of one scan: another filter, sort or tenant is another scan", () => {
    const other = [...scroll([["A", "B"]]), ...scroll([["A"]], "?filter=equals(code,'A')")];
    expect(statusOf(other, id).status).toBe("not-exercised");
  });
});

describe("service/scroll-order-kept", () => {
  const id = "service/scroll-order-kept";
  it("catches descending records asked ascending, and accepts case-insensitive order", () => {
    expect(statusOf(scroll([["b", "a"]], "?sort=code&order=asc"), id).status).toBe("failed");
    expect(statusOf(scroll([["a", "B", "c"]], "?sort=code&order=asc"), id).status).toBe("passed");
  });
  it("does not judge a sort without order (the default direction is not shown)", () => {
    expect(statusOf(scroll([["b", "a"]], "?sort=code"), id).status).toBe("not-exercised");
  });
});

describe("service/page-within-limit", () => {
  const id = "service/page-within-limit";
  it("catches a page above its asked limit; leaves the lookups scan's unasked default alone", () => {
    expect(statusOf(scroll([["A", "B"]], "?limit=1"), id).status).toBe("failed");
    expect(statusOf(scroll([["A", "B"]]), id).status).toBe("not-exercised");
  });
  // The document gives default 100, maximum 100 for the autopilot scans and blocked values; the lookups
  // scan's bounds are not shown. A request above the maximum is outside the contract: the caller's MUST
  // finding (client/request-within-contract); a page above the maximum is the service's all the same.
  const checks = (exchanges: ReadExchange[]) => judgeExchanges(exchanges, { source: "t.har" }).result.checks;
  const token = () =>
    x({
      url: `${RDM}/oauth/token`,
      headers: { authorization: `Basic ${Buffer.from("c1:secret-1").toString("base64")}` },
      body: "grant_type=client_credentials",
      responseBody: JSON.stringify({
        access_token: "tok-limit123456",
        token_type: "Bearer",
        expires_in: 600,
      }),
    });
  const page = (url: string, n: number) =>
    x({
      url,
      headers: { authorization: "Bearer tok-limit123456" },
      responseBody: JSON.stringify({
        values: Array.from({ length: n }, (_, i) => ({ code: `C${i}`, type: "rdm/lookupTypes/Country" })),
      }),
    });
  it("blames the caller for an autopilot scan asked with limit above 100, and the service for a page above 100", () => {
    const url = "https://api.example/configuration/acme/autopilot/stats/_scan?limit=150";
    const found = checks([token(), page(url, 150)]);
    expect(found.find((c) => c.id === id)?.status).toBe("failed");
    const caller = found.find((c) => c.id === "client/request-within-contract[c1]");
    expect(caller).toMatchObject({ status: "failed", level: "MUST", suite: "client c1" });
    expect(caller?.message).toMatch(/limit=150/);
    const capped = checks([token(), page(url, 100)]);
    expect(capped.find((c) => c.id === id)?.status).toBe("passed");
    expect(capped.find((c) => c.id === "client/request-within-contract[c1]")?.status).toBe("failed");
  });
  it("holds a lookups scan asked with limit above 100 to the limit asked; the caller is within the contract", () => {
    const found = checks([token(), page(`${RDM}/lookups/acme/_scan?limit=150`, 150)]);
    expect(found.find((c) => c.id === id)?.status).toBe("passed");
    expect(found.find((c) => c.id === "client/request-within-contract[c1]")?.status).toBe("passed");
    const over = checks([token(), page(`${RDM}/lookups/acme/_scan?limit=150`, 151)]);
    expect(over.find((c) => c.id === id)?.status).toBe("failed");
  });
});

describe("service/refuses-missing-token and refuses-malformed-token", () => {
  const status = (headers: Record<string, string>, code: number) => [
    x({ url: `${RDM}/lookups/acme/_scan`, headers, status: code, responseBody: '{"values":[]}' }),
  ];
  it("catches an answer 200 without Authorization; a refusal passes", () => {
    expect(statusOf(status({}, 200), "service/refuses-missing-token").status).toBe("failed");
    expect(statusOf(status({}, 401), "service/refuses-missing-token").status).toBe("passed");
  });
  it("catches a malformed bearer answered 200; a redacted token is no malformed one", () => {
    expect(
      statusOf(status({ authorization: "Bearer not a token" }, 200), "service/refuses-malformed-token")
        .status,
    ).toBe("failed");
    expect(
      statusOf(status({ authorization: "Bearer [redacted]" }, 200), "service/refuses-malformed-token").status,
    ).toBe("not-exercised");
  });
});

describe("service/refuses-expired-token", () => {
  const id = "service/refuses-expired-token";
  const tokenAnswer = (at: number) =>
    x({
      url: `${RDM}/oauth/token`,
      headers: {
        authorization: `Basic ${Buffer.from("c1:secret-1").toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
      at,
      responseBody: JSON.stringify({
        access_token: "tok-abcdef123456",
        token_type: "Bearer",
        expires_in: 60,
      }),
    });
  const use = (at: number, status: number) =>
    x({
      url: `${RDM}/lookups/acme/_scan`,
      headers: { authorization: "Bearer tok-abcdef123456" },
      at,
      status,
      responseBody: '{"values":[]}',
    });
  it("catches a token answered 200 past the expiry its token answer gave; a refusal passes", () => {
    expect(statusOf([tokenAnswer(0), use(120_000, 200)], id).status).toBe("failed");
    expect(statusOf([tokenAnswer(0), use(120_000, 401)], id).status).toBe("passed");
  });
  it("cannot decide a token whose issue the traffic never showed: inconclusive", () => {
    expect(statusOf([use(120_000, 200)], id)).toMatchObject({ status: "inconclusive", text: /never showed/ });
  });
});
