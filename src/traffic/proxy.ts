// lckit proxy as a library: a reverse proxy (node:http in, node:http or node:https out) in front of a
// deployment's two base URLs, one listening port per upstream origin. Each exchange is forwarded unchanged
// (the path as the client sent it, bodies streamed both ways, keep-alive to the upstream) while a copy of
// its bodies, cut at the judge's bound, is taken on the side; the completed exchange goes to the traffic
// judge. What is not an exchange of the service is counted apart and blamed on no party: an upstream that
// did not answer in time (504 to the client) or reset the connection (502), a client that sent what is not
// HTTP (400 from node's parser), a client that left before the answer.
import { once } from "node:events";
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import * as tls from "node:tls";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { HOP_BY_HOP_HEADERS } from "../http/index.ts";
import { BODY_CHARS, type ReadExchange } from "./recorded-entry.ts";
import type { ProxyCounts, TrafficJudge } from "./traffic-judge.ts";

export type { ProxyCounts };

export interface ProxyOptions {
  /** The deployment's {base_url} and {rdm_url} (a path prefix is kept: clients call the same paths). */
  baseUrl: string;
  rdmUrl: string;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port for {base_url}; {rdm_url}, on another origin, gets the next port. 0: free ports. */
  port: number;
  /** PEM certificates trusted for the upstream besides the default roots (--ca). */
  ca?: string;
  /** Time the upstream may stay silent (before its answer, or inside it) before it counts as hung. */
  upstreamTimeoutMs: number;
  /** Where each completed exchange goes: a TrafficJudge, or a JudgeThread off the forwarding path. */
  judge: Pick<TrafficJudge, "add">;
}

export interface RunningProxy {
  /** The URLs clients use instead of the deployment's. */
  baseUrl: string;
  rdmUrl: string;
  counts: ProxyCounts;
  /** Exchanges being forwarded now. */
  readonly inFlight: number;
  /** Stops accepting, lets what is in flight finish (up to `graceMs`), then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

const FAILURES_KEPT = 10;

/** Trust for the upstream: node's roots, the system's store where this node can read it (22.15 and
 *  later; on node 20 run it with --use-openssl-ca for the system's), and the named CA file's certificates.
 *  Undefined: node's own default. */
function trustedRoots(ca: string | undefined): string[] | undefined {
  const read = (tls as { getCACertificates?: (which: "default" | "system") => string[] }).getCACertificates;
  const system = read?.("system") ?? [];
  if (ca === undefined && system.length === 0) return undefined;
  return [...(read?.("default") ?? tls.rootCertificates), ...system, ...(ca === undefined ? [] : [ca])];
}

/** Header values as the judge reads them: one string each, repeated ones joined. */
function flat(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

/** The headers to send on: the hop-by-hop ones (and those Connection names) dropped, as RFC 9110 asks. */
function endToEnd(headers: IncomingHttpHeaders, drop: readonly string[] = []): OutgoingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase());
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP_HEADERS.has(name) || named.includes(name) || drop.includes(name))
      continue;
    out[name] = value;
  }
  return out;
}

/** A copy of a body as it streams past, up to the judge's bound. */
class BodyCopy {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  cut = false;
  add(chunk: Buffer): void {
    if (this.size >= BODY_CHARS) {
      this.cut = true;
      return;
    }
    const room = BODY_CHARS - this.size;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.cut = true;
    this.chunks.push(Buffer.from(part));
    this.size += part.length;
  }
  /** The text, decoded as Content-Encoding says (a HAR holds it decoded too); cut or undecodable: marked. */
  text(encoding: string | undefined): { text: string; cut: boolean } {
    const bytes = Buffer.concat(this.chunks);
    const coding = (encoding ?? "identity").trim().toLowerCase();
    if (coding === "identity" || coding === "" || bytes.length === 0)
      return { text: bytes.toString("utf8"), cut: this.cut };
    if (this.cut) return { text: "", cut: true };
    // Decoded within the same bound: a small body may decompress to gigabytes. Past it, the decoder
    // throws and the copy is marked cut.
    const bound = { maxOutputLength: BODY_CHARS };
    try {
      const decoded =
        coding === "gzip" || coding === "x-gzip"
          ? gunzipSync(bytes, bound)
          : coding === "deflate"
            ? inflateSync(bytes, bound)
            : coding === "br"
              ? brotliDecompressSync(bytes, bound)
              : undefined;
      return decoded === undefined ? { text: "", cut: true } : { text: decoded.toString("utf8"), cut: false };
    } catch {
      return { text: "", cut: true };
    }
  }
}

/** Starts the proxy; resolves once every port listens. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? "127.0.0.1";
  const base = new URL(options.baseUrl);
  const rdm = new URL(options.rdmUrl);
  const ca = trustedRoots(options.ca);
  const agents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true, ...(ca === undefined ? {} : { ca }) }),
  };
  const counts: ProxyCounts = {
    forwarded: 0,
    upstreamTimedOut: 0,
    upstreamReset: 0,
    malformedRequests: 0,
    clientAborted: 0,
    firstFailures: [],
  };
  let inFlight = 0;
  const failed = (kind: "upstreamTimedOut" | "upstreamReset", req: IncomingMessage, why: string) => {
    counts[kind] += 1;
    if (counts.firstFailures.length < FAILURES_KEPT)
      counts.firstFailures.push(`${req.method} ${(req.url ?? "").split("?")[0]}: ${why}`);
  };

  const handler = (upstream: URL) => (req: IncomingMessage, res: ServerResponse) => {
    const at = Date.now();
    const started = performance.now();
    inFlight += 1;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      inFlight -= 1;
      return true;
    };
    const url = new URL(req.url ?? "/", upstream.origin);
    const requestCopy = new BodyCopy();
    const responseCopy = new BodyCopy();
    const send = upstream.protocol === "https:" ? httpsRequest : httpRequest;
    const out = send(url, {
      method: req.method,
      headers: { ...endToEnd(req.headers, ["host"]), host: upstream.host },
      agent: upstream.protocol === "https:" ? agents.https : agents.http,
    });
    // Silence for this long, before the answer or inside it: the upstream hangs.
    out.setTimeout(options.upstreamTimeoutMs, () => {
      if (!settle()) return;
      failed("upstreamTimedOut", req, `no answer within ${options.upstreamTimeoutMs} ms`);
      out.destroy();
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(504, { "content-type": "text/plain" })
          .end(`lckit proxy: ${upstream.origin} sent no answer within ${options.upstreamTimeoutMs} ms\n`);
    });
    out.on("error", (error: NodeJS.ErrnoException) => {
      if (!settle()) return;
      failed("upstreamReset", req, error.code ?? error.message);
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(502, { "content-type": "text/plain" })
          .end(`lckit proxy: ${upstream.origin} failed (${error.code ?? error.message})\n`);
    });
    req.on("data", (chunk: Buffer) => requestCopy.add(chunk));
    req.pipe(out);
    // The client left before its answer was complete: no exchange to judge.
    res.on("close", () => {
      if (res.writableFinished || settled) return;
      settle();
      counts.clientAborted += 1;
      out.destroy();
    });
    out.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      answer.on("data", (chunk: Buffer) => responseCopy.add(chunk));
      answer.pipe(res);
      answer.on("end", () => {
        if (!settle()) return;
        counts.forwarded += 1;
        const requestBody = requestCopy.text(req.headers["content-encoding"] as string | undefined);
        const responseBody = responseCopy.text(answer.headers["content-encoding"]);
        const exchange: ReadExchange = {
          seq: counts.forwarded,
          at,
          method: (req.method ?? "GET").toUpperCase(),
          url: url.href,
          headers: flat(req.headers),
          ...(requestBody.text === "" && !requestBody.cut ? {} : { body: requestBody.text }),
          status: answer.statusCode ?? 0,
          responseHeaders: flat(answer.headers),
          responseBody: responseBody.text,
          durationMs: performance.now() - started,
          ...(responseBody.cut ? { responseCut: true as const } : {}),
        };
        options.judge.add(exchange);
      });
    });
  };

  const servers: Server[] = [];
  const listen = async (upstream: URL, port: number): Promise<number> => {
    const server = createServer({ keepAlive: true }, handler(upstream));
    // Node's parser refused the request: 400, as node would answer without this listener, and counted.
    server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
      if (error.code !== "ECONNRESET") counts.malformedRequests += 1;
      if (socket.writable)
        socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      else socket.destroy();
    });
    servers.push(server);
    server.listen(port, host);
    await once(server, "listening");
    return (server.address() as AddressInfo).port;
  };
  const urlOf = (port: number, upstream: URL) => {
    const shown = host.includes(":") ? `[${host}]` : host;
    return `http://${shown}:${port}${upstream.pathname.replace(/\/+$/, "")}`;
  };
  const basePort = await listen(base, options.port);
  const rdmPort =
    rdm.origin === base.origin ? basePort : await listen(rdm, options.port === 0 ? 0 : options.port + 1);

  return {
    baseUrl: urlOf(basePort, base),
    rdmUrl: urlOf(rdmPort, rdm),
    counts,
    get inFlight() {
      return inFlight;
    },
    async close(graceMs = 5_000) {
      const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
      for (const s of servers) s.closeIdleConnections();
      const until = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      for (const s of servers) s.closeAllConnections();
      await Promise.all(closed);
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
