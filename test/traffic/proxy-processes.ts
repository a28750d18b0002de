// Processes the proxy tests start and hold by their PID: the kit's binary (lckit serve, lckit proxy) and an
// example client, each stopped by its own id when the test is done.
import { type ChildProcess, spawn } from "node:child_process";
import { packagePath } from "../../src/package-root.ts";

const BIN = packagePath("bin", "lckit.mjs");

export interface Held {
  child: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `node args` and resolves once its stderr matches `ready` (or rejects with what it wrote). */
export function hold(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<Held> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const held: Held = {
    child,
    pid: child.pid as number,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) process.kill(held.pid, signal);
      return exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void held.stop("SIGKILL");
      reject(new Error(`not ready in 30 s: node ${args.join(" ")}\n${err}`));
    }, 30_000);
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
      if (ready.test(err)) {
        clearTimeout(timer);
        resolve(held);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before ready: node ${args.join(" ")}\n${err}`));
    });
  });
}

/** lckit serve on free ports (its own binary); its base_url, rdm_url and control URL. */
export async function serveBinary(flags: string[]) {
  const held = await hold([BIN, "serve", "--port", "0", "--control-port", "0", ...flags], /control\s+\S+/);
  const url = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(held.stderr())?.[1] as string;
  return { ...held, baseUrl: url("base_url"), rdmUrl: url("rdm_url"), controlUrl: url("control") };
}

/** lckit proxy (its own binary); the URLs it prints for clients. */
export async function proxyBinary(flags: string[]) {
  const held = await hold([BIN, "proxy", "--listen", "127.0.0.1:0", ...flags], /rdm_url\s+\S+.*\n/);
  const url = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(held.stderr())?.[1] as string;
  return { ...held, baseUrl: url("base_url"), rdmUrl: url("rdm_url") };
}

/** Runs the example client with the LCKIT_* variables (as lckit client check gives them) and `fault`. */
export function runExampleClient(
  env: Record<string, string>,
  fault?: string,
): Promise<{ code: number | null; stderr: string }> /* stderr: both outputs */ {
  const child = spawn(process.execPath, [packagePath("examples", "clients", "lookup-client.mjs")], {
    env: { ...process.env, ...env, ...(fault ? { FAULT: fault } : {}) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const add = (c: Buffer) => {
    stderr += c.toString();
  };
  child.stdout?.on("data", add);
  child.stderr?.on("data", add);
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
}
