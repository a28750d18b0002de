// The broker the broker tests use, and small tools around it.
//
// - LCKIT_AMQP_URL set: that broker; it must answer, else the tests FAIL (they never skip silently).
// - LCKIT_SERVICES=1 (scripts/test.mjs started RabbitMQ): the local broker; it must answer, else FAIL.
// - neither (someone running vitest alone): scripts/services.mjs starts RabbitMQ here, and stops it after,
//   unless it was already running.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import amqp from "amqplib";
import { amqpAnswers, pidAlive } from "../../src/events/broker/rabbitmq-node.ts";

const root = join(import.meta.dirname, "..", "..");
const services = join(root, "scripts", "services.mjs");
// LCKIT_AMQP_PORT moves the local node (scripts/services.mjs reads it too).
const localPort = Number(process.env.LCKIT_AMQP_PORT || 5672);
const localUrl = `amqp://guest:guest@127.0.0.1:${localPort}`;

export interface Broker {
  url: string;
  /** True when the tests may stop and start the broker (the local RabbitMQ of scripts/services.mjs). */
  restartable: boolean;
  release(): Promise<void>;
}

export function runServices(action: "start" | "stop" | "status"): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [services, action], { cwd: root, env: process.env });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

async function answersWithin(url: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await amqpAnswers(url)) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

function managedLocally(): boolean {
  const state = join(root, ".tmp", "services.json");
  if (!existsSync(state)) return false;
  try {
    return JSON.parse(readFileSync(state, "utf8")).external !== true;
  } catch {
    return false;
  }
}

export async function acquireBroker(): Promise<Broker> {
  const external = process.env.LCKIT_AMQP_URL;
  if (external) {
    if (!(await answersWithin(external, 10_000)))
      throw new Error(
        "LCKIT_AMQP_URL is set but that broker does not accept AMQP connections; the broker tests need it. " +
          "Start it, fix the URL, or unset LCKIT_AMQP_URL to let scripts/services.mjs start RabbitMQ.",
      );
    return { url: external, restartable: false, release: async () => {} };
  }
  if (process.env.LCKIT_SERVICES === "1") {
    if (!(await answersWithin(localUrl, 10_000)))
      throw new Error(
        `LCKIT_SERVICES=1 says scripts/services.mjs started RabbitMQ, but 127.0.0.1:${localPort} does not accept AMQP ` +
          "connections. See .tmp/rabbitmq/log/ and run `node scripts/services.mjs status`.",
      );
    return { url: localUrl, restartable: managedLocally(), release: async () => {} };
  }
  // Another file restarting the broker is not a broker to start (nor its record a stale one to clean up).
  while (restartUnderWay()) await pause(200);
  const before = await runServices("status");
  if (before.code === 0) return { url: localUrl, restartable: managedLocally(), release: async () => {} };
  const started = await runServices("start");
  if (started.code !== 0)
    throw new Error(
      `the broker tests need RabbitMQ and \`node scripts/services.mjs start\` failed:\n${started.output}\n` +
        "Install rabbitmq-server (apt-get install rabbitmq-server) or set LCKIT_AMQP_URL to a broker.",
    );
  return {
    url: localUrl,
    restartable: managedLocally(),
    release: async () => {
      const stopped = await runServices("stop");
      if (stopped.code !== 0) throw new Error(`scripts/services.mjs stop failed:\n${stopped.output}`);
    },
  };
}

// Test files run side by side, and one of them restarts the local broker: a file that uses the broker holds
// it for each test (a file under .tmp/broker-coordination/), and the restart waits until no other file holds
// it, while new holders wait for the restart to end. Files of dead processes are ignored.
const coordination = join(root, ".tmp", "broker-coordination");
const restartLock = join(coordination, "restart.lock");
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function restartUnderWay(): boolean {
  if (!existsSync(restartLock)) return false;
  const pid = Number(readFileSync(restartLock, "utf8").trim());
  return !Number.isInteger(pid) || pid <= 0 || pidAlive(pid);
}

/** Holds the broker for one test: waits while another file restarts it. Returns the release. */
export async function holdBroker(): Promise<() => void> {
  mkdirSync(coordination, { recursive: true });
  const mine = join(coordination, `user-${process.pid}-${randomUUID()}`);
  for (;;) {
    // Registered first, then the lock looked at: a restart that began meanwhile sees this holder.
    writeFileSync(mine, "");
    if (!restartUnderWay()) return () => rmSync(mine, { force: true });
    rmSync(mine, { force: true });
    await pause(200);
  }
}

/** Runs `restart` once no other process holds the broker; holders wait meanwhile. */
export async function restartExclusively<T>(restart: () => Promise<T>): Promise<T> {
  mkdirSync(coordination, { recursive: true });
  for (;;) {
    try {
      writeFileSync(restartLock, String(process.pid), { flag: "wx" });
      break;
    } catch {
      if (!restartUnderWay()) rmSync(restartLock, { force: true });
      else await pause(200);
    }
  }
  try {
    const deadline = Date.now() + 100_000;
    const others = () =>
      readdirSync(coordination).filter((name) => {
        const pid = Number(/^user-(\d+)-/.exec(name)?.[1]);
        return Number.isInteger(pid) && pid !== process.pid && pidAlive(pid);
      });
    while (others().length > 0) {
      if (Date.now() > deadline)
        throw new Error(`other test files still hold the broker after 100 s: ${others().join(", ")}`);
      await pause(200);
    }
    return await restart();
  } finally {
    rmSync(restartLock, { force: true });
  }
}

/** A unique name per test, so that runs never see each other's exchanges and queues. */
export function uniqueName(prefix: string): string {
  return `${prefix}.${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}`;
}

/** Administrative actions on the broker (declare, inspect, delete) on a connection of their own. */
export async function withChannel<T>(
  url: string,
  use: (
    channel: Awaited<ReturnType<Awaited<ReturnType<typeof amqp.connect>>["createChannel"]>>,
  ) => Promise<T>,
): Promise<T> {
  const connection = await amqp.connect(url);
  connection.on("error", () => {});
  try {
    const channel = await connection.createChannel();
    channel.on("error", () => {});
    return await use(channel);
  } finally {
    await connection.close().catch(() => {});
  }
}

/** A TCP relay in front of the broker whose connections can be cut: a connection loss on any broker. */
export class CuttableRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(port = 0): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {});
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (address && typeof address === "object") this.port = address.port;
    this.server = server;
  }

  /** Drops every relayed connection and stops accepting new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
