// A target that misbehaves on purpose, for testing that the kit survives it: a node:http server on
// 127.0.0.1 (ephemeral port) in front of the reference implementation, which answers the token endpoint
// and everything the mode leaves alone. Each mode is one way a live target can go wrong.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReference, DEFAULT_FIXTURES_DIR } from "../../src/reference/index.ts";

export const HOSTILE_MODES = [
  "hang", // data requests never answer
  "stall", // headers, then no body
  "trickle", // a body one byte at a time, slower than any time limit
  "reset", // the connection is destroyed on every data request
  "reset-once", // the first GET of each path is reset, later ones are proxied
  "garbage", // 200 application/json with bytes that are not JSON
  "html", // 200 text/html to every data request
  "huge", // 50 MB answers to data requests
  "endless", // scans never end (a new scrollId and new records on every page)
  "fat-endless", // the same with ~200 KB pages
  "redirect", // data requests redirected (307) to another origin
  "echo-credentials", // real answers, with every credential it received echoed in every form
  "500", // every data request answers 500
  "429", // every other data request answers 429 with Retry-After
  "proxy", // no misbehaviour: the reference as it is
] as const;
export type HostileMode = (typeof HOSTILE_MODES)[number];

/** Fixture clients whose secrets hold what breaks naive encodings: "+", "%", ":" and a space. */
export const HOSTILE_CLIENTS = ["acme-admin", "acme-editor", "acme-viewer", "acme-quota", "globex-admin"];
export const hostileSecret = (clientId: string) => `${clientId} s3cr+t%:/"x`;

export interface HostileServer {
  url: string;
  /** The other origin "redirect" sends to; counts what reaches it. */
  elsewhere: { url: string; hits: { url: string; authorization?: string }[] };
  /** Requests seen, per path: for assertions on retries. */
  seen: { method: string; path: string; connection?: string }[];
  /** Access tokens the reference issued through this server. */
  tokens: string[];
  /** How many answers were deliberate 429s ("429" mode). */
  rateLimited(): number;
  /** How many connections were reset on purpose ("reset-once" mode). */
  resets(): number;
  close(): Promise<void>;
}

const HUGE_BYTES = 50 * 1024 * 1024;
const FAT_PAGE_BYTES = 200 * 1024;

export async function startHostileServer(mode: HostileMode): Promise<HostileServer> {
  const fixtures = hostileFixtures();
  const reference = createReference({ fixturesDir: fixtures });
  const seen: HostileServer["seen"] = [];
  const tokens: string[] = [];
  const elsewhereHits: HostileServer["elsewhere"]["hits"] = [];
  const resetDone = new Set<string>();
  let count429 = 0;
  let pageNo = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const elsewhere = createServer((req, res) => {
    elsewhereHits.push({
      url: req.url ?? "",
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    res.writeHead(200, { "content-type": "application/json" }).end('{"elsewhere":true}');
  });
  trackSockets(elsewhere, sockets);
  const elsewhereUrl = await listen(elsewhere);

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    seen.push({
      method: req.method ?? "GET",
      path,
      ...(req.headers.connection ? { connection: req.headers.connection } : {}),
    });
    const isToken = path === "/oauth/token";
    const isScan = path.endsWith("/_scan");
    const data = !isToken;
    const later = (fn: () => void, ms: number) => {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
    };

    if (data) {
      switch (mode) {
        case "hang":
          return; // never answers; the socket closes when the client gives up or the server stops
        case "stall":
          res.writeHead(200, { "content-type": "application/json" });
          res.flushHeaders();
          return;
        case "trickle": {
          res.writeHead(200, { "content-type": "application/json" });
          const drip = () => {
            if (res.destroyed) return;
            res.write(" ");
            later(drip, 200);
          };
          drip();
          return;
        }
        case "reset":
          req.socket.destroy();
          return;
        case "reset-once": {
          const key = `${req.method} ${req.url}`;
          if (req.method === "GET" && !resetDone.has(key)) {
            resetDone.add(key);
            req.socket.destroy();
            return;
          }
          break;
        }
        case "garbage":
          res
            .writeHead(200, { "content-type": "application/json" })
            .end('{"values": [\u0000\u00ff not json ]]');
          return;
        case "html":
          res
            .writeHead(200, { "content-type": "text/html; charset=utf-8" })
            .end("<!doctype html><html><body><h1>Welcome</h1><p>Please sign in.</p></body></html>");
          return;
        case "huge":
          return sendHuge(res);
        case "endless":
        case "fat-endless":
          if (isScan) {
            pageNo += 1;
            const fat = mode === "fat-endless";
            res
              .writeHead(200, { "content-type": "application/json" })
              .end(JSON.stringify(endlessPage(pageNo, fat ? FAT_PAGE_BYTES : 0)));
            return;
          }
          break;
        case "redirect":
          res.writeHead(307, { location: `${elsewhereUrl}${req.url}` }).end();
          return;
        case "echo-credentials":
          // One failing path, so the echo lands in a failed check's evidence and message too.
          if (path === "/healthcheck") {
            const echo = echoes(req, body);
            res
              .writeHead(503, {
                "content-type": "application/json",
                "x-echo-authorization": headerSafe(echo.authorization),
              })
              .end(withEcho('{"error":"unavailable"}', echo, false));
            return;
          }
          break;
        case "500":
          res
            .writeHead(500, { "content-type": "application/json" })
            .end('{"error":"internal","trace":"at Handler.run (handler.js:12)"}');
          return;
        case "429":
          count429 += 1;
          if (count429 % 2 === 1) {
            res
              .writeHead(429, { "content-type": "application/json", "retry-after": "0" })
              .end('{"error":"slow down"}');
            return;
          }
          break;
        default:
          break;
      }
    }

    const answer = await reference.fetch(toRequest(req, body));
    let text = await answer.text();
    if (isToken && answer.ok) {
      const token = (JSON.parse(text) as { access_token?: string }).access_token;
      if (token) tokens.push(token);
    }
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "content-length") headers[name] = value;
    });
    if (mode === "echo-credentials") {
      const echo = echoes(req, body);
      text = withEcho(text, echo, isToken);
      headers["x-echo-authorization"] = headerSafe(echo.authorization);
      headers["x-debug"] = headerSafe(`decoded=${echo.decoded} token=${echo.tokenInBody}`);
    }
    res.writeHead(answer.status, headers).end(text);
  });
  trackSockets(server, sockets);
  const url = await listen(server);

  return {
    url,
    elsewhere: { url: elsewhereUrl, hits: elsewhereHits },
    seen,
    tokens,
    rateLimited: () => Math.ceil(count429 / 2),
    resets: () => resetDone.size,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await Promise.all([close(server), close(elsewhere)]);
      rmSync(fixtures, { recursive: true, force: true });
    },
  };
}

/** The reference fixtures with the hostile secrets. */
function hostileFixtures(): string {
  const dir = mkdtempSync(join(tmpdir(), "lckit-hostile-fixtures-"));
  cpSync(DEFAULT_FIXTURES_DIR, dir, { recursive: true });
  const file = join(dir, "clients.yaml");
  let yaml = readFileSync(file, "utf8");
  for (const id of HOSTILE_CLIENTS)
    yaml = yaml.replace(`clientSecret: ${id}-secret`, `clientSecret: ${JSON.stringify(hostileSecret(id))}`);
  writeFileSync(file, yaml);
  return dir;
}

interface Echo {
  authorization: string;
  decoded: string;
  tokenInBody: string;
  form: string;
}

function echoes(req: IncomingMessage, body: Buffer): Echo {
  const authorization = req.headers.authorization ?? "";
  const basic = /^Basic\s+(\S+)/i.exec(authorization)?.[1];
  const decoded = basic ? Buffer.from(basic, "base64").toString("utf8") : "";
  let plain = decoded;
  try {
    plain = decoded
      .split(":")
      .map((p) => decodeURIComponent(p.replace(/\+/g, " ")))
      .join(":");
  } catch {
    // not form-encoded
  }
  const bearer = /^Bearer\s+(\S+)/i.exec(authorization)?.[1] ?? "";
  return {
    authorization,
    decoded: `${decoded} | ${plain} | ${encodeURIComponent(plain)} | ${Buffer.from(plain).toString("base64")}`,
    tokenInBody: bearer,
    form: body.toString("utf8"),
  };
}

/** The real answer with the credentials echoed: as fields, as JSON inside a JSON string, URL-encoded. */
function withEcho(text: string, echo: Echo, isToken: boolean): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `${text}\n<!-- you sent ${echo.authorization} (${echo.decoded}) -->`;
  }
  const debug = {
    authorization: echo.authorization,
    decoded: echo.decoded,
    bearer: echo.tokenInBody,
    requestBody: echo.form,
    escaped: JSON.stringify({ authorization: echo.authorization, access_token: echo.tokenInBody }),
    urlEncoded: encodeURIComponent(`${echo.authorization} ${echo.decoded}`),
    ...(isToken ? { issued: JSON.stringify(parsed) } : {}),
  };
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
    return JSON.stringify({ ...(parsed as Record<string, unknown>), debug });
  // Arrays and scalars keep their shape; the echo travels in the header only.
  return text;
}

/** Header values must be visible ASCII: anything else (a garbled Basic value decoded) becomes "?". */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, "?");
}

function endlessPage(n: number, padBytes: number) {
  const pad = padBytes > 0 ? "x".repeat(Math.floor(padBytes / 20)) : "";
  const values = Array.from({ length: 20 }, (_, i) => ({
    uri: `acme/Country/endless-${n}-${i}`,
    type: "rdm/lookupTypes/Country",
    code: `E${n}-${i}`,
    enabled: true,
    values: [{ value: `Endless ${n}-${i}${pad}`, lang: "en" }],
  }));
  return { scrollId: `endless-${n}`, values };
}

function sendHuge(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.from(`${'{"values":['.padEnd(64 * 1024, " ")}`);
  const filler = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = () => {
    while (sent < HUGE_BYTES) {
      const ok = res.write(sent === 0 ? chunk : filler);
      sent += filler.byteLength;
      if (!ok) return void res.once("drain", pump);
    }
    res.end("]}");
  };
  res.on("error", () => {});
  pump();
}

function toRequest(req: IncomingMessage, body: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "host" || name === "connection" || name === "content-length")
      continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const method = req.method ?? "GET";
  return new Request(`http://reference.embedded${req.url ?? "/"}`, {
    method,
    headers,
    ...(method === "GET" || method === "HEAD" ? {} : { body: new Uint8Array(body) }),
  });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", () => resolve(Buffer.concat(chunks)));
  });
}

function trackSockets(server: Server, sockets: Set<Socket>): void {
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
