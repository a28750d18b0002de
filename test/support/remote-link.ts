// A remote link on loopback: a node:http proxy in front of a served reference that behaves like the far end
// of a slow, rate-limited connection. Every request and every answer waits a drawn latency; a gateway
// answers 429 with Retry-After when more than its rate arrive within a second (and, drawn, now and then
// anyway, as gateways shared with other tenants do); some idempotent requests lose their connection before
// any answer. Draws come from a seed, so one seed is one link.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RemoteLinkOptions {
  /** Where the reference listens (http://127.0.0.1:PORT). */
  upstream: string;
  seed: number;
  /** One-way latency: mean and spread (uniform in mean ± spread), ms. */
  latencyMs?: { mean: number; spread: number };
  /** Requests per sliding second the gateway lets through; beyond it 429 with Retry-After: 1. */
  gatewayRate?: number;
  /** Share of the requests (outside the token endpoint) the gateway answers 429 regardless of rate. */
  spurious429?: number;
  /** Share of the GET requests whose connection is dropped before any answer (never the retry of one). */
  dropGet?: number;
}

export interface RemoteLink {
  url: string;
  /** What the link did: requests that reached the reference, 429s of the gateway, dropped connections. */
  counts: { forwarded: number; rateLimited: number; dropped: number };
  close(): Promise<void>;
}

/** mulberry32: small, seedable, enough for drawing a link's behaviour. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"]);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startRemoteLink(options: RemoteLinkOptions): Promise<RemoteLink> {
  const draw = random(options.seed);
  const { mean, spread } = options.latencyMs ?? { mean: 40, spread: 20 };
  const gatewayRate = options.gatewayRate ?? 20;
  const spurious = options.spurious429 ?? 0.02;
  const dropGet = options.dropGet ?? 0.03;
  const upstream = new URL(options.upstream);
  const counts = { forwarded: 0, rateLimited: 0, dropped: 0 };
  const arrivals: number[] = [];
  const droppedLast = new Set<string>();
  const sockets = new Set<Socket>();
  const latency = () => new Promise((r) => setTimeout(r, Math.max(0, mean + (draw() * 2 - 1) * spread)));

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    await latency();
    const now = Date.now();
    while (arrivals.length > 0 && (arrivals[0] as number) <= now - 1000) arrivals.shift();
    arrivals.push(now);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const tokenEndpoint = path === "/oauth/token";
    // A dropped connection is one connection: the retry of the same request on a new one gets through.
    const key = `${req.method} ${req.url}`;
    const retry = droppedLast.delete(key);
    if (req.method === "GET" && !retry && draw() < dropGet) {
      droppedLast.add(key);
      counts.dropped++;
      req.socket.destroy();
      return;
    }
    if (arrivals.length > gatewayRate || (!tokenEndpoint && draw() < spurious)) {
      counts.rateLimited++;
      await latency();
      res
        .writeHead(429, { "content-type": "application/json", "retry-after": "1" })
        .end('{"message":"rate limit of the gateway exceeded"}');
      return;
    }
    counts.forwarded++;
    const headers = { ...req.headers, host: upstream.host };
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      async (answer) => {
        const answerBody = await readBody(answer);
        await latency();
        const out: Record<string, string | string[]> = {};
        for (const [key, value] of Object.entries(answer.headers))
          if (value !== undefined && !HOP_BY_HOP.has(key)) out[key] = value;
        res.writeHead(answer.statusCode ?? 502, out).end(answerBody);
      },
    );
    forwarded.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
    });
    forwarded.end(body);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
