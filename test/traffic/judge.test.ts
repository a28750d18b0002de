// lckit judge on the kit's own traffic: the evidence.har of a run against the correct reference finds no
// service fault; a run against a seeded fault is judged at fault by a rule of the same requirement as the
// active check that caught it (one fault per kind of service rule the kit's own traffic can show); an
// example client's faulty traffic gets the caller finding the client check gives, blamed on that client,
// beside a correct client interleaved with it; bad input is a clear error, another API's traffic judges
// nothing.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { clientCheck } from "../../src/commands/client/check.ts";
import { packagePath } from "../../src/package-root.ts";
import type { RunResult } from "../../src/result/model.ts";
import { CALLER_RULES } from "../../src/rules/caller/caller-rules.ts";
import type { TrafficExchange } from "../../src/rules/caller/traffic.ts";
import { embeddedTargetDescription } from "../../src/target/embedded.ts";
import { judgeTraffic } from "../../src/traffic/judge.ts";
import { accessOfTarget } from "../../src/traffic/roles.ts";
import { captureIo } from "../cli/capture-io.ts";
import { reportValidator } from "../report/report-schema.ts";
import { harEntriesOf } from "./har-copies.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "lckit-judge-"));

/** An lckit run on the embedded reference with its evidence (evidence.har.gz); its report and the HAR's path. */
async function runWithHar(
  faults: string[],
  { suites = ["lookup-scan", "auth"], seed }: { suites?: string[]; seed?: number } = {},
): Promise<{ report: RunResult; har: string }> {
  const dir = tmp();
  const io = captureIo();
  const argv = [
    "run",
    ...suites.flatMap((suite) => ["--suite", suite]),
    ...(seed === undefined ? [] : ["--seed", String(seed)]),
    "--runs",
    "3",
    "--har",
    "--report-dir",
    dir,
  ];
  for (const f of faults) argv.push("--fault", f);
  await main(argv, io);
  const [folder] = readdirSync(dir).filter((d) => !d.startsWith("."));
  const at = join(dir, folder as string);
  return {
    report: JSON.parse(readFileSync(join(at, "report.json"), "utf8")),
    har: join(at, "evidence.har.gz"),
  };
}

const failed = (r: RunResult, party?: string) =>
  r.checks.filter((c) => c.status === "failed" && (party === undefined || c.suite === party));

/** lckit judge on the run's evidence, knowing the clients' roles as the embedded reference's target file
 *  gives them (the traffic never says them). */
const judgeEvidence = (har: string) =>
  judgeTraffic({ source: har, access: accessOfTarget(embeddedTargetDescription()) });

describe("the kit's own evidence.har", () => {
  it("of a run against the correct reference: no service fault, and a valid report", async () => {
    const { har } = await runWithHar([]);
    const { result, parties } = await judgeEvidence(har);
    // The evidence labels each token and client secret apart: the kit's clients are told apart (the
    // kit's checks break caller rules on purpose, so their own findings are not asserted here).
    expect(parties).toEqual(
      expect.arrayContaining(["service", "client acme-admin", "client acme-editor", "client acme-viewer"]),
    );
    expect(failed(result, "service").map((c) => c.id)).toEqual([]);
    const passedService = result.checks.filter((c) => c.suite === "service" && c.status === "passed");
    expect(passedService.map((c) => c.id)).toEqual(
      expect.arrayContaining([
        "service/refuses-missing-token",
        "service/scroll-every-record-once",
        "service/page-within-limit",
        "service/refuses-malformed-token",
        "service/refuses-expired-token",
        "service/refuses-foreign-tenant",
      ]),
    );
    expect(result.subject).toMatchObject({ kind: "traffic", source: har });
    expect(reportValidator()(result), JSON.stringify(reportValidator().errors)).toBe(true);
  }, 60_000);

  // Two complete reads of one scan with no write between them: the lookup-scan suite alone, whose checks
  // only read, at a seed whose drawn page sizes read one scan twice across the page boundary where the
  // fault loses a record (seeds 1-3 draw no such pair; beside the auth suite's writes the interleaving of
  // the lanes decides too).
  it("of reads alone: the complete reads of one scan compared (none skipped), against the correct reference and a reference that loses a record", async () => {
    const correct = await judgeEvidence((await runWithHar([], { suites: ["lookup-scan"], seed: 4 })).har);
    const judged = correct.result.checks.find((c) => c.id === "service/scroll-none-skipped");
    expect(judged?.status).toBe("passed");
    const { report, har } = await runWithHar(["scan-loses-record-at-page-boundary"], {
      suites: ["lookup-scan"],
      seed: 4,
    });
    const { result } = await judgeEvidence(har);
    expect(failed(result, "service").map((c) => c.id)).toEqual(["service/scroll-none-skipped"]);
    const active = new Set(failed(report).flatMap((c) => c.requirements));
    expect(failed(result, "service")[0]?.requirements.some((id) => active.has(id))).toBe(true);
  }, 60_000);

  it.each([
    ["scan-repeats-record-at-page-boundary", "service/scroll-every-record-once"],
    ["scan-exceeds-limit", "service/page-within-limit"],
    ["missing-auth-accepted", "service/refuses-missing-token"],
    ["scan-ignores-order", "service/scroll-order-kept"],
    ["scan-ignores-filter", "service/scroll-filter-kept"],
    ["lookup-record-field-wrong-type", "service/contract/scanLookups"],
    // Seen only through the labels of the kit's pseudonymous evidence: a token never issued, a token's
    // life past its expiry, the client a token belongs to.
    ["malformed-token-accepted", "service/refuses-malformed-token"],
    ["expired-token-accepted", "service/refuses-expired-token"],
    ["cross-tenant-read", "service/refuses-foreign-tenant"],
  ])(
    "of a run against %s names the service with %s, a rule of the active check's requirement",
    async (fault, rule) => {
      const { report, har } = await runWithHar([fault]);
      const { result } = await judgeEvidence(har);
      expect(failed(result, "service").map((c) => c.id)).toEqual([rule]);
      const finding = failed(result, "service")[0];
      expect(finding?.suite).toBe("service");
      expect(finding?.message).toMatch(/^service at fault/);
      const active = new Set(failed(report).flatMap((c) => c.requirements));
      expect(finding?.requirements.some((id) => active.has(id))).toBe(true);
    },
    60_000,
  );
});

/** A HAR of exchanges as the sandbox recorded them (unredacted: what a proxy in front of staging sees). */
function harOf(exchanges: readonly TrafficExchange[]): string {
  const entries = harEntriesOf(exchanges);
  return JSON.stringify({ log: { version: "1.2", creator: { name: "test", version: "0" }, entries } });
}

describe("an example client's traffic", () => {
  const client = packagePath("examples", "clients", "lookup-client.mjs");
  const check = (clientId: string, fault?: string) =>
    clientCheck({
      argv: [process.execPath, client],
      clientId,
      env: { ...process.env, ...(fault ? { FAULT: fault } : {}) },
      timeoutMs: 60_000,
    });

  it("gives the client check's caller finding, blamed on the faulty client only, the correct one interleaved", async () => {
    const [faulty, correct] = await Promise.all([
      check("nightly-sync", "wrong-scroll"),
      check("order-service"),
    ]);
    const rule = "client/scan-passes-previous-scroll-id";
    expect(faulty.result.checks.find((c) => c.id === rule)?.status).toBe("failed");
    const both = [...faulty.traffic.exchanges, ...correct.traffic.exchanges].sort((a, b) => a.at - b.at);
    const file = join(tmp(), "two-clients.har.gz");
    writeFileSync(file, gzipSync(harOf(both)));
    const { result, parties } = await judgeTraffic({ source: file });
    expect(parties).toEqual(["service", "client nightly-sync", "client order-service"]);
    expect(failed(result).map((c) => [c.suite, c.id])).toEqual([
      ["client nightly-sync", `${rule}[nightly-sync]`],
    ]);
    expect(failed(result)[0]?.message).toMatch(/not the scrollId the previous answer gave/);
    // Secrets never reach the report: the clients' tokens and Basic credentials.
    const text = JSON.stringify(result);
    for (const t of [...faulty.traffic.tokens, ...correct.traffic.tokens])
      expect(text).not.toContain(t.value);
    for (const x of both) {
      const basic = /^basic\s+(\S+)/i.exec(x.headers.authorization ?? "");
      if (basic) expect(text).not.toContain(basic[1]);
    }
    // Named out, the faulty client is not judged.
    const without = await judgeTraffic({ source: file, excludeClients: ["nightly-sync"] });
    expect(without.parties).toEqual(["service", "client order-service"]);
    expect(failed(without.result)).toEqual([]);
  }, 120_000);

  it("traffic without times leaves the rules that read time undecided, never passed; the others judge as before", async () => {
    const run = await check("order-service");
    const file = join(tmp(), "untimed.har");
    const timed = JSON.parse(harOf(run.traffic.exchanges)) as { log: { entries: Record<string, unknown>[] } };
    for (const e of timed.log.entries) delete e.startedDateTime;
    writeFileSync(file, JSON.stringify(timed));
    const { result } = await judgeTraffic({ source: file });
    const status = (id: string) => result.checks.find((c) => c.id === `${id}[order-service]`)?.status;
    const readsTime = CALLER_RULES.filter((r) => r.readsTime === true);
    expect(readsTime.length).toBeGreaterThan(0);
    const judged = readsTime.filter((r) => status(r.id) !== "not-exercised");
    expect(judged.length).toBeGreaterThan(0);
    for (const r of judged) expect(status(r.id), r.id).toBe("inconclusive");
    expect(status("client/scan-passes-previous-scroll-id")).toBe("passed");
  }, 120_000);
});

describe("bad input", () => {
  it("a truncated or malformed HAR is a clear error, exit 2", async () => {
    const dir = tmp();
    const one = { request: { method: "GET", url: "https://x/" }, response: { status: 200 } };
    const whole = JSON.stringify({ log: { entries: [one, one] } });
    // Cut inside the second entry, as a copy of a file still being written would be.
    const har = whole.slice(0, whole.lastIndexOf("200"));
    writeFileSync(join(dir, "cut.har"), har);
    writeFileSync(join(dir, "bad.har"), "<html>not json</html>");
    for (const [file, says] of [
      ["cut.har", /truncated HAR: the file ends inside its JSON after 1 complete entry/],
      ["bad.har", /not a HAR: it starts with "<html>/],
    ] as const) {
      const io = captureIo();
      expect(await main(["judge", join(dir, file), "--report-dir", join(dir, "reports")], io)).toBe(2);
      expect(io.stderr()).toMatch(says);
    }
  });

  it("another API's traffic judges nothing: every rule not exercised, exit 2, never a pass", async () => {
    const dir = tmp();
    const other: TrafficExchange[] = [0, 1].map((i) => ({
      seq: i,
      at: 1_700_000_000_000 + i,
      method: "GET",
      url: `https://api.example.com/v2/users/${i}`,
      headers: { authorization: "Bearer abcdefgh12345678" },
      body: undefined,
      status: 200,
      responseHeaders: { "content-type": "application/json" },
      responseBody: "{}",
      durationMs: 1,
      pathname: `/v2/users/${i}`,
      search: "",
      operation: undefined,
      bearer: "abcdefgh12345678",
      clientId: undefined,
    }));
    writeFileSync(join(dir, "other.har"), harOf(other));
    const io = captureIo();
    expect(await main(["judge", join(dir, "other.har"), "--report-dir", join(dir, "reports")], io)).toBe(2);
    expect(io.stdout()).toMatch(/calls an operation of the interface .*nothing was judged/);
    const { result } = await judgeTraffic({ source: join(dir, "other.har") });
    expect(new Set(result.checks.map((c) => c.status))).toEqual(new Set(["not-exercised"]));
  });
});
