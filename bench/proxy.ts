// lckit proxy's own cost, printed, never asserted: throughput (requests/s) and latency p50/p99 of the same
// load sent straight to an upstream, through a bare node:http forwarding proxy (what anyone would write:
// pipe in, pipe out, a keep-alive agent), and through lckit proxy (the same forwarding, a copy of each body
// and the traffic judge in a thread of its own; lckit-inline: the judge on the forwarding path, as before
// the thread). Side by side in one run, in front of the same upstream: an in-process node:http
// server answering canned answers of the interface recorded from the reference (a token, a scan page of
// 100 lookups), so that the judge has real work and the upstream is not the bottleneck. Each proxy runs in
// a child process of its own (the load and the upstream stay here), the three alternated over rounds so
// that drift on a shared machine falls on all. Added latency is the proxied percentile less the direct one.
// Run: npm run bench:proxy   (LCKIT_BENCH_SECONDS per phase, default 5; LCKIT_BENCH_CONCURRENCY, default 16)
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { startSandbox } from "../src/reference/index.ts";
import { JudgeThread } from "../src/traffic/judge-thread.ts";
import { startProxy } from "../src/traffic/proxy.ts";
import { TrafficJudge } from "../src/traffic/traffic-judge.ts";

const seconds = Number(process.env.LCKIT_BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.LCKIT_BENCH_CONCURRENCY ?? 16);
const ROUNDS = 2;
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });

// ---- the child: one proxy in front of the upstream, its URL on stdout ----
async function child(kind: string, upstream: string): Promise<void> {
  if (kind === "lckit" || kind === "lckit-inline") {
    // lckit proxy as it runs (the judge in a thread of its own), and with the judge on the forwarding path.
    const thread = kind === "lckit" ? new JudgeThread() : undefined;
    const proxy = await startProxy({
      baseUrl: upstream,
      rdmUrl: upstream,
      port: 0,
      upstreamTimeoutMs: 30_000,
      judge: thread ?? new TrafficJudge(),
    });
    process.on("SIGTERM", () => {
      // What the bounded queue let through, for the parent to print.
      process.stdout.write(
        `${JSON.stringify({ forwarded: proxy.counts.forwarded, notJudged: thread?.notJudged ?? 0 })}\n`,
        () => process.exit(0),
      );
    });
    process.stdout.write(`${proxy.baseUrl}\n`);
    return;
  }
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const server = createServer({ keepAlive: true }, (req: IncomingMessage, res: ServerResponse) => {
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.writeHead(502).end());
    req.pipe(out);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
}

// ---- the upstream: canned answers recorded from the reference ----
async function recordedAnswers(): Promise<{ token: string; page: string }> {
  const sandbox = await startSandbox({ controlPort: false, record: false });
  try {
    const basic = Buffer.from("acme-viewer:acme-viewer-secret").toString("base64");
    const token = await (
      await fetch(`${sandbox.baseUrl}/oauth/token`, {
        method: "POST",
        headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      })
    ).text();
    const bearer = (JSON.parse(token) as { access_token: string }).access_token;
    const page = await (
      await fetch(`${sandbox.rdmUrl}/lookups/acme/_scan?limit=100`, {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}` },
      })
    ).text();
    return { token, page };
  } finally {
    await sandbox.close();
  }
}

async function upstream(): Promise<{ url: string; close: () => void }> {
  const { token, page } = await recordedAnswers();
  // Each scan answers a scroll of its own (a new scrollId), as a first page would.
  let scroll = 0;
  const server = createServer({ keepAlive: true }, (req, res) => {
    req.resume();
    req.on("end", () => {
      // A token of the client's own (bench-token-<client id>), so that the judge tells the clients apart.
      if (req.url?.startsWith("/oauth/token")) {
        const basic = /^Basic (\S+)/.exec(req.headers.authorization ?? "")?.[1] ?? "";
        const id = Buffer.from(basic, "base64").toString().split(":")[0];
        const answer = token.replace(/"access_token":"[^"]*"/, `"access_token":"bench-token-${id}"`);
        return res.writeHead(200, { "content-type": "application/json" }).end(answer);
      }
      scroll += 1;
      const body = page.replace(/"scrollId":"[^"]*"/, `"scrollId":"bench-${scroll}"`);
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

// ---- the load: `concurrency` clients, each a token request, then first pages of scans ----
interface Phase {
  requests: number;
  ms: number;
  latencies: number[];
}

function send(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { method, headers, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(performance.now() - started));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function load(base: string, clients = concurrency): Promise<Phase> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const basic = Buffer.from(`bench-client-${i}:secret-${i}`).toString("base64");
      const token = {
        authorization: `Basic ${basic}`,
        "content-type": "application/x-www-form-urlencoded",
      };
      latencies.push(
        await send(agent, `${base}/oauth/token`, "POST", token, "grant_type=client_credentials"),
      );
      while (performance.now() < until)
        latencies.push(
          await send(agent, `${base}/lookups/acme/_scan?limit=100`, "POST", {
            authorization: `Bearer bench-token-bench-client-${i}`,
          }),
        );
    }),
  );
  const ms = performance.now() - started;
  agent.destroy();
  return { requests: latencies.length, ms, latencies: latencies.sort((a, b) => a - b) };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function startChild(kind: string, upstreamUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), "child", kind, upstreamUrl],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { url: line.toString().trim(), child };
}

async function parent(): Promise<void> {
  const up = await upstream();
  // Throughput under `concurrency` clients (a closed loop: there latency is mostly queueing), and latency
  // with one client at a time (what the proxy adds to a request when it is not saturated).
  const many: Record<string, Phase> = {};
  const one: Record<string, Phase> = {};
  const counted: Record<string, { forwarded: number; notJudged: number }> = {};
  const add = (into: Record<string, Phase>, name: string, p: Phase) => {
    const t = into[name] ?? { requests: 0, ms: 0, latencies: [] };
    into[name] = t;
    t.requests += p.requests;
    t.ms += p.ms;
    t.latencies.push(...p.latencies);
  };
  console.log(
    `bench:proxy: ${concurrency} clients, ${seconds} s a phase, ${ROUNDS} rounds; upstream ${up.url}`,
  );
  await load(up.url); // warm-up of the upstream
  for (let round = 0; round < ROUNDS; round++) {
    add(many, "direct", await load(up.url));
    add(one, "direct", await load(up.url, 1));
    const kinds = ["bare", "lckit", "lckit-inline"];
    for (const kind of round % 2 === 0 ? kinds : kinds.reverse()) {
      const { url, child } = await startChild(kind, up.url);
      await load(url); // warm-up: the child's JIT and connections
      add(many, kind, await load(url));
      add(one, kind, await load(url, 1));
      if (kind === "bare") child.kill("SIGKILL");
      else {
        const said = once(child.stdout as NodeJS.ReadableStream, "data");
        child.kill("SIGTERM");
        const { forwarded, notJudged } = JSON.parse(String((await said)[0])) as {
          forwarded: number;
          notJudged: number;
        };
        counted[kind] = {
          forwarded: (counted[kind]?.forwarded ?? 0) + forwarded,
          notJudged: (counted[kind]?.notJudged ?? 0) + notJudged,
        };
      }
      await once(child, "exit");
    }
  }
  up.close();
  table(`${concurrency} clients at once (throughput; latency mostly queueing):`, many);
  table("1 client at a time (the latency the proxy adds to one request):", one);
  for (const [kind, c] of Object.entries(counted))
    console.log(
      `${kind}: ${fmt(c.forwarded)} exchanges forwarded, ${fmt(c.notJudged)} not judged (the judge's queue full)`,
    );
}

function table(title: string, phases: Record<string, Phase>): void {
  const rows = Object.entries(phases).map(([name, t]) => {
    t.latencies.sort((a, b) => a - b);
    return { name, rps: (t.requests / t.ms) * 1000, p50: pct(t.latencies, 0.5), p99: pct(t.latencies, 0.99) };
  });
  const by = (name: string) => rows.find((r) => r.name === name) as (typeof rows)[number];
  const direct = by("direct");
  console.log(`\n${title}\n| through | requests/s | p50 ms | p99 ms | added p50 ms | added p99 ms |`);
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const added = (p: "p50" | "p99") => (r.name === "direct" ? "" : fmt(r[p] - direct[p], 2));
    console.log(
      `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${added("p50")} | ${added("p99")} |`,
    );
  }
  // A ratio of added latencies only where the bare proxy adds a measurable amount.
  const ratio = (kind: string, p: "p50" | "p99") => {
    const bare = by("bare")[p] - direct[p];
    return bare > 0.01
      ? `${fmt((by(kind)[p] - direct[p]) / bare, 2)}x`
      : "n/a (the bare proxy adds nothing measurable)";
  };
  for (const kind of ["lckit", "lckit-inline"])
    console.log(
      `${kind} / bare proxy: throughput ${fmt(by(kind).rps / by("bare").rps, 2)}x, added p50 ${ratio(kind, "p50")}, added p99 ${ratio(kind, "p99")}`,
    );
}

const [mode, kind, upstreamUrl] = process.argv.slice(2);
if (mode === "child") await child(kind as string, upstreamUrl as string);
else await parent();
