// A RabbitMQ node of its own, started from Debian's rabbitmq-server scripts: one folder for everything it
// writes, loopback only, its own epmd (started first, so that its PID is ours to stop), its own node name
// and ports, the AMQP 1.0 plugin on (AMQP 1.0 and 0-9-1 share the listener). Stopped by PID, never by name.
// The consumer check starts a private one when no --broker is given; scripts/services.mjs starts the tests'
// broker with it (one implementation of both).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { freePort } from "../../http/free-port.ts";

/** Debian's server script (the raw one: /usr/sbin/rabbitmq-server would switch to the system's node). */
export const RABBITMQ_SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server";
const EPMD = "/usr/bin/epmd";
const HOST = "127.0.0.1";
export const DEFAULT_NODE_START_TIMEOUT_MS = 90_000;

export class RabbitNodeError extends Error {
  override name = "RabbitNodeError";
}

/** Where a node lives: its folder, its ports, its name. */
export interface RabbitNodeLayout {
  base: string;
  port: number;
  epmdPort: number;
  /** The Erlang distribution port; RabbitMQ's default (port + 20000) when absent. */
  distPort?: number;
  nodename: string;
}

export interface RabbitNodePids {
  /** The server script, which passes SIGTERM on to the VM as a clean stop. */
  rabbitmqServer: number | null;
  beam: number | null;
  /** null: an epmd not started with the node answered on its port, and is left alone. */
  epmd: number | null;
}

export interface RabbitNodeRecord extends RabbitNodeLayout {
  /** AMQP 0-9-1 URL of the node (guest, loopback only). */
  url: string;
  pids: RabbitNodePids;
}

export interface RabbitNodeStartOptions extends RabbitNodeLayout {
  serverScript?: string;
  timeoutMs?: number;
  /** Ends the wait for the node: what started is stopped and the start fails. */
  signal?: AbortSignal;
  progress?: (line: string) => void;
  /** The record as soon as the server process exists, before it answers (for a caller that keeps it). */
  onSpawned?: (record: RabbitNodeRecord) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** Why a node cannot be started here (no server script, no epmd), or undefined when it can. */
export function rabbitNodeMissing(serverScript = RABBITMQ_SERVER): string | undefined {
  if (!existsSync(serverScript)) return `Debian's rabbitmq-server is not installed (no ${serverScript})`;
  if (!existsSync(EPMD)) return `Erlang's epmd is not installed (no ${EPMD})`;
  return undefined;
}

export function pidAlive(pid: number | null | undefined): boolean {
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function portOpen(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** True when an AMQP 0-9-1 handshake (not just a TCP connect) succeeds. */
export async function amqpAnswers(url: string, timeoutMs = 3000): Promise<boolean> {
  try {
    const connection = await amqp.connect(url, { timeout: timeoutMs });
    connection.on("error", () => {});
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

/** True when the listener answers an AMQP 1.0 (SASL) protocol header with its own, not 0-9-1's. */
export function amqp1Answers(port: number, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port });
    let got = Buffer.alloc(0);
    let settled = false;
    const done = (ready: boolean) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(ready);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => socket.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 3, 1, 0, 0])));
    socket.on("data", (data) => {
      got = Buffer.concat([got, data]);
      if (got.length >= 8) done(got[4] === 3);
    });
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}

async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await sleep(intervalMs);
  }
  return predicate();
}

/** The rabbitmq user's uid and gid when we are root (the broker never runs as root); else nothing. */
function runAs(): { uid?: number; gid?: number } {
  if (!isRoot()) return {};
  const id = (flag: string) =>
    Number(spawnSync("id", [flag, "rabbitmq"], { encoding: "utf8" }).stdout?.trim() ?? "");
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid <= 0)
    throw new RabbitNodeError(
      "the rabbitmq user does not exist; reinstall rabbitmq-server (it creates that user)",
    );
  return { uid, gid };
}

function pathsOf(base: string) {
  return {
    config: join(base, "rabbitmq.conf"),
    plugins: join(base, "enabled_plugins"),
    envConf: join(base, "rabbitmq-env.conf"),
    mnesia: join(base, "mnesia"),
    log: join(base, "log"),
    home: join(base, "home"),
    pidFile: join(base, "rabbit.pid"),
    startupLog: join(base, "log", "startup.log"),
    epmdLog: join(base, "log", "epmd.log"),
  };
}

/** The environment of the node: loopback only, its state in its folder, its own epmd and ports. */
function nodeEnv(layout: RabbitNodeLayout): NodeJS.ProcessEnv {
  const paths = pathsOf(layout.base);
  const loopbackDist = "-kernel inet_dist_use_interface {127,0,0,1}";
  return {
    PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    HOME: paths.home, // the Erlang cookie lives here
    RABBITMQ_NODENAME: layout.nodename,
    RABBITMQ_NODE_IP_ADDRESS: HOST,
    RABBITMQ_NODE_PORT: String(layout.port),
    ...(layout.distPort === undefined ? {} : { RABBITMQ_DIST_PORT: String(layout.distPort) }),
    RABBITMQ_CONFIG_FILE: paths.config,
    RABBITMQ_CONF_ENV_FILE: paths.envConf,
    RABBITMQ_ENABLED_PLUGINS_FILE: paths.plugins,
    RABBITMQ_MNESIA_BASE: paths.mnesia,
    RABBITMQ_LOG_BASE: paths.log,
    RABBITMQ_PID_FILE: paths.pidFile,
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: loopbackDist,
    ERL_EPMD_ADDRESS: HOST,
    ERL_EPMD_PORT: String(layout.epmdPort),
  };
}

function prepareFiles(layout: RabbitNodeLayout): void {
  const paths = pathsOf(layout.base);
  for (const dir of [layout.base, paths.mnesia, paths.log, paths.home]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    paths.config,
    [
      "# written by lckit (src/events/broker/rabbitmq-node.ts): loopback only, no management plugin",
      `listeners.tcp.default = ${HOST}:${layout.port}`,
      "loopback_users.guest = true",
      "log.console = false",
      "log.file.level = info",
      "",
    ].join("\n"),
  );
  // AMQP 1.0 on (on the same listener as 0-9-1); management and every other plugin off.
  writeFileSync(paths.plugins, "[rabbitmq_amqp1_0].\n");
  writeFileSync(paths.envConf, "# written by lckit; the environment is set by the kit\n");
  rmSync(paths.pidFile, { force: true });
  if (isRoot()) {
    const chown = spawnSync("chown", ["-R", "rabbitmq:rabbitmq", layout.base], { encoding: "utf8" });
    if (chown.status !== 0)
      throw new RabbitNodeError(`chown -R rabbitmq:rabbitmq ${layout.base} failed: ${chown.stderr}`);
  }
}

function tail(file: string, lines = 30): string {
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}

function readPidFile(base: string): number | null {
  const file = pathsOf(base).pidFile;
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** A detached process of its own (its own process group: a Ctrl-C of the kit's terminal reaches the kit,
 *  which stops the node in order), its output to a log file. */
function spawnLogged(command: string, args: string[], layout: RabbitNodeLayout, log: string): number {
  const out = openSync(log, "a");
  try {
    const child = spawn(command, args, {
      env: nodeEnv(layout),
      cwd: layout.base,
      detached: true,
      stdio: ["ignore", out, out],
      ...runAs(),
    });
    child.on("error", () => {});
    child.unref();
    if (child.pid === undefined) throw new RabbitNodeError(`could not start ${command}`);
    return child.pid;
  } finally {
    closeSync(out);
  }
}

async function terminate(pid: number | null, label: string, complain: (line: string) => void) {
  if (!pidAlive(pid)) return;
  try {
    process.kill(pid as number, "SIGTERM");
  } catch {}
  if (await waitFor(() => !pidAlive(pid), 10_000, 100)) return;
  complain(`${label} (pid ${pid}) did not stop after SIGTERM; sending SIGKILL`);
  try {
    process.kill(pid as number, "SIGKILL");
  } catch {}
  await waitFor(() => !pidAlive(pid), 5000, 100);
}

/** Stops a node by its PIDs: SIGTERM to the server script (a clean stop of the VM), SIGKILL after a grace
 *  period, then its epmd. Returns the PIDs still alive (none, normally). */
export async function stopRabbitNode(
  pids: RabbitNodePids,
  complain: (line: string) => void = () => {},
): Promise<number[]> {
  if (pidAlive(pids.rabbitmqServer)) {
    try {
      process.kill(pids.rabbitmqServer as number, "SIGTERM");
    } catch {}
  } else if (pidAlive(pids.beam)) {
    try {
      process.kill(pids.beam as number, "SIGTERM");
    } catch {}
  }
  await waitFor(() => !pidAlive(pids.beam) && !pidAlive(pids.rabbitmqServer), 30_000, 100);
  await terminate(pids.beam, "the RabbitMQ VM", complain);
  await terminate(pids.rabbitmqServer, "rabbitmq-server", complain);
  await terminate(pids.epmd, "epmd", complain);
  return [pids.rabbitmqServer, pids.beam, pids.epmd].filter((pid): pid is number => pidAlive(pid));
}

/** Starts a node in `layout` and waits until it answers AMQP; on any failure what started is stopped. */
export async function startRabbitNode(options: RabbitNodeStartOptions): Promise<RabbitNodeRecord> {
  const { serverScript = RABBITMQ_SERVER } = options;
  const progress = options.progress ?? (() => {});
  const missing = rabbitNodeMissing(serverScript);
  if (missing) throw new RabbitNodeError(missing);
  const layout: RabbitNodeLayout = {
    base: options.base,
    port: options.port,
    epmdPort: options.epmdPort,
    nodename: options.nodename,
    ...(options.distPort === undefined ? {} : { distPort: options.distPort }),
  };
  prepareFiles(layout);
  const record: RabbitNodeRecord = {
    ...layout,
    url: `amqp://guest:guest@${HOST}:${layout.port}`,
    pids: { rabbitmqServer: null, beam: null, epmd: null },
  };
  try {
    await launch(record, serverScript, options);
  } catch (error) {
    // Whatever failed (a spawn, the wait, the caller's stop), what started is stopped.
    record.pids.beam ??= readPidFile(layout.base);
    await stopRabbitNode(record.pids, progress);
    throw error;
  }
  record.pids.beam = readPidFile(layout.base);
  if (!(await amqp1Answers(layout.port)))
    progress("the node does not answer AMQP 1.0 (the rabbitmq_amqp1_0 plugin); see its log");
  return record;
}

/** epmd (unless one answers on its port), then the server, then the wait until AMQP answers. */
async function launch(record: RabbitNodeRecord, serverScript: string, options: RabbitNodeStartOptions) {
  const { timeoutMs = DEFAULT_NODE_START_TIMEOUT_MS, signal } = options;
  const paths = pathsOf(record.base);
  if (await portOpen(record.epmdPort)) {
    options.progress?.(
      `an epmd not started here answers on ${HOST}:${record.epmdPort}; using it (it is left running)`,
    );
  } else {
    const args = ["-address", HOST, "-port", String(record.epmdPort)];
    record.pids.epmd = spawnLogged(EPMD, args, record, paths.epmdLog);
    if (!(await waitFor(() => portOpen(record.epmdPort), 10_000, 100)))
      throw new RabbitNodeError(
        `epmd did not start listening on ${HOST}:${record.epmdPort}:\n${tail(paths.epmdLog)}`,
      );
  }
  const server = spawnLogged(serverScript, [], record, paths.startupLog);
  record.pids.rabbitmqServer = server;
  options.onSpawned?.(record);
  const ready = await waitFor(
    async () => signal?.aborted === true || !pidAlive(server) || (await amqpAnswers(record.url, 2000)),
    timeoutMs,
    500,
  );
  if (signal?.aborted) throw new RabbitNodeError("stopped while RabbitMQ was starting");
  if (!ready || !pidAlive(server))
    throw new RabbitNodeError(
      `${pidAlive(server) ? `RabbitMQ did not accept AMQP connections within ${timeoutMs / 1000} s` : "RabbitMQ exited during start-up"}; the last lines of ${paths.startupLog}:\n${tail(paths.startupLog)}`,
    );
}

export interface PrivateRabbitNode extends RabbitNodeRecord {
  /** Stops the node by its PIDs and removes its folder; fails naming what is still running. */
  stop(): Promise<void>;
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

const PRIVATE_PREFIX = "lckit-rabbitmq-";
/** In a private node's folder: the PID of the process that started it, and the node's PIDs. */
const OWNER_FILE = "owner.json";

function recordOwner(record: RabbitNodeRecord): void {
  writeFileSync(
    join(record.base, OWNER_FILE),
    `${JSON.stringify({ owner: process.pid, pids: record.pids })}\n`,
  );
}

/** Whether `pid` is a process of the node in `base`: every process of a node runs in its folder. */
function runsIn(pid: number | null | undefined, base: string): pid is number {
  if (!pidAlive(pid)) return false;
  try {
    return realpathSync(`/proc/${pid}/cwd`) === realpathSync(base);
  } catch {
    return false;
  }
}

/** Private nodes whose starter died without stopping them (killed by SIGKILL): each recorded PID that still
 *  runs in the node's folder is stopped, and the folder removed. Returns the folders cleaned up. */
export async function stopOrphanedRabbitNodes(
  dir = tmpdir(),
  progress: (line: string) => void = () => {},
): Promise<string[]> {
  const cleaned: string[] = [];
  for (const name of readdirSync(dir).filter((entry) => entry.startsWith(PRIVATE_PREFIX))) {
    const base = join(dir, name);
    let owner: { owner?: number; pids?: Partial<RabbitNodePids> };
    try {
      owner = JSON.parse(readFileSync(join(base, OWNER_FILE), "utf8"));
    } catch {
      continue; // not a node's folder, or one being set up
    }
    if (pidAlive(owner.owner)) continue;
    const proven = (pid: number | null | undefined) => (runsIn(pid, base) ? pid : null);
    const pids = {
      rabbitmqServer: proven(owner.pids?.rabbitmqServer),
      beam: proven(owner.pids?.beam),
      epmd: proven(owner.pids?.epmd),
    };
    progress(`stopping a node left running by a process that is gone (folder ${base})`);
    if ((await stopRabbitNode(pids, progress)).length > 0) continue;
    rmSync(base, { recursive: true, force: true });
    cleaned.push(base);
  }
  return cleaned;
}

/** A node for one caller: a folder under the temp dir, free ports (AMQP, epmd, distribution) and a node
 *  name of its own, so that it never meets another node on the machine. Nodes left running by callers that
 *  were killed (SIGKILL leaves no chance to stop them) are stopped first. */
export async function startPrivateRabbitNode(
  options: Pick<RabbitNodeStartOptions, "serverScript" | "timeoutMs" | "signal" | "progress"> = {},
): Promise<PrivateRabbitNode> {
  const missing = rabbitNodeMissing(options.serverScript);
  if (missing) throw new RabbitNodeError(missing);
  await stopOrphanedRabbitNodes(tmpdir(), options.progress);
  const base = mkdtempSync(join(tmpdir(), PRIVATE_PREFIX));
  const [port, epmdPort, distPort] = (await distinctFreePorts(3)) as [number, number, number];
  const nodename = `lckit-${process.pid}-${randomBytes(4).toString("hex")}@localhost`;
  let record: RabbitNodeRecord;
  try {
    record = await startRabbitNode({
      ...options,
      base,
      port,
      epmdPort,
      distPort,
      nodename,
      onSpawned: recordOwner,
    });
    recordOwner(record);
  } catch (error) {
    rmSync(base, { recursive: true, force: true });
    throw error;
  }
  return {
    ...record,
    async stop() {
      const left = await stopRabbitNode(record.pids, options.progress);
      if (left.length > 0)
        throw new RabbitNodeError(
          `the RabbitMQ node ${nodename} is still running after SIGTERM and SIGKILL (pids ${left.join(", ")}); its folder ${base} is kept`,
        );
      rmSync(base, { recursive: true, force: true });
    },
  };
}
