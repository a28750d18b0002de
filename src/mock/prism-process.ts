// One Prism mock server as a child process (Prism's own CLI script run by this Node), started on loopback and stopped by
// its PID. Readiness is Prism's own "listening" line, so callers never sleep-and-hope.
import { type ChildProcess, spawn } from "node:child_process";
import { optionalBin } from "../tools/optional-tool.ts";

/** Prism's CLI script, found with Node's module resolution (Prism is an optional peer dependency: when it
 *  is absent this throws a usage error naming the install command). */
export function prismBin(): string {
  return optionalBin("@stoplight/prism-cli", "prism");
}

/** One Prism process: document, loopback address, optional seed for dynamic responses. */
export interface PrismOptions {
  document: string;
  port: number;
  host: string;
  /** Seed for dynamic (json-schema-faker) responses; absent: static examples. */
  seed?: string;
  startTimeoutMs: number;
  /** Receives Prism's output lines (stdout and stderr). */
  onLine?: (line: string) => void;
}

/** Prism could not listen because the port is taken. */
export class PortInUseError extends Error {
  override name = "PortInUseError";
  constructor(readonly port: number) {
    super(`port ${port} on 127.0.0.1 is already in use; stop what holds it or choose another port`);
  }
}

/** A listening Prism process, stopped by its PID. */
export interface PrismProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** Spawns Prism and resolves once it reports it listens; rejects (and stops it) otherwise. */
export function startPrism(options: PrismOptions): Promise<PrismProcess> {
  const args = ["mock", options.document, "--host", options.host, "--port", String(options.port)];
  if (options.seed !== undefined) args.push("--dynamic", "--seed", options.seed);
  const bin = prismBin();
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  const url = `http://${options.host}:${options.port}`;
  const tail: string[] = [];

  return new Promise((resolvePromise, reject) => {
    let settled = false;
    let portInUse = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stopChild(child);
      if (portInUse) reject(new PortInUseError(options.port));
      else
        reject(
          new Error(`Prism did not start on ${url}: ${reason}. Last output:\n${tail.slice(-8).join("\n")}`),
        );
    };
    const timer = setTimeout(
      () =>
        fail(`no "listening" line within ${options.startTimeoutMs} ms (is the port ${options.port} free?)`),
      options.startTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split(/\r?\n/)) {
        if (line.trim() === "") continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        options.onLine?.(line);
        if (line.includes("EADDRINUSE")) portInUse = true;
        if (!settled && line.includes("Prism is listening on")) {
          settled = true;
          clearTimeout(timer);
          resolvePromise({ pid: child.pid ?? -1, url, stop: () => stopChild(child) });
        }
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", (error) => fail(`cannot run ${bin}: ${error.message}`));
    child.on("exit", (code, signal) => fail(`Prism exited (code ${code}, signal ${signal})`));
  });
}

/** SIGTERM to the child's own PID, SIGKILL if it has not exited within 3 s. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  return new Promise((resolvePromise) => {
    const killer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
        process.kill(child.pid, "SIGKILL");
    }, 3000);
    child.once("exit", () => {
      clearTimeout(killer);
      resolvePromise();
    });
    process.kill(child.pid as number, "SIGTERM");
  });
}
