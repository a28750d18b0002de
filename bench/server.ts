// npm run bench:server — figures of the reference: healthcheck throughput over a socket against a bare
// node:http server and the Prism mock (alternating rounds; BENCH_ROUNDS, BENCH_SECONDS), scan cost per record at 100k and 1M lookups, token issuance rate, quota under concurrency.
// Servers run in a child process so the load generator does not share their event loop.
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { freePort } from "../src/http/index.ts";
import { createReference, manualClock, type Reference } from "../src/reference/index.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = 32;
const BASIC = `Basic ${Buffer.from("acme-viewer:acme-viewer-secret").toString("base64")}`;

// ---- child mode: serve one target and print its port -------------------------------------------------
async function serveChild(kind: string): Promise<void> {
  if (kind === "bare") {
    const body = JSON.stringify({ status: "OK" });
    const server = http.createServer((_req, res) => {
      res.writeHead(200, {
        "content-type": "application/json; charset=UTF-8",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
    });
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      process.stdout.write(`PORT ${typeof address === "object" && address ? address.port : 0}\n`);
    });
    return;
  }
  if (kind === "prism") {
    // The contract's mock (lckit mock: Prism behind its refusal layer) on free ports; stopped by SIGTERM.
    const { startMock } = await import("../src/mock/index.ts");
    const mock = await startMock({ platformPort: await freePort(), lookupDataPort: await freePort() });
    process.once("SIGTERM", () => {
      void mock.stop().finally(() => process.exit(0));
    });
    // /healthcheck is a path of the lookup-data document: its Prism answers it.
    process.stdout.write(`PORT ${new URL(mock.rdmUrl).port}\n`);
    return;
  }
  const listening = await createReference().listen({ port: 0 });
  process.stdout.write(`PORT ${new URL(listening.baseUrl).port}\n`);
}

function startChild(kind: string): Promise<{ child: ChildProcess; port: number }> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ["--import", "tsx", self, "--serve", kind], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d) => {
      out += String(d);
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`bench child "${kind}" exited with ${code}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

// ---- load generator: keep-alive agent, CONCURRENCY loops, each sequential -------------------------------
function get(
  agent: http.Agent,
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, agent, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function load(port: number, path: string, headers: Record<string, string>, seconds: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let ok = 0;
  let bad = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        if ((await get(agent, port, path, headers)) === 200) ok++;
        else bad++;
      }
    }),
  );
  agent.destroy();
  return { rps: ok / seconds, bad };
}

async function tokenOver(port: number): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
    method: "POST",
    headers: { authorization: BASIC, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * Healthcheck throughput of bare node:http, the reference and (when installed) the Prism mock: the same
 * request, the same load generator, in alternating rounds so that a burst of load on a shared machine
 * hits all of them; each keeps its best round.
 */
async function healthcheckRatio() {
  const targets: { name: string; port: number; child: ChildProcess; headers: Record<string, string> }[] = [];
  const bare = await startChild("bare");
  targets.push({ name: "bare", ...bare, headers: {} });
  const ref = await startChild("reference");
  targets.push({
    name: "reference",
    ...ref,
    headers: { authorization: `Bearer ${await tokenOver(ref.port)}` },
  });
  let prismNote: string | undefined;
  try {
    const prism = await startChild("prism");
    // Prism checks that a bearer token is there, not what it is.
    targets.push({ name: "prism", ...prism, headers: { authorization: "Bearer lckit-bench-token" } });
  } catch (error) {
    prismNote = `Prism mock not measured: ${(error as Error).message}`;
  }
  const best = new Map<string, number>();
  let errors = 0;
  try {
    for (const t of targets) await load(t.port, "/healthcheck", t.headers, 0.5); // warm-up
    for (let round = 0; round < ROUNDS; round++)
      for (const t of targets) {
        const r = await load(t.port, "/healthcheck", t.headers, SECONDS);
        errors += r.bad;
        best.set(t.name, Math.max(best.get(t.name) ?? 0, r.rps));
      }
  } finally {
    for (const t of targets) await stopChild(t.child);
  }
  const b = best.get("bare") ?? 0;
  const r = best.get("reference") ?? 0;
  const p = best.get("prism");
  return { bare: b, reference: r, prism: p, ratio: r / b, prismNote, errors };
}

// ---- in-memory figures ------------------------------------------------------------------------------
async function inMemoryToken(ref: Reference, clientId: string, secret: string): Promise<Response> {
  return ref.fetch(
    new Request("http://reference.bench/oauth/token", {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    }),
  );
}

async function bearer(ref: Reference, clientId: string): Promise<string> {
  const r = await inMemoryToken(ref, clientId, `${clientId}-secret`);
  return ((await r.json()) as { access_token: string }).access_token;
}

async function scanCost(lookups: number) {
  const t0 = performance.now();
  const ref = createReference({ generate: { tenant: "acme", lookups, seed: 1 } });
  const built = performance.now() - t0;
  const token = await bearer(ref, "acme-viewer");
  const start = performance.now();
  let records = 0;
  let pages = 0;
  let body: string | undefined;
  for (;;) {
    const r = await ref.fetch(
      new Request("http://reference.bench/lookups/acme/_scan?limit=100", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      }),
    );
    const page = (await r.json()) as { scrollId?: string; values: unknown[] };
    records += page.values.length;
    pages++;
    if (!page.scrollId) break;
    body = JSON.stringify({ scrollId: page.scrollId });
  }
  const ms = performance.now() - start;
  return { lookups: records, pages, buildMs: built, scanMs: ms, usPerRecord: (ms * 1000) / records };
}

async function tokenRates() {
  const clock = manualClock();
  const ref = createReference({ clock });
  const admin = await bearer(ref, "acme-admin");
  await ref.fetch(
    new Request("http://reference.bench/oauth/customers/cust-acme", {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({
        multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 200 } },
      }),
    }),
  );
  const n = 20_000;
  let issued = 0;
  let start = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await inMemoryToken(ref, "acme-quota", "acme-quota-secret");
    await r.arrayBuffer();
    if (r.status === 200) issued++;
    else clock.advance(3_600_000); // at the quota: let every token expire
  }
  const multiPerSecond = issued / ((performance.now() - start) / 1000);
  start = performance.now();
  for (let i = 0; i < n; i++)
    await (await inMemoryToken(ref, "globex-viewer", "globex-viewer-secret")).arrayBuffer();
  const samePerSecond = n / ((performance.now() - start) / 1000);
  return { newTokensPerSecond: multiPerSecond, sameTokenRequestsPerSecond: samePerSecond };
}

async function concurrency() {
  const ref = createReference({ clock: manualClock() });
  const admin = await bearer(ref, "acme-admin");
  await ref.fetch(
    new Request("http://reference.bench/oauth/customers/cust-acme", {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({
        multitokenConfig: { clientCredentialsMultiTokenConfig: { maxActiveTokensAllowed: 200 } },
      }),
    }),
  );
  const answers = await Promise.all(
    Array.from({ length: 1000 }, () => inMemoryToken(ref, "acme-quota", "acme-quota-secret")),
  );
  return {
    requests: 1000,
    issued: answers.filter((r) => r.status === 200).length,
    refused429: answers.filter((r) => r.status === 429).length,
  };
}

async function main(): Promise<void> {
  const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`bench:server (node ${process.version}, ${SECONDS}s per throughput run, concurrency ${CONCURRENCY})`);

  const h = await healthcheckRatio();
  out(
    `healthcheck over a socket: bare node:http ${fmt(h.bare)} req/s, reference ${fmt(h.reference)} req/s, ratio ${fmt(h.ratio, 2)} (target >= 0.7)${h.errors ? `, ${h.errors} non-200` : ""}`,
  );
  out(
    h.prism === undefined
      ? (h.prismNote ?? "Prism mock not measured")
      : `healthcheck over a socket: Prism mock ${fmt(h.prism)} req/s, reference/Prism ratio ${fmt(h.reference / h.prism, 2)}`,
  );

  await scanCost(20_000); // warm-up, so the first measured scan does not pay for JIT compilation
  const small = await scanCost(100_000);
  out(
    `scan ${fmt(small.lookups)} lookups in ${fmt(small.pages)} pages of 100: ${fmt(small.scanMs)} ms, ${fmt(small.usPerRecord, 2)} us/record (data built in ${fmt(small.buildMs)} ms)`,
  );
  const large = await scanCost(1_000_000);
  out(
    `scan ${fmt(large.lookups)} lookups in ${fmt(large.pages)} pages of 100: ${fmt(large.scanMs)} ms, ${fmt(large.usPerRecord, 2)} us/record (data built in ${fmt(large.buildMs)} ms)`,
  );
  out(
    `scan cost per record, 1M vs 100k: ratio ${fmt(large.usPerRecord / small.usPerRecord, 2)} (target <= 1.5)`,
  );

  const t = await tokenRates();
  out(
    `token issuance (in memory): ${fmt(t.newTokensPerSecond)} new tokens/s with multi-token on; ${fmt(t.sameTokenRequestsPerSecond)} requests/s with multi-token off (same token)`,
  );

  const c = await concurrency();
  out(
    `quota under concurrency: maxActiveTokensAllowed 200, ${c.requests} simultaneous requests -> ${c.issued} issued, ${c.refused429} refused with 429 (want exactly 200 issued)`,
  );
}

const serveIndex = process.argv.indexOf("--serve");
if (serveIndex >= 0) await serveChild(process.argv[serveIndex + 1] ?? "reference");
else await main();
