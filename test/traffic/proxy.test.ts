// lckit proxy proven on real clients and real upstreams: the example client called through the proxy in
// front of the embedded reference gets the caller findings lckit client check gives it, and none when
// correct; a reference with a seeded fault and a faulty client behind one proxy give one finding each,
// each blamed on its party; an upstream that hangs or resets gets its client a 504 or 502, counted as no
// party's fault, while the other clients are served, garbage gets a 400, and SIGTERM writes the report.
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { clientCheck } from "../../src/commands/client/check.ts";
import { defaultClientWorld } from "../../src/commands/client/default-world.ts";
import { lookupTypeName } from "../../src/contract/index.ts";
import { packagePath } from "../../src/package-root.ts";
import { listenControl, referenceOver, shiftableClock } from "../../src/reference/index.ts";
import type { RunResult } from "../../src/result/model.ts";
import { CALLER_RULES } from "../../src/rules/caller/caller-rules.ts";
import { judgeTraffic } from "../../src/traffic/judge.ts";
import { startProxy } from "../../src/traffic/proxy.ts";
import { TrafficJudge } from "../../src/traffic/traffic-judge.ts";
import { captureIo } from "../cli/capture-io.ts";
import { reportValidator } from "../report/report-schema.ts";
import { collectingJudge, proxyInFront } from "./proxy-in-process.ts";
import { type Held, proxyBinary, runExampleClient, serveBinary } from "./proxy-processes.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "lckit-proxy-"));
const failed = (r: RunResult, party?: string) =>
  r.checks.filter((c) => c.status === "failed" && (party === undefined || c.suite === party));
const callerIds = new Set(CALLER_RULES.map((r) => r.id));
/** "client/x[nightly-sync]" → "client/x". */
const ruleOf = (id: string) => id.replace(/\[[^\]]*\]$/, "");

const held: Held[] = [];
afterAll(async () => {
  for (const h of held) await h.stop("SIGKILL");
});

describe("an example client through the proxy in front of the embedded reference", () => {
  it("gets the caller findings lckit client check gives it when faulty, none when correct", async () => {
    const FAULT = "wrong-scroll";
    const client = packagePath("examples", "clients", "lookup-client.mjs");
    const checked = await clientCheck({
      argv: [process.execPath, client],
      clientId: "nightly-sync",
      env: { ...process.env, FAULT },
      timeoutMs: 60_000,
    });
    const expected = failed(checked.result)
      .map((c) => c.id)
      .filter((id) => callerIds.has(id));
    expect(expected).toContain("client/scan-passes-previous-scroll-id");

    const world = defaultClientWorld();
    const reference = referenceOver(world, { clock: shiftableClock() });
    const server = await reference.listen({ port: 0 });
    const control = await listenControl(reference.control, { port: 0 });
    const judge = new TrafficJudge();
    const proxy = await startProxy({
      baseUrl: server.baseUrl,
      rdmUrl: server.rdmUrl,
      port: 0,
      upstreamTimeoutMs: 30_000,
      judge,
    });
    try {
      const lookup = world.lookups.find((l) => l.tenantId === "shop");
      const env = (clientId: string) => ({
        LCKIT_BASE_URL: proxy.baseUrl,
        LCKIT_RDM_URL: proxy.rdmUrl,
        LCKIT_TOKEN_URL: `${proxy.baseUrl}/oauth/token`,
        LCKIT_CONTROL_URL: control.url,
        LCKIT_CLIENT_ID: clientId,
        LCKIT_CLIENT_SECRET: `${clientId}-secret`,
        LCKIT_TENANT: "shop",
        LCKIT_LOOKUP_TYPE: lookup ? lookupTypeName(lookup.type) : "",
        LCKIT_VARIANT: "default",
      });
      // One after the other: the client moves the sandbox's clock and rate limit, which would reach into
      // the other's run (the client check gives each its own sandbox).
      const faulty = await runExampleClient(env("nightly-sync"), FAULT);
      const correct = await runExampleClient(env("order-service"));
      // It ends as under the client check (order-service, ROLE_RDM, is refused its delete task: exit 1).
      expect(faulty.code, faulty.stderr).toBe(checked.outcome.exitCode);
      expect(correct.stderr).toMatch(/lookups \d+ \(200\)/);
      const { result, parties } = judge.judgement({ source: "proxy", startedAt: new Date() });
      expect(parties).toEqual(["service", "client nightly-sync", "client order-service"]);
      expect(failed(result, "client nightly-sync").map((c) => ruleOf(c.id))).toEqual(expected);
      expect(failed(result, "client order-service")).toEqual([]);
      expect(failed(result, "service")).toEqual([]);
      expect(proxy.counts).toMatchObject({ upstreamTimedOut: 0, upstreamReset: 0, malformedRequests: 0 });
      // Secrets never reach the report: the clients' secrets and the tokens they were issued.
      const text = JSON.stringify(result);
      for (const secret of ["nightly-sync-secret", "order-service-secret"])
        expect(text).not.toContain(secret);
      const issued = [...reference.state.tokens.keys()];
      expect(issued.length).toBeGreaterThan(1);
      for (const token of issued) expect(text).not.toContain(token);
    } finally {
      await proxy.close();
      await control.close();
      await server.close();
    }
  }, 120_000);
});

/** A target file in front of these base URLs (no credentials: the proxy needs none). */
function targetFile(dir: string, baseUrl: string, rdmUrl = baseUrl): string {
  const file = join(dir, "target.yaml");
  writeFileSync(file, `name: proxied\nbaseUrl: ${baseUrl}\nrdmUrl: ${rdmUrl}\ntenant: shop\n`);
  return file;
}

/** The report a stopped proxy wrote: its one folder under `root`. */
function reportOf(root: string): RunResult {
  const [folder, ...more] = readdirSync(root).filter((d) => !d.startsWith("."));
  expect(more).toEqual([]);
  return JSON.parse(readFileSync(join(root, folder as string, "report.json"), "utf8"));
}

describe("a faulty service and a faulty client behind one proxy, a correct client interleaved", () => {
  it("give one finding each, each blamed on its party; the --record file judged again gives the same", async () => {
    const dir = tmp();
    const recording = join(dir, "traffic.ndjson");
    const serve = await serveBinary([
      "--data",
      packagePath("examples", "sandbox-data.yaml"),
      "--tenant",
      "shop",
      "--lookups",
      "300",
      "--fault",
      "scan-repeats-record-at-page-boundary",
    ]);
    held.push(serve);
    const proxy = await proxyBinary([
      "--target",
      targetFile(dir, serve.baseUrl),
      "--report-dir",
      join(dir, "r"),
      "--record",
      recording,
    ]);
    held.push(proxy);
    const env = (clientId: string) => ({
      LCKIT_BASE_URL: proxy.baseUrl,
      LCKIT_RDM_URL: proxy.rdmUrl,
      LCKIT_CLIENT_ID: clientId,
      LCKIT_CLIENT_SECRET: `${clientId}-secret`,
      LCKIT_TENANT: "shop",
      LCKIT_LOOKUP_TYPE: "ShippingCountry",
    });
    // Two clients at once through the one proxy: their exchanges interleave.
    const [ran, correct] = await Promise.all([
      runExampleClient(env("nightly-sync"), "big-page"),
      runExampleClient(env("order-service")),
    ]);
    expect(ran.stderr).toMatch(/lookups \d+ \(200\)/);
    expect(correct.code, correct.stderr).toBe(0);
    expect(await proxy.stop("SIGTERM")).toBe(1);
    const report = reportOf(join(dir, "r"));
    const findings = failed(report).map((c) => [c.suite, c.id]);
    expect(findings).toEqual([
      ["service", "service/scroll-every-record-once"],
      ["client nightly-sync", "client/request-within-contract[nightly-sync]"],
    ]);
    const parties = ["service", "client nightly-sync", "client order-service"];
    expect(report.subject).toMatchObject({ parties });
    // The recording, judged again later, gives the same parties and findings; it holds no secret, each
    // token a label of its own (the clients' Basic pairs keep their ids).
    const again = await judgeTraffic({ source: recording, format: "ndjson" });
    expect(again.parties).toEqual(parties);
    expect(failed(again.result).map((c) => [c.suite, c.id])).toEqual(findings);
    const recorded = readFileSync(recording, "utf8");
    for (const secret of ["nightly-sync-secret", "order-service-secret"])
      expect(recorded).not.toContain(secret);
    const lines = recorded
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(again.result.subject).toMatchObject({ kind: "traffic", exchanges: lines.length });
    const issued = lines.flatMap((l) => /"access_token":"([^"]*)"/.exec(l.response.body)?.[1] ?? []);
    expect(issued.length).toBeGreaterThan(1);
    for (const t of issued) expect(t).toMatch(/^redacted-token-\d+$/);
    // The same label where a token is issued and where it is sent.
    const sent = new Set(lines.map((l) => /^Bearer (\S+)$/.exec(l.request.headers.authorization ?? "")?.[1]));
    expect(issued.filter((t) => sent.has(t)).length).toBeGreaterThan(0);
    // One token, one label across both files: each finding's exchange carries, in the report, the label
    // the recording gives the same request, and the client's finding a token the recording shows issued
    // to that client.
    const issuedTo = (clientId: string) =>
      lines
        .filter((l) =>
          Buffer.from((l.request.headers.authorization ?? "").replace(/^Basic /, ""), "base64")
            .toString()
            .startsWith(`${clientId}:`),
        )
        .flatMap((l) => /"access_token":"([^"]*)"/.exec(l.response.body)?.[1] ?? []);
    for (const check of failed(report)) {
      const evidence = (check.evidence ?? []).filter((e) => e.request.headers.authorization);
      expect(evidence.length, check.id).toBeGreaterThan(0);
      for (const e of evidence) {
        const label = /^Bearer (redacted-token-\d+)$/.exec(e.request.headers.authorization ?? "")?.[1];
        expect(label, e.request.headers.authorization).toBeDefined();
        const same = lines.filter(
          (l) => l.request.method === e.request.method && l.request.url === e.request.url,
        );
        expect(same.map((l) => l.request.headers.authorization)).toContain(`Bearer ${label}`);
        if (check.suite === "client nightly-sync") expect(issuedTo("nightly-sync")).toContain(label);
      }
    }
    expect(failed(report, "service")[0]?.message).toMatch(/^service at fault: .*came again on page 2/);
    expect(failed(report, "client nightly-sync")[0]?.message).toMatch(
      /^client nightly-sync at fault: .*limit=500; the maximum is 100/,
    );
    expect(proxy.stdout()).toMatch(/NOT CONFORMANT/);
    expect(JSON.stringify(report)).not.toContain("nightly-sync-secret");
    expect(reportValidator()(report), JSON.stringify(reportValidator().errors)).toBe(true);
  }, 120_000);
});

/** An upstream that answers by path: /hang never answers, /reset drops the connection, the rest 200. */
async function misbehavingUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url?.includes("hang")) return;
    if (req.url?.includes("reset")) return req.socket.destroy();
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe("upstream failures and garbage", () => {
  it("a hang gets 504 and a reset 502, no party blamed; garbage gets 400; the others are served; SIGTERM writes the report", async () => {
    const dir = tmp();
    const serve = await serveBinary(["--data", packagePath("examples", "sandbox-data.yaml")]);
    held.push(serve);
    const bad = await misbehavingUpstream();
    try {
      // {base_url} is the reference (tokens), {rdm_url} the misbehaving upstream.
      const proxy = await proxyBinary([
        "--target",
        targetFile(dir, serve.baseUrl, bad.url),
        "--upstream-timeout",
        "500ms",
        "--report-every",
        "200ms",
        "--report-dir",
        join(dir, "r"),
      ]);
      held.push(proxy);
      expect(proxy.baseUrl).not.toBe(proxy.rdmUrl);
      const token = () =>
        fetch(`${proxy.baseUrl}/oauth/token`, {
          method: "POST",
          headers: {
            authorization: `Basic ${Buffer.from("order-service:order-service-secret").toString("base64")}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: "grant_type=client_credentials",
        });
      const hung = fetch(`${proxy.rdmUrl}/lookups/shop/hang`);
      const reset = fetch(`${proxy.rdmUrl}/lookups/shop/reset`);
      // Served while the hung one waits: a token from the reference.
      const served = await token();
      expect(served.status).toBe(200);
      expect((await reset).status).toBe(502);
      expect((await hung).status).toBe(504);
      const garbage = await rawRequest(proxy.baseUrl, "NOT HTTP AT ALL\r\n\r\n");
      expect(garbage).toMatch(/^HTTP\/1\.1 400/);
      expect((await token()).status).toBe(200);
      // A report every 200 ms: one is there before the proxy is stopped.
      await waitFor(
        () => existsSync(join(dir, "r")) && readdirSync(join(dir, "r")).some((d) => !d.startsWith(".")),
      );
      // Nothing broken by anyone: exit 0 (the failures are the upstream's, blamed on no party).
      expect(await proxy.stop("SIGTERM")).toBe(0);
      const report = reportOf(join(dir, "r"));
      expect(report.subject).toMatchObject({
        kind: "traffic",
        judged: 2,
        proxy: { forwarded: 2, upstreamTimedOut: 1, upstreamReset: 1, malformedRequests: 1 },
      });
      expect(report.verdictReason).toMatch(/upstream failed 2 times .* blamed on no party/);
      expect(failed(report)).toEqual([]);
    } finally {
      await bad.close();
    }
  }, 120_000);
});

/** Sends raw bytes to the proxy and reads what comes back until the connection ends. */
function rawRequest(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let got = "";
    socket.on("data", (c) => {
      got += c.toString();
    });
    socket.on("end", () => resolve(got));
    socket.on("error", reject);
  });
}

/** Polls until ok(); the limit is generous because the judge thread starts slowly on a loaded machine. */
async function waitFor(ok: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error("waited in vain");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("an https upstream", () => {
  const cert = readFileSync(join(import.meta.dirname, "fixtures", "upstream-cert.pem"), "utf8");
  const key = readFileSync(join(import.meta.dirname, "fixtures", "upstream-key.pem"), "utf8");

  it("is reached with the CA named, and is an upstream failure (502) without it", async () => {
    const server = createHttpsServer({ cert, key }, (_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"OK"}'),
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const upstream = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const [ca, status] of [
        [cert, 200],
        [undefined, 502],
      ] as const) {
        const proxy = await startProxy({
          baseUrl: upstream,
          rdmUrl: upstream,
          port: 0,
          upstreamTimeoutMs: 5_000,
          judge: new TrafficJudge(),
          ...(ca === undefined ? {} : { ca }),
        });
        try {
          const answer = await fetch(`${proxy.baseUrl}/healthcheck`);
          expect(answer.status).toBe(status);
          if (status === 200) expect(await answer.json()).toEqual({ status: "OK" });
          else
            expect(proxy.counts.firstFailures[0]).toMatch(/GET \/healthcheck: .*(CERT|SELF_SIGNED|UNABLE)/i);
        } finally {
          await proxy.close();
        }
      }
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("forwarding", () => {
  it("passes bodies through unchanged (gzip as sent), keeps the upstream connection alive, and judges the decoded exchange", async () => {
    const json = JSON.stringify({ values: Array.from({ length: 2000 }, (_, i) => ({ code: `C${i}` })) });
    const zipped = gzipSync(json);
    let connections = 0;
    const seen: { host?: string; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ host: req.headers.host, body });
        // Streamed in pieces (chunked): the proxy must not wait for the whole before it forwards.
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.write(zipped.subarray(0, 100));
        setTimeout(() => res.end(zipped.subarray(100)), 20);
      });
    });
    server.on("connection", () => {
      connections += 1;
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
    const { judge, judged } = collectingJudge();
    const proxy = await proxyInFront(upstream, judge);
    try {
      expect(proxy.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/prefix$/);
      for (const i of [1, 2]) {
        const raw = await rawBody(`${proxy.baseUrl}/lookups/shop/_scan?limit=${i}`, `{"n":${i}}`);
        expect(raw.equals(zipped)).toBe(true);
      }
      expect(connections).toBe(1);
      expect(seen.map((s) => s.body)).toEqual(['{"n":1}', '{"n":2}']);
      expect(seen[0]?.host).toBe(new URL(upstream).host);
      expect(judged).toHaveLength(2);
      expect(judged[0]).toMatchObject({
        method: "POST",
        url: `${new URL(upstream).origin}/prefix/lookups/shop/_scan?limit=1`,
        body: '{"n":1}',
        status: 200,
        responseBody: json,
      });
      expect(judged[0]?.responseCut).toBeUndefined();
    } finally {
      await proxy.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

/** POSTs `body` and returns the answer's bytes as they came (no decompression). */
function rawBody(url: string, body: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("bad input to lckit proxy", () => {
  it.each([
    [[], /--target FILE is required/],
    [["--target", "nope.yaml"], /--target expects a target file, got "nope.yaml", which does not exist/],
    [
      ["--target", "TARGET", "--listen", "localhost"],
      /--listen expects HOST:PORT .* e\.g\. --listen 127\.0\.0\.1:8280/,
    ],
    [["--target", "TARGET", "--ca", "TARGET"], /--ca .* holds no PEM certificate/],
    [["--target", "TARGET", "--report-every", "soon"], /--report-every expects a number and a unit/],
    [["--target", "BAD_TARGET"], /target\.yaml: tenant: is required/],
  ])("%j: exit 2 naming what is wrong", async (argv, says) => {
    const dir = tmp();
    const target = targetFile(dir, "http://127.0.0.1:9");
    const io = captureIo();
    // A target file the kit cannot use is the user's input: exit 2, never "the run broke".
    const bad = join(dir, "bad", "target.yaml");
    mkdirSync(join(dir, "bad"));
    writeFileSync(bad, "name: no-tenant\nbaseUrl: http://127.0.0.1:9\n");
    const args = argv.map((a) => (a === "TARGET" ? target : a === "BAD_TARGET" ? bad : a));
    expect(await main(["proxy", ...args, "--report-dir", join(dir, "r")], io)).toBe(2);
    expect(io.stderr()).toMatch(says);
  });
});
