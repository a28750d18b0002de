#!/usr/bin/env node
// The services the broker tests need: one RabbitMQ node on loopback, started from the Debian package, with
// its AMQP 1.0 plugin on (AMQP 1.0 and 0-9-1 share the listener), and Debian's Python AMQP clients for
// /usr/bin/python3: python3-qpid-proton (Qpid Proton, a second, independent AMQP 1.0 implementation, and
// the Python example consumer's amqp1 delivery) and python3-pika (its rabbitmq delivery).
//
//   node scripts/services.mjs start    install when absent (root only), start, wait until AMQP answers
//   node scripts/services.mjs stop     stop what `start` started, by PID (never by process name)
//   node scripts/services.mjs status   print the recorded state; exit 0 when the broker answers
//
// With LCKIT_AMQP_URL set, an existing broker is used and nothing is started or stopped.
// LCKIT_AMQP_PORT, LCKIT_EPMD_PORT and LCKIT_RABBITMQ_NODENAME move the node (default 5672, 4369,
// lckit@localhost), so that a second node can run beside another checkout's on one machine.
// Everything the node writes lives under .tmp/rabbitmq/; the PIDs are recorded in .tmp/services.json.
// Starting and stopping the node is src/events/broker/rabbitmq-node.ts, the one implementation the kit's
// consumer check uses too; this plain Node ESM script (run by scripts/test.mjs before any TypeScript
// tooling) loads it through tsx's loader, as bin/lckit.mjs loads the CLI in a clone.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register();
const { RABBITMQ_SERVER, amqp1Answers, amqpAnswers, pidAlive, portOpen, startRabbitNode, stopRabbitNode } =
  await import("../src/events/broker/rabbitmq-node.ts");

const root = fileURLToPath(new URL("..", import.meta.url));
const tmp = join(root, ".tmp");
const stateFile = join(tmp, "services.json");
const host = "127.0.0.1";
const layout = {
  base: join(tmp, "rabbitmq"),
  port: Number(process.env.LCKIT_AMQP_PORT || 5672),
  epmdPort: Number(process.env.LCKIT_EPMD_PORT || 4369),
  nodename: process.env.LCKIT_RABBITMQ_NODENAME || "lckit@localhost",
};
const startTimeoutMs = Number(process.env.LCKIT_BROKER_START_TIMEOUT_MS || 90_000);
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const aptEnv = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };

function say(text) {
  process.stdout.write(`services: ${text}\n`);
}
function complain(text) {
  process.stderr.write(`services: ${text}\n`);
}

/** The URL without its password, for messages. */
function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<unparseable LCKIT_AMQP_URL>";
  }
}

function readState() {
  if (!existsSync(stateFile)) return undefined;
  try {
    return JSON.parse(readFileSync(stateFile, "utf8"));
  } catch {
    return undefined;
  }
}

function writeState(record) {
  mkdirSync(tmp, { recursive: true });
  writeFileSync(stateFile, `${JSON.stringify(record, null, 2)}\n`);
}

async function waitFor(predicate, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return predicate();
}

/** apt-get install, once more after refreshing the package lists when the first try fails. */
function aptInstall(name) {
  const args = ["install", "-y", "--no-install-recommends", name];
  if (spawnSync("apt-get", args, { stdio: "inherit", env: aptEnv }).status === 0) return true;
  say(`apt-get install ${name} failed; refreshing the package lists and trying once more`);
  spawnSync("apt-get", ["update"], { stdio: "inherit", env: aptEnv });
  return spawnSync("apt-get", args, { stdio: "inherit", env: aptEnv }).status === 0;
}

function installed() {
  return (
    existsSync(RABBITMQ_SERVER) &&
    spawnSync("dpkg", ["-s", "rabbitmq-server"], { stdio: "ignore" }).status === 0
  );
}

function install() {
  if (!isRoot) {
    complain("rabbitmq-server is not installed and this is not root, so it cannot be installed here.");
    complain("Install it once:  sudo apt-get install -y rabbitmq-server");
    complain("or point the tests at a broker you have:  export LCKIT_AMQP_URL=amqp://user:pass@host:5672");
    return false;
  }
  say("rabbitmq-server is not installed; installing it with apt-get (a minute or two)");
  // Keep apt from starting the system service (it would listen on every interface, on our port):
  // a temporary policy-rc.d, only when the system has none of its own.
  const policy = "/usr/sbin/policy-rc.d";
  const ownPolicy = !existsSync(policy);
  if (ownPolicy)
    writeFileSync(policy, "#!/bin/sh\n# temporary, written by lckit scripts/services.mjs\nexit 101\n", {
      mode: 0o755,
    });
  try {
    if (!aptInstall("rabbitmq-server")) {
      complain(
        "apt-get could not install rabbitmq-server (see above). Install it by hand or set LCKIT_AMQP_URL.",
      );
      return false;
    }
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  return installed();
}

/** Debian's Python, which Debian's python3-* packages are built for (a python3 earlier on PATH may not be). */
const debianPython = "/usr/bin/python3";
const PYTHON_PACKAGES = [
  {
    name: "python3-qpid-proton",
    module: "proton",
    for: "the AMQP 1.0 interop tests and the Python consumer",
  },
  { name: "python3-pika", module: "pika", for: "the Python example consumer over RabbitMQ" },
];

/** A Python AMQP client of the tests; a failure is reported, the other broker tests still run. */
function ensurePythonPackage({ name, module, for: usedBy }) {
  const present = () => spawnSync(debianPython, ["-c", `import ${module}`], { stdio: "ignore" }).status === 0;
  if (present()) return;
  if (!isRoot) {
    complain(`${name} is not installed and this is not root: sudo apt-get install -y ${name}`);
    return;
  }
  say(`${name} is not installed; installing it with apt-get`);
  aptInstall(name);
  if (!present()) complain(`could not install ${name}; ${usedBy} will fail`);
}

async function start() {
  for (const pkg of PYTHON_PACKAGES) ensurePythonPackage(pkg);
  const external = process.env.LCKIT_AMQP_URL;
  if (external) {
    if (await waitFor(() => amqpAnswers(external), 10_000, 1000)) {
      say(`LCKIT_AMQP_URL is set; using the broker at ${redact(external)} (nothing started)`);
      return 0;
    }
    complain(`LCKIT_AMQP_URL is set but ${redact(external)} does not accept AMQP connections.`);
    complain("Start that broker, fix the URL, or unset LCKIT_AMQP_URL to let this script start RabbitMQ.");
    return 1;
  }
  const url = `amqp://guest:guest@${host}:${layout.port}`;
  const state = readState();
  if (state && !state.external && pidAlive(state.pids?.beam) && (await amqpAnswers(url))) {
    say(`RabbitMQ already running at amqp://${host}:${layout.port} (pid ${state.pids.beam})`);
    return 0;
  }
  if (state && !state.external) {
    say("found a stale record of an earlier start; cleaning it up");
    await stopRabbitNode(state.pids ?? {}, complain);
    rmSync(stateFile, { force: true });
  }
  if (await portOpen(layout.port)) {
    if (await amqpAnswers(url)) {
      say(
        `a broker not started by this script already answers on ${host}:${layout.port}; using it (stop leaves it alone)`,
      );
      writeState({ url, external: true, pids: {} });
      return 0;
    }
    complain(`${host}:${layout.port} is taken by something that does not speak AMQP with guest/guest.`);
    complain("Free the port, or set LCKIT_AMQP_PORT to another port, or LCKIT_AMQP_URL to a broker.");
    return 1;
  }
  if (!installed() && !install()) return 1;
  const began = Date.now();
  let record;
  try {
    record = await startRabbitNode({
      ...layout,
      timeoutMs: startTimeoutMs,
      progress: complain,
      // Recorded before the node answers: a start that fails or is killed midway leaves its PIDs to stop.
      onSpawned: (spawned) => writeState({ ...spawned, started: new Date().toISOString() }),
    });
  } catch (error) {
    complain(error instanceof Error ? error.message : String(error));
    rmSync(stateFile, { force: true });
    return 1;
  }
  writeState({ ...record, started: new Date(began).toISOString() });
  if (!(await amqp1Answers(layout.port))) complain("the AMQP 1.0 tests will fail (see the node's log)");
  say(
    `RabbitMQ ready at amqp://${host}:${layout.port} in ${((Date.now() - began) / 1000).toFixed(1)} s (pids: ${JSON.stringify(record.pids)})`,
  );
  return 0;
}

async function stop() {
  if (process.env.LCKIT_AMQP_URL) {
    say("LCKIT_AMQP_URL is set; the broker there is not ours to stop");
    return 0;
  }
  const state = readState();
  if (!state) {
    say("nothing recorded as started; nothing to stop");
    return 0;
  }
  if (!state.external) {
    const left = await stopRabbitNode(state.pids ?? {}, complain);
    if (left.length > 0) {
      complain(`still running after stop: pids ${left.join(", ")}`);
      return 1;
    }
    say("RabbitMQ and epmd stopped");
  }
  rmSync(stateFile, { force: true });
  return 0;
}

async function status() {
  const external = process.env.LCKIT_AMQP_URL;
  if (external) {
    const ready = await amqpAnswers(external);
    say(`LCKIT_AMQP_URL ${redact(external)}: ${ready ? "answers" : "does not answer"}`);
    return ready ? 0 : 1;
  }
  const state = readState();
  if (!state) {
    say("not started");
    return 1;
  }
  const ready = await amqpAnswers(state.url);
  const pids = Object.fromEntries(
    Object.entries(state.pids ?? {}).map(([name, pid]) => [name, { pid, alive: pidAlive(pid) }]),
  );
  say(
    JSON.stringify({ url: `amqp://${host}:${layout.port}`, external: Boolean(state.external), ready, pids }),
  );
  return ready ? 0 : 1;
}

const actions = { start, stop, status };
const action = actions[process.argv[2] ?? ""];
if (!action) {
  complain(`expected one of start, stop, status; got ${JSON.stringify(process.argv[2] ?? "")}`);
  process.exit(2);
}
try {
  process.exitCode = await action();
} catch (error) {
  complain(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
