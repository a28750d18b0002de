// Service rules that had no test of their own: the filter an equals(field,'value') scan asks for, the bound
// of a page (the lookups scan's maximum is not shown, the autopilot scans' is), and every
// answer against the contract (SHOULD, as the schema suite) with the exit --fail-on gives lckit judge; and
// the report's JUnit holds one test suite per party.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { renderJunit } from "../../src/report/index.ts";
import { judgeExchanges } from "../../src/traffic/judge.ts";
import { captureIo } from "../cli/capture-io.ts";
import { BASE, exchange, MINUTE_OF_TRAFFIC, RDM, T0 } from "./timed-traffic.ts";

const FILTER = "service/scroll-filter-kept";

/** A scan asked with `filter`, answered with lookups of these types (one page, the end). */
const filtered = (filter: string, types: string[]) =>
  exchange({
    url: `${RDM}/lookups/acme/_scan?filter=${encodeURIComponent(filter)}`,
    headers: { authorization: "Bearer [redacted]" },
    responseBody: JSON.stringify({ values: types.map((type, i) => ({ code: `c${i}`, type })) }),
  });

const checkOf = (exchanges: ReturnType<typeof exchange>[], id: string) =>
  judgeExchanges(exchanges, { source: "t.har" }).result.checks.find((c) => c.id === id);

describe("service/scroll-filter-kept", () => {
  it("catches a record whose field is not the value equals() named; the same type by its name passes", () => {
    const broken = checkOf([filtered("equals(type,'Country')", ["Country", "Currency"])], FILTER);
    expect(broken).toMatchObject({ status: "failed", opportunities: 1 });
    expect(broken?.message).toMatch(/^service at fault: .*whose type is "Currency"/);
    const kept = checkOf(
      [filtered(`equals(type,"Country")`, ["rdm/lookupTypes/Country", "Country"])],
      FILTER,
    );
    expect(kept).toMatchObject({ status: "passed", opportunities: 1 });
  });

  it("judges no filter but equals(): another grammar is not exercised, never passed", () => {
    expect(checkOf([filtered("startsWith(type,'C')", ["Currency"])], FILTER)?.status).toBe("not-exercised");
  });
});

describe("service/page-within-limit and the lookups scan's bound", () => {
  const PAGE = "service/page-within-limit";
  /** One page of `n` records (the end) of a scan at `path` with `query`. */
  const page = (path: string, query: string, n: number) =>
    exchange({
      url: `${path}${query}`,
      headers: { authorization: "Bearer [redacted]" },
      responseBody: JSON.stringify({
        values: Array.from({ length: n }, (_, i) => ({ code: `c${i}`, type: "Country" })),
      }),
    });
  const lookups = `${RDM}/lookups/acme/_scan`;
  const autopilot = `${BASE}/configuration/acme/autopilot/stats/_scan`;

  it("holds a lookups page to the limit asked only: its maximum is not shown (SHOULD, LOOKUP-SCAN-04)", () => {
    expect(checkOf([page(lookups, "?limit=150", 150)], PAGE)).toMatchObject({ status: "passed" });
    expect(checkOf([page(lookups, "?limit=150", 151)], PAGE)?.status).toBe("failed");
  });

  it("holds an autopilot page to its documented maximum of 100 whatever the limit asked", () => {
    expect(checkOf([page(autopilot, "?limit=150", 101)], PAGE)?.status).toBe("failed");
    expect(checkOf([page(autopilot, "", 100)], PAGE)?.status).toBe("passed");
  });
});

describe("service/contract/<operationId> and --fail-on", () => {
  it("blames the service for an answer off the contract, a SHOULD: exit 0, 1 with --fail-on should", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-judge-contract-"));
    const file = join(dir, "html.har");
    const entry = {
      startedDateTime: new Date(T0).toISOString(),
      time: 1,
      request: {
        method: "POST",
        url: `${RDM}/lookups/acme/_scan`,
        headers: [{ name: "authorization", value: "Bearer [redacted]" }],
      },
      response: {
        status: 200,
        headers: [{ name: "content-type", value: "text/html" }],
        content: { text: "<html><body>Please sign in</body></html>" },
      },
    };
    writeFileSync(file, JSON.stringify({ log: { version: "1.2", entries: [entry] } }));
    const judge = async (...flags: string[]) => {
      const io = captureIo();
      const code = await main(["judge", file, "--report-dir", join(dir, "r"), ...flags], io);
      return { code, out: io.stdout() };
    };
    const plain = await judge();
    expect(plain.out).toMatch(/service\/contract\/scanLookups/);
    expect(plain.code).toBe(0);
    expect((await judge("--fail-on", "should")).code).toBe(1);
    const check = judgeExchanges(
      [
        exchange({
          url: entry.request.url,
          headers: { authorization: "Bearer [redacted]" },
          responseHeaders: { "content-type": "text/html" },
          responseBody: entry.response.content.text,
        }),
      ],
      { source: "t.har" },
    ).result.checks.find((c) => c.id === "service/contract/scanLookups");
    expect(check).toMatchObject({ status: "failed", level: "SHOULD", suite: "service" });
  });
});

describe("the traffic report's JUnit", () => {
  it("holds one test suite per party, each with its own rules", () => {
    const traffic = [...MINUTE_OF_TRAFFIC("alpha"), ...MINUTE_OF_TRAFFIC("beta", "tok-beta")].sort(
      (a, b) => (a.at as number) - (b.at as number) || a.seq - b.seq,
    );
    const { result, parties } = judgeExchanges(traffic, { source: "t.har" });
    expect(parties).toEqual(["service", "client alpha", "client beta"]);
    const xml = renderJunit(result);
    const suites = [...xml.matchAll(/<testsuite\b[^>]*\bname="([^"]*)"/g)].map((m) => m[1]);
    expect(suites).toEqual(parties);
    // Each client's rules under its own suite, named with its id.
    const beta = xml.slice(xml.indexOf('name="client beta"'));
    expect(beta).toMatch(/client\/query-parameters-defined\[beta\]/);
    expect(beta).not.toMatch(/\[alpha\]/);
  });
});
