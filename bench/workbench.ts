// The consumer workbench's figures, printed, never asserted: how fast the sandbox is ready (lckit serve,
// startSandbox) against a bare node:http server started the same way, how fast a recording is judged by
// the caller rules against JSON.parse of the same answers, and what a client check adds to a command's own
// run time. Run: npm run bench:workbench
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { loadContract } from "../src/contract/index.ts";
import { packagePath } from "../src/package-root.ts";
import { createReference, manualClock, type RecordedExchange, startSandbox } from "../src/reference/index.ts";
import { clientCheck } from "../src/workbench/client-check.ts";
import { judgeTraffic } from "../src/workbench/client-result.ts";
import { readTraffic } from "../src/workbench/traffic.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });

/** Milliseconds from spawn until the process writes `ready` to stderr. */
function timeToReady(argv: string[], ready: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
      if (ready.test(err)) {
        const ms = performance.now() - started;
        child.kill("SIGTERM");
        child.once("exit", () => resolve(ms));
      }
    });
    child.once("exit", (code) => {
      if (!ready.test(err)) reject(new Error(`exited ${code} before ready: ${err}`));
    });
  });
}

async function readiness(): Promise<void> {
  const lckit = [
    process.execPath,
    packagePath("bin", "lckit.mjs"),
    "serve",
    "--port",
    "0",
    "--control-port",
    "0",
  ];
  const bare = [
    process.execPath,
    "-e",
    "require('node:http').createServer().listen(0, () => console.error('ready'))",
  ];
  const serve: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < 5; i++) {
    node.push(await timeToReady(bare, /ready/));
    serve.push(await timeToReady(lckit, /Stop with/));
  }
  console.log(
    `lckit serve ready: median ${fmt(median(serve))} ms (bare node:http process ${fmt(median(node))} ms, ratio ${fmt(median(serve) / median(node), 2)}; issue target <= 300 ms)`,
  );
  const inProcess: number[] = [];
  const bareInProcess: number[] = [];
  for (let i = 0; i < 20; i++) {
    let started = performance.now();
    const sandbox = await startSandbox({ data: packagePath("examples", "sandbox-data.yaml") });
    inProcess.push(performance.now() - started);
    await sandbox.close();
    started = performance.now();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    bareInProcess.push(performance.now() - started);
    await new Promise((resolve) => server.close(resolve));
  }
  console.log(
    `startSandbox() ready in process: median ${fmt(median(inProcess), 1)} ms (first ${fmt(inProcess[0] ?? 0, 1)} ms, data file and contract loaded); bare node:http listen ${fmt(median(bareInProcess), 2)} ms; issue target <= 50 ms`,
  );
}

/** A realistic recording: clients that reuse a token, page through scans, list blocked values, delete, and
 *  meet a 429 now and then. */
function recording(n: number): RecordedExchange[] {
  const out: RecordedExchange[] = [];
  const base = "http://127.0.0.1:8180";
  const tokenBody = JSON.stringify({
    access_token: "tok-0000000000000000",
    token_type: "bearer",
    expires_in: 900,
  });
  const page = (scrollId: string | undefined) =>
    JSON.stringify({
      ...(scrollId ? { scrollId } : {}),
      values: [{ code: "DE", type: "rdm/lookupTypes/Country", enabled: true }],
    });
  let at = Date.UTC(2026, 0, 1);
  const push = (
    x: Omit<RecordedExchange, "seq" | "at" | "durationMs" | "responseHeaders"> & {
      responseHeaders?: Record<string, string>;
    },
  ) => {
    at += 3;
    out.push({
      seq: out.length,
      at,
      durationMs: 0.2,
      responseHeaders: { "content-type": "application/json" },
      ...x,
    });
  };
  const auth = { authorization: "Bearer tok-0000000000000000" };
  push({
    method: "POST",
    url: `${base}/oauth/token`,
    headers: { authorization: "Basic b3JkZXItc2VydmljZTpvcmRlci1zZXJ2aWNlLXNlY3JldA==" },
    body: "grant_type=client_credentials",
    status: 200,
    responseBody: tokenBody,
  });
  let scroll = 0;
  while (out.length < n) {
    const id = `scroll-${scroll++}`;
    push({
      method: "POST",
      url: `${base}/lookups/shop/_scan?limit=100`,
      headers: auth,
      status: 200,
      responseBody: page(id),
    });
    for (let p = 0; p < 5; p++)
      push({
        method: "POST",
        url: `${base}/lookups/shop/_scan?limit=100`,
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ scrollId: id }),
        status: 200,
        responseBody: page(p < 4 ? id : undefined),
      });
    push({
      method: "POST",
      url: `${base}/configuration/shop/autopilot/stats/_scan?limit=100`,
      headers: auth,
      status: 200,
      responseBody: page(undefined),
    });
    push({
      method: "GET",
      url: `${base}/configuration/shop/autopilot/Country/blockedValues?limit=50`,
      headers: auth,
      status: 200,
      responseBody: "[]",
    });
    push({
      method: "POST",
      url: `${base}/tasks/shop`,
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ type: "delete", parameters: { uris: ["shop/Country/DE"] } }),
      status: 202,
      responseBody: "{}",
    });
    push({
      method: "GET",
      url: `${base}/healthcheck`,
      headers: auth,
      status: 429,
      responseHeaders: { "retry-after": "1" },
      responseBody: '{"error":"rate_limited"}',
    });
    at += 1000;
    push({
      method: "GET",
      url: `${base}/healthcheck`,
      headers: auth,
      status: 200,
      responseBody: '{"status":"OK"}',
    });
  }
  return out.slice(0, n);
}

function judging(): void {
  // A client check judges after its sandbox ran, so the contract is loaded by then; load it here too.
  let started = performance.now();
  loadContract();
  console.log(`contract loaded (once per process, before judging): ${fmt(performance.now() - started)} ms`);
  const clients = [{ clientId: "order-service", multitoken: true, maxActiveTokensAllowed: 5 }];
  for (const n of [10_000, 100_000]) {
    const recorded = recording(n);
    // Baseline in the same run: parsing every answer once, the least a judge of the recording must do.
    started = performance.now();
    let parsed = 0;
    for (const x of recorded) parsed += JSON.parse(x.responseBody) === null ? 0 : 1;
    const parseMs = performance.now() - started;
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    started = performance.now();
    const verdicts = judgeTraffic(readTraffic(recorded, clients));
    const judgeMs = performance.now() - started;
    const heapAfter = process.memoryUsage().heapUsed;
    const failed = verdicts.filter((v) => v.verdict.status === "failed").map((v) => v.rule.id);
    console.log(
      `judging ${fmt(n)} recorded requests: ${fmt(judgeMs)} ms, ${fmt((n / judgeMs) * 1000)} requests/s (JSON.parse of the answers alone ${fmt(parseMs)} ms, ratio ${fmt(judgeMs / parseMs, 1)}; issue target >= 50,000 requests/s, 100,000 in <= 5 s); heap +${fmt((heapAfter - heapBefore) / 1e6, 1)} MB; rules failed: ${failed.join(", ") || "none"} (${parsed} parsed)`,
    );
  }
}

async function sweepOverhead(): Promise<void> {
  const client = packagePath("examples", "clients", "lookup-client.mjs");
  const direct: number[] = [];
  const checked: number[] = [];
  for (let i = 0; i < 3; i++) {
    const sandbox = await startSandbox({ data: packagePath("examples", "sandbox-data.yaml") });
    const env = {
      ...process.env,
      LCKIT_BASE_URL: sandbox.baseUrl,
      LCKIT_RDM_URL: sandbox.rdmUrl,
      LCKIT_CONTROL_URL: sandbox.controlUrl,
      LCKIT_CLIENT_ID: "nightly-sync",
      LCKIT_CLIENT_SECRET: "nightly-sync-secret",
      LCKIT_TENANT: "shop",
      LCKIT_LOOKUP_TYPE: "PaymentMethod",
    };
    let started = performance.now();
    await new Promise((resolve) =>
      spawn(process.execPath, [client], { env, stdio: "ignore" }).once("exit", resolve),
    );
    direct.push(performance.now() - started);
    await sandbox.close();
    started = performance.now();
    await clientCheck({ argv: [process.execPath, client], clientId: "nightly-sync" });
    checked.push(performance.now() - started);
  }
  const d = median(direct);
  const c = median(checked);
  console.log(
    `one client check run: ${fmt(c)} ms vs the command alone against a running sandbox ${fmt(d)} ms: +${fmt(((c - d) / d) * 100, 1)} % (issue target <= 10 %)`,
  );
}

/** First page of a lookups scan over 100,000 lookups, per sort field (each scan sorts its own snapshot). */
async function scanFirstPages(): Promise<void> {
  const ref = createReference({
    clock: manualClock(),
    generate: { tenant: "acme", lookups: 100_000, seed: 1 },
  });
  const basic = `Basic ${Buffer.from("acme-viewer:acme-viewer-secret").toString("base64")}`;
  const answer = await ref.fetch(
    new Request("http://sandbox/oauth/token", {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    }),
  );
  const { access_token } = (await answer.json()) as { access_token: string };
  const scan = async (query: string) => {
    const started = performance.now();
    const r = await ref.fetch(
      new Request(`http://sandbox/lookups/acme/_scan?limit=100${query}`, {
        method: "POST",
        headers: { authorization: `Bearer ${access_token}` },
      }),
    );
    await r.text();
    return performance.now() - started;
  };
  const baseline = median([await scan(""), await scan(""), await scan("")]);
  const rows: string[] = [];
  for (const field of ["code", "updateDate", "version", "type", "updatedBy", "enabled"]) {
    const ms = median([
      await scan(`&sort=${field}`),
      await scan(`&sort=${field}`),
      await scan(`&sort=${field}`),
    ]);
    rows.push(`${field} ${fmt(ms)} ms`);
  }
  console.log(
    `lookups scan, first page of 100 over 100,415 lookups (median of 3): unsorted ${fmt(baseline)} ms; ${rows.join(", ")} (issue target <= 50 ms each)`,
  );
}

await readiness();
await scanFirstPages();
judging();
await sweepOverhead();
