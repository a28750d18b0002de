// Serves the reference over real sockets on loopback (one port, or the lookup-data paths on a second one).
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";

export interface ListenOptions {
  port?: number;
  host?: string;
  /** When set, the lookup-data paths get their own port and the first port serves the platform paths. */
  rdmPort?: number;
  /** Headers added to every answer, read per answer (lckit serve names its control port this way, so
   *  lckit run can reset the sandbox it serves: SANDBOX_CONTROL_HEADER). */
  headers?: () => Readonly<Record<string, string>>;
}

/** The header by which a sandbox that `lckit serve` serves names its control interface's URL. */
export const SANDBOX_CONTROL_HEADER = "x-lckit-sandbox-control";

function withHeaders(answer: Answerer, headers: ListenOptions["headers"]): Answerer {
  if (headers === undefined) return answer;
  return async (request) => {
    const response = await answer(request);
    const extra = Object.entries(headers());
    if (extra.length === 0) return response;
    // A copy: a Response's headers may be immutable.
    const copy = new Response(response.body, response);
    for (const [name, value] of extra) copy.headers.set(name, value);
    return copy;
  };
}

export interface Listening {
  baseUrl: string;
  rdmUrl: string;
  close(): Promise<void>;
}

type Server = ReturnType<typeof serve>;

/** What answers the requests of one port (a Hono app's fetch, or the sandbox gateway in front of it). */
export type Answerer = (request: Request) => Response | Promise<Response>;

export function start(
  answer: Answerer,
  port: number,
  host: string,
): Promise<{ server: Server; url: string }> {
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: (request: Request) => answer(request), port, hostname: host },
      (info: AddressInfo) => {
        const shown = info.family === "IPv6" ? `[${info.address}]` : info.address;
        resolve({ server, url: `http://${shown}:${info.port}` });
      },
    );
    server.once("error", reject);
  });
}

export function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections would hold close() open; they are ours to end.
    if ("closeAllConnections" in server) server.closeAllConnections();
  });
}

export async function listen(
  apps: { combined: Answerer; platform: () => Answerer; rdm: () => Answerer },
  options: ListenOptions = {},
): Promise<Listening> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (options.headers !== undefined) {
    const { headers } = options;
    const wrapped = {
      combined: withHeaders(apps.combined, headers),
      platform: () => withHeaders(apps.platform(), headers),
      rdm: () => withHeaders(apps.rdm(), headers),
    };
    return listen(wrapped, { ...options, headers: undefined });
  }
  if (options.rdmPort === undefined) {
    const { server, url } = await start(apps.combined, port, host);
    return { baseUrl: url, rdmUrl: url, close: () => stop(server) };
  }
  const base = await start(apps.platform(), port, host);
  let rdm: { server: Server; url: string };
  try {
    rdm = await start(apps.rdm(), options.rdmPort, host);
  } catch (error) {
    await stop(base.server);
    throw error;
  }
  return {
    baseUrl: base.url,
    rdmUrl: rdm.url,
    close: async () => {
      await Promise.all([stop(base.server), stop(rdm.server)]);
    },
  };
}
