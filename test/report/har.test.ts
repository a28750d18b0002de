// evidence.har on a real failing run of the embedded reference: a HAR 1.2 file with every exchange the
// run sent, no client secret or token value in it, failed checks citing the entries of their evidence;
// verification refuses a citation of an entry that is not there.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { writeManifest } from "../../src/report-folder/manifest.ts";
import type { RunResult } from "../../src/result/model.ts";
import { captureIo } from "../cli/capture-io.ts";

const dir = mkdtempSync(join(tmpdir(), "lckit-har-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Har {
  log: {
    version: string;
    creator: { name: string; version: string };
    entries: {
      startedDateTime: string;
      time: number;
      request: {
        method: string;
        url: string;
        headers: { name: string; value: string }[];
        postData?: { text: string };
      };
      response: { status: number; content: { text: string } };
      timings: { wait: number };
      _exchangeId?: number;
      _check?: string;
    }[];
  };
}

let folder: string;
let result: RunResult;
let har: Har;
let text: string;
beforeAll(async () => {
  const io = captureIo();
  io.cwd = dir;
  const reportDir = join(dir, "reports");
  const code = await main(
    [
      "run",
      "--har",
      "--check",
      "lookup-scan/*",
      "--check",
      "auth/*",
      "--fault",
      "scan-ignores-order",
      "--runs",
      "2",
      "--seed",
      "5",
      "--report-dir",
      reportDir,
    ],
    io,
  );
  expect(code, io.stderr()).toBe(1);
  folder = join(reportDir, readdirSync(reportDir)[0] as string);
  result = JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as RunResult;
  // Written gzip-compressed; the plain text is not left beside it.
  expect(readdirSync(folder)).not.toContain("evidence.har");
  const gz = readFileSync(join(folder, "evidence.har.gz"));
  text = gunzipSync(gz).toString("utf8");
  // Repeated headers and bodies: the compressed file is a small part of the text it holds.
  expect(gz.length).toBeLessThan(Buffer.byteLength(text) / 5);
  har = JSON.parse(text) as Har;
}, 60_000);

describe("evidence.har", () => {
  it("is HAR 1.2 with one entry per request the run sent", () => {
    expect(har.log.version).toBe("1.2");
    expect(har.log.creator.name).toBe(result.kit.name);
    expect(har.log.entries.length).toBe(result.requestsSent);
    for (const e of har.log.entries) {
      expect(Number.isNaN(Date.parse(e.startedDateTime))).toBe(false);
      expect(e.time).toBeGreaterThanOrEqual(0);
      expect(e.request.url).toMatch(/^http/);
      expect(e.response.status).toBeGreaterThan(0);
    }
  });

  it("holds no client secret and no token value: each replaced by a label of its own", () => {
    for (const role of ["admin", "editor", "viewer", "quota"])
      expect(text).not.toContain(`acme-${role}-secret`);
    const auth = har.log.entries.flatMap((e) => e.request.headers.filter((h) => h.name === "authorization"));
    expect(auth.length).toBeGreaterThan(0);
    const bearers = new Set<string>();
    for (const h of auth) {
      const [scheme, credential = ""] = h.value.split(" ");
      if (scheme === "Bearer" && /^redacted-token-\d+$/.test(credential)) bearers.add(credential);
      // A Basic pair keeps its client id; its secret is a label.
      if (scheme === "Basic" && credential !== "")
        expect(Buffer.from(credential, "base64").toString()).toMatch(/^[^:]*:redacted-secret-\d+$/);
    }
    const issued = new Set<string>();
    for (const e of har.log.entries.filter((e) => /"access_token"/.test(e.response.content.text))) {
      const label = /"access_token":"(redacted-token-\d+)"/.exec(e.response.content.text)?.[1];
      expect(label, e.response.content.text).toBeDefined();
      issued.add(label as string);
    }
    expect(issued.size).toBeGreaterThan(1);
    // The same token is the same label where it is issued and where it is sent.
    expect([...issued].filter((t) => bearers.has(t)).length).toBeGreaterThan(0);
  });

  it("every check cites exactly the entries of the exchanges it used, its evidence among them", () => {
    const ran = result.checks.filter((c) => c.status !== "skipped");
    expect(ran.length).toBeGreaterThan(5);
    for (const c of ran) {
      expect(c.harEntries?.length, c.id).toBe(c.exchangeIds?.length);
      const cited = (c.harEntries ?? []).map((i) => har.log.entries[i]);
      expect(cited.map((e) => e?._exchangeId)).toEqual(c.exchangeIds ?? []);
      for (const x of c.evidence ?? []) {
        const entry = cited.find((e) => e?._exchangeId === x.id);
        expect(entry?.request.method, `${c.id} evidence ${x.id}`).toBe(x.request.method);
        expect(entry?.request.url).toBe(x.request.url);
      }
    }
    // Each entry names the check that sent it; a check cites what it sent itself.
    for (const c of ran)
      for (const x of c.evidence ?? [])
        if (x.check === c.id) expect(har.log.entries.find((e) => e._exchangeId === x.id)?._check).toBe(c.id);
  });

  it("a check that judged a recording another check made cites that check's entries", () => {
    const judgedShared = result.checks.filter((c) =>
      (c.harEntries ?? []).some((i) => {
        const sender = har.log.entries[i]?._check;
        return sender !== undefined && sender !== c.id && !sender.startsWith("lckit/");
      }),
    );
    expect(judgedShared.length).toBeGreaterThan(0);
    // The scan checks judge the scrolls others recorded; the two expired-token checks judge one set of
    // answers, whichever of them sent it.
    for (const c of judgedShared)
      expect(c.suite === "lookup-scan" || c.id.startsWith("auth/expired-token"), c.id).toBe(true);
    expect(judgedShared.some((c) => c.suite === "lookup-scan")).toBe(true);
    // A failure of a check that judged a recording shows the recorded pages in its evidence.
    const failedShared = judgedShared.filter((c) => c.status === "failed");
    for (const c of failedShared) expect(c.evidence?.length, c.id).toBeGreaterThan(0);
  });

  it("the expired-token check that judged the other's answers cites what that check sent, no other's", () => {
    const ids = ["auth/expired-token-refused", "auth/expired-token-401"];
    const foreignSenders = ids.map((id) => {
      const c = result.checks.find((x) => x.id === id);
      expect(c?.status, id).not.toBe("skipped");
      const senders = (c?.harEntries ?? []).map((i) => har.log.entries[i]?._check);
      return new Set(senders.filter((s) => s !== undefined && s !== id && !s.startsWith("lckit/")));
    });
    // One of the two sent the expired tokens (ctx.ownExchangesOf); the other cites those exchanges only.
    expect(foreignSenders.map((s) => s.size).sort()).toEqual([0, 1]);
    for (const [i, senders] of foreignSenders.entries()) for (const s of senders) expect(s).toBe(ids[1 - i]);
  });

  it("verification checks the citations: an entry that is not there is refused", async () => {
    const io = captureIo();
    io.cwd = dir;
    expect(await main(["report", "verify", folder], io), io.stdout()).toBe(0);
    expect(io.stdout()).toMatch(
      /ok {3}evidence\.har\.gz: \d+ exchanges; all \d+ entries the checks cite exist/,
    );
    const spoilt = structuredClone(result);
    const c = spoilt.checks.find((x) => x.harEntries !== undefined) as RunResult["checks"][number];
    c.harEntries = [har.log.entries.length + 5];
    writeFileSync(join(folder, "report.json"), JSON.stringify(spoilt));
    writeManifest(folder, result.runId);
    const again = captureIo();
    again.cwd = dir;
    expect(await main(["report", "verify", folder], again)).toBe(1);
    expect(again.stdout()).toMatch(
      new RegExp(`FAIL evidence\\.har\\.gz: check ${c.id} cites entry \\d+, which does not exist`),
    );
  });

  it("verification refuses a citation of an entry holding an exchange the check did not use", async () => {
    const spoilt = structuredClone(result);
    const c = spoilt.checks.find((x) => (x.harEntries ?? []).length > 0) as RunResult["checks"][number];
    const used = new Set(c.exchangeIds);
    const other = har.log.entries.findIndex((e) => e._exchangeId !== undefined && !used.has(e._exchangeId));
    c.harEntries = [other];
    writeFileSync(join(folder, "report.json"), JSON.stringify(spoilt));
    writeManifest(folder, result.runId);
    const io = captureIo();
    io.cwd = dir;
    expect(await main(["report", "verify", folder], io)).toBe(1);
    expect(io.stdout()).toContain(
      `FAIL evidence.har.gz: entry ${other} cited by ${c.id} holds exchange ${har.log.entries[other]?._exchangeId}, which is not one the check used`,
    );
  });

  it("is written only when asked for (--har, --certify); --certify refuses --no-har (exit 2)", async () => {
    const io = captureIo();
    io.cwd = dir;
    const reportDir = join(dir, "no-har");
    expect(await main(["run", "--check", "service/*", "--report-dir", reportDir], io)).toBe(0);
    expect(readdirSync(join(reportDir, readdirSync(reportDir)[0] as string))).not.toContain(
      "evidence.har.gz",
    );
    const certify = captureIo();
    expect(await main(["run", "--certify", "--no-har"], certify)).toBe(2);
    expect(certify.stderr()).toMatch(
      /--certify keeps every exchange as evidence \(evidence\.har\.gz\); it cannot be used with --no-har/,
    );
  });
});
