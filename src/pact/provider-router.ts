// Pact verifies one provider at one base URL, but a deployment may serve {base_url} and {rdm_url} apart.
// This loopback router takes the verifier's requests and forwards each to the address whose document
// declares its path (lookup-data paths to rdm_url, the rest to base_url).
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { loadContract } from "../contract/index.ts";
import { forwardedRequestHeaders, HOP_BY_HOP_HEADERS } from "../http/index.ts";
import { trimTrailingSlashes } from "../http/trailing-slashes.ts";

export interface ProviderRouter {
  url: string;
  close(): Promise<void>;
}

/** Not forwarded either way: the connection's own headers, and those the next hop sets itself. */
const notForwarded = new Set([...HOP_BY_HOP_HEADERS, "host", "content-length"]);

export function routeOf(method: string, path: string, baseUrl: string, rdmUrl: string): string {
  const rdm = loadContract().findOperation("lookup-data", method, path) !== undefined;
  return `${trimTrailingSlashes(rdm ? rdmUrl : baseUrl)}${path}`;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function startProviderRouter(
  baseUrl: string,
  rdmUrl: string,
  send: typeof fetch = fetch,
): Promise<ProviderRouter> {
  const server = createServer((request, response) => {
    const method = request.method ?? "GET";
    const forward = async () => {
      const body = await readBody(request);
      const headers = forwardedRequestHeaders(request.headers, notForwarded);
      const answer = await send(routeOf(method, request.url ?? "/", baseUrl, rdmUrl), {
        method,
        headers,
        body: method === "GET" || method === "HEAD" || body.length === 0 ? undefined : body,
        redirect: "manual",
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      const out: Record<string, string> = {};
      // fetch has decoded the body already, so its encoding and length headers no longer apply.
      answer.headers.forEach((value, name) => {
        if (!notForwarded.has(name) && name !== "content-encoding") out[name] = value;
      });
      response.writeHead(answer.status, { ...out, "content-length": String(bytes.length) });
      response.end(bytes);
    };
    forward().catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      response.writeHead(502, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: "bad_gateway",
          error_description: `the kit's router could not reach the target: ${reason}`,
        }),
      );
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
