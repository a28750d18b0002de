// The Prism mock of the contract: both documents served on loopback ports, static examples by default,
// seeded dynamic responses on request. Used by `lckit mock` and by tests that run suites against Prism.
// Each Prism listens on an internal loopback port behind a refusal proxy (refusal-proxy.ts) that holds the
// public port: refusals carry the actual violation and the status `lckit serve` gives.
import type { Host } from "../contract/index.ts";
import { freePort } from "../http/index.ts";
import { writeMockDocuments } from "./mock-documents.ts";
import { PortInUseError, type PrismProcess, prismBin, startPrism } from "./prism-process.ts";
import { type RefusalProxy, startRefusalProxy } from "./refusal-proxy.ts";

export { PortInUseError, prismBin } from "./prism-process.ts";
export { REFUSAL_STATUS, type RequestViolation } from "./refusal-proxy.ts";

/** Default loopback ports: platform 4010, lookup-data 4011. */
export const defaultPorts: Record<Host, number> = { platform: 4010, "lookup-data": 4011 };

/** How to start the mock; every field is optional. */
export interface MockOptions {
  /** Port of the platform document ({base_url}); default 4010. */
  platformPort?: number;
  /** Port of the lookup-data document ({rdm_url}); default 4011. */
  lookupDataPort?: number;
  /** Dynamic responses (json-schema-faker) with this seed; absent: the documents' static examples. */
  seed?: string | number;
  /** Time allowed for each Prism process to report it listens; default 30 s. */
  startTimeoutMs?: number;
  /** Receives Prism's output lines, prefixed with the host. */
  onLine?: (line: string) => void;
  /** Receives one line per refused request (status, method, path and the violations), prefixed with the host. */
  onRefusal?: (line: string) => void;
}

/** A running mock: its two base URLs, the Prism PIDs and how to stop it. */
export interface MockServer {
  /** {base_url} of the mock, e.g. http://127.0.0.1:4010. */
  baseUrl: string;
  /** {rdm_url} of the mock, e.g. http://127.0.0.1:4011. */
  rdmUrl: string;
  /** PIDs of the two Prism processes. */
  pids: Record<Host, number>;
  /** Stops both Prism processes (by PID) and removes the temporary documents. */
  stop(): Promise<void>;
}

const host = "127.0.0.1";

/** Starts one Prism per document on 127.0.0.1 and resolves when both listen; stops both if one fails. */
export async function startMock(options: MockOptions = {}): Promise<MockServer> {
  const ports: Record<Host, number> = {
    platform: options.platformPort ?? defaultPorts.platform,
    "lookup-data": options.lookupDataPort ?? defaultPorts["lookup-data"],
  };
  if (ports.platform === ports["lookup-data"])
    throw new Error(
      `the platform and lookup-data mocks need two different ports, got ${ports.platform} twice`,
    );
  const urls: Record<Host, string> = {
    platform: `http://${host}:${ports.platform}`,
    "lookup-data": `http://${host}:${ports["lookup-data"]}`,
  };
  // Prism is an optional peer dependency: find it before anything starts (absent: a usage error naming
  // the install command).
  prismBin();
  const documents = writeMockDocuments(urls, { realistic: options.seed !== undefined });
  const proxies: RefusalProxy[] = [];
  const results = await Promise.allSettled(
    (["platform", "lookup-data"] as const).map(async (name) => {
      const internal = await freePort();
      const proxy = await startRefusalProxy({
        host,
        port: ports[name],
        upstream: `http://${host}:${internal}`,
        ...(options.onRefusal
          ? { onRefusal: (line: string) => options.onRefusal?.(`[${name}] ${line}`) }
          : {}),
      }).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw new PortInUseError(ports[name]);
        throw error;
      });
      proxies.push(proxy);
      return startPrism({
        document: documents.files[name],
        port: internal,
        host,
        ...(options.seed !== undefined ? { seed: String(options.seed) } : {}),
        startTimeoutMs: options.startTimeoutMs ?? 30_000,
        ...(options.onLine ? { onLine: (line: string) => options.onLine?.(`[${name}] ${line}`) } : {}),
      });
    }),
  );
  const started = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const stop = async () => {
    await Promise.all(started.map((prism: PrismProcess) => prism.stop()));
    await Promise.all(proxies.map((proxy) => proxy.close()));
    documents.remove();
  };
  const failed = results.find((result) => result.status === "rejected");
  const [platform, lookupData] = started;
  if (failed || !platform || !lookupData) {
    await stop();
    throw failed?.reason ?? new Error("Prism did not start");
  }
  return {
    baseUrl: urls.platform,
    rdmUrl: urls["lookup-data"],
    pids: { platform: platform.pid, "lookup-data": lookupData.pid },
    stop,
  };
}
