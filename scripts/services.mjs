#!/usr/bin/env node
// The services the broker tests need: one RabbitMQ node on loopback, started from the Debian package, with
// its AMQP 1.0 plugin on (AMQP 1.0 and 0-9-1 share the listener), and Qpid Proton's Python binding
// (python3-qpid-proton, Debian's) as a second, independent AMQP 1.0 implementation.
//
//   node scripts/services.mjs start    install when absent (root only), start, wait until AMQP answers
//   node scripts/services.mjs stop     stop what `start` started, by PID (never by process name)
//   node scripts/services.mjs status   print the recorded state; exit 0 when the broker answers
//
// With LCKIT_AMQP_URL set, an existing broker is used and nothing is started or stopped.
// LCKIT_AMQP_PORT, LCKIT_EPMD_PORT and LCKIT_RABBITMQ_NODENAME move the node (default 5672, 4369,
// lckit@localhost), so that a second node can run beside another checkout's on one machine.
// Everything the node writes lives under .tmp/rabbitmq/; the PIDs are recorded in .tmp/services.json.
// Plain Node ESM on purpose: scripts/test.mjs runs it before TypeScript tooling is involved.
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import amqp from "amqplib";

const root = fileURLToPath(new URL("..", import.meta.url));
const tmp = join(root, ".tmp");
const base = join(tmp, "rabbitmq");
const stateFile = join(tmp, "services.json");
const host = "127.0.0.1";
const port = Number(process.env.LCKIT_AMQP_PORT || 5672);
const epmdPort = Number(process.env.LCKIT_EPMD_PORT || 4369);
const nodename = process.env.LCKIT_RABBITMQ_NODENAME || "lckit@localhost";
const startTimeoutMs = Number(process.env.LCKIT_BROKER_START_TIMEOUT_MS || 90_000);
const serverScript = "/usr/lib/rabbitmq/bin/rabbitmq-server";
const ctlScript = "/usr/lib/rabbitmq/bin/rabbitmqctl";
const pluginsScript = "/usr/lib/rabbitmq/bin/rabbitmq-plugins";
const epmdBinary = "/usr/bin/epmd";
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

const paths = {
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

function say(text) {
  process.stdout.write(`services: ${text}\n`);
}
function complain(text) {
  process.stderr.write(`services: ${text}\n`);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function portOpen(portNumber, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port: portNumber });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** True when an AMQP handshake (not just a TCP connect) succeeds. */
async function amqpReady(url, timeoutMs = 3000) {
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
function amqp1Ready(timeoutMs = 3000) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let got = Buffer.alloc(0);
    let settled = false;
    const done = (ready) => {
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

function enableAmqp1() {
  say("enabling the AMQP 1.0 plugin (rabbitmq_amqp1_0) on the running node");
  const result = spawnSync(pluginsScript, ["enable", "rabbitmq_amqp1_0"], {
    env: brokerEnv(),
    cwd: base,
    ...runAs(),
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.status !== 0)
    complain(
      `rabbitmq-plugins enable rabbitmq_amqp1_0 failed (the AMQP 1.0 tests will fail): ${(result.stderr || result.stdout || "").trim()}`,
    );
}

async function waitFor(predicate, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await sleep(intervalMs);
  }
  return predicate();
}

function installed() {
  return (
    existsSync(serverScript) && spawnSync("dpkg", ["-s", "rabbitmq-server"], { stdio: "ignore" }).status === 0
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
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const args = ["install", "-y", "--no-install-recommends", "rabbitmq-server"];
    let result = spawnSync("apt-get", args, { stdio: "inherit", env });
    if (result.status !== 0) {
      say("apt-get install failed; refreshing the package lists and trying once more");
      spawnSync("apt-get", ["update"], { stdio: "inherit", env });
      result = spawnSync("apt-get", args, { stdio: "inherit", env });
    }
    if (result.status !== 0) {
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

const protonPackage = "python3-qpid-proton";
/** Debian's Python, which Debian's python3-* packages are built for (a python3 earlier on PATH may not be). */
const debianPython = "/usr/bin/python3";

function protonInstalled() {
  return spawnSync(debianPython, ["-c", "import proton"], { stdio: "ignore" }).status === 0;
}

/** Qpid Proton for the AMQP 1.0 interop tests; a failure is reported, the broker tests still run. */
function ensureProton() {
  if (protonInstalled()) return true;
  if (!isRoot) {
    complain(
      `${protonPackage} is not installed and this is not root: sudo apt-get install -y ${protonPackage}`,
    );
    return false;
  }
  say(`${protonPackage} is not installed; installing it with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const args = ["install", "-y", "--no-install-recommends", protonPackage];
  if (spawnSync("apt-get", args, { stdio: "inherit", env }).status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    spawnSync("apt-get", args, { stdio: "inherit", env });
  }
  if (!protonInstalled())
    complain(`could not install ${protonPackage}; the AMQP 1.0 interop tests will fail`);
  return protonInstalled();
}

/** uid/gid of the rabbitmq user when we are root (the broker never runs as root); else ours. */
function runAs() {
  if (!isRoot) return {};
  const uid = Number(spawnSync("id", ["-u", "rabbitmq"], { encoding: "utf8" }).stdout.trim());
  const gid = Number(spawnSync("id", ["-g", "rabbitmq"], { encoding: "utf8" }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid <= 0) {
    throw new Error("the rabbitmq user does not exist; reinstall rabbitmq-server (it creates that user)");
  }
  return { uid, gid };
}

/** The environment of every RabbitMQ process we run: loopback only, state under .tmp/rabbitmq/. */
function brokerEnv() {
  const loopbackDist = "-kernel inet_dist_use_interface {127,0,0,1}";
  return {
    PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    HOME: paths.home, // the Erlang cookie lives here, shared by the node and rabbitmqctl
    RABBITMQ_NODENAME: nodename,
    RABBITMQ_NODE_IP_ADDRESS: host,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_CONFIG_FILE: paths.config,
    RABBITMQ_CONF_ENV_FILE: paths.envConf,
    RABBITMQ_ENABLED_PLUGINS_FILE: paths.plugins,
    RABBITMQ_MNESIA_BASE: paths.mnesia,
    RABBITMQ_LOG_BASE: paths.log,
    RABBITMQ_PID_FILE: paths.pidFile,
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: loopbackDist,
    RABBITMQ_CTL_ERL_ARGS: loopbackDist,
    ERL_EPMD_ADDRESS: host,
    ERL_EPMD_PORT: String(epmdPort),
  };
}

function prepareFiles() {
  for (const dir of [base, paths.mnesia, paths.log, paths.home]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    paths.config,
    [
      "# written by scripts/services.mjs: loopback only, no management plugin",
      `listeners.tcp.default = ${host}:${port}`,
      "loopback_users.guest = true",
      "log.console = false",
      "log.file.level = info",
      "",
    ].join("\n"),
  );
  // AMQP 1.0 on (on the same listener as 0-9-1); management and every other plugin off.
  writeFileSync(paths.plugins, "[rabbitmq_amqp1_0].\n");
  writeFileSync(paths.envConf, "# written by scripts/services.mjs; the environment is set by the script\n");
  rmSync(paths.pidFile, { force: true });
  if (isRoot) {
    const chown = spawnSync("chown", ["-R", "rabbitmq:rabbitmq", base], { stdio: "inherit" });
    if (chown.status !== 0) throw new Error(`chown -R rabbitmq:rabbitmq ${base} failed`);
  }
}

function tail(file, lines = 30) {
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}

async function terminate(pid, label, graceMs = 10_000) {
  if (!alive(pid)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {}
  if (await waitFor(() => !alive(pid), graceMs, 100)) return;
  complain(`${label} (pid ${pid}) did not stop after SIGTERM; sending SIGKILL`);
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
  await waitFor(() => !alive(pid), 5000, 100);
}

async function stopRecorded(state) {
  const pids = state.pids ?? {};
  const nodeUp = alive(pids.beam) || alive(pids.rabbitmqServer);
  if (nodeUp) {
    // rabbitmqctl needs epmd to find the node; without ours it would start a stray one, so signal instead.
    if (alive(pids.epmd) || pids.epmd === null) {
      const result = spawnSync(ctlScript, ["stop", paths.pidFile], {
        env: brokerEnv(),
        cwd: base,
        ...runAs(),
        encoding: "utf8",
        timeout: 60_000,
      });
      if (result.status !== 0)
        complain(`rabbitmqctl stop failed: ${(result.stderr || result.stdout || "").trim()}`);
    }
    await waitFor(() => !alive(pids.beam) && !alive(pids.rabbitmqServer), 30_000, 200);
    await terminate(pids.rabbitmqServer, "rabbitmq-server");
    await terminate(pids.beam, "the RabbitMQ VM");
  }
  if (pids.epmd) await terminate(pids.epmd, "epmd");
}

async function start() {
  ensureProton();
  const external = process.env.LCKIT_AMQP_URL;
  if (external) {
    if (await waitFor(() => amqpReady(external), 10_000, 1000)) {
      say(`LCKIT_AMQP_URL is set; using the broker at ${redact(external)} (nothing started)`);
      return 0;
    }
    complain(`LCKIT_AMQP_URL is set but ${redact(external)} does not accept AMQP connections.`);
    complain("Start that broker, fix the URL, or unset LCKIT_AMQP_URL to let this script start RabbitMQ.");
    return 1;
  }
  const url = `amqp://guest:guest@${host}:${port}`;
  const state = readState();
  if (state && !state.external && alive(state.pids?.beam) && (await amqpReady(url))) {
    say(`RabbitMQ already running at amqp://${host}:${port} (pid ${state.pids.beam})`);
    // A node started before AMQP 1.0 was part of the setup gets the plugin now, without a restart.
    if (!(await amqp1Ready())) enableAmqp1();
    return 0;
  }
  if (state && !state.external) {
    say("found a stale record of an earlier start; cleaning it up");
    await stopRecorded(state);
    unlinkSync(stateFile);
  }
  if (await portOpen(port)) {
    if (await amqpReady(url)) {
      say(
        `a broker not started by this script already answers on ${host}:${port}; using it (stop leaves it alone)`,
      );
      mkdirSync(tmp, { recursive: true });
      writeFileSync(stateFile, `${JSON.stringify({ url, external: true, pids: {} }, null, 2)}\n`);
      return 0;
    }
    complain(`${host}:${port} is taken by something that does not speak AMQP with guest/guest.`);
    complain("Free the port, or set LCKIT_AMQP_PORT to another port, or LCKIT_AMQP_URL to a broker.");
    return 1;
  }
  if (!installed() && !install()) return 1;

  const began = Date.now();
  prepareFiles();
  const identity = runAs();
  const env = brokerEnv();

  // epmd first, in the foreground of its own process, so that its PID is ours to stop later.
  let epmdPid = null;
  if (!(await portOpen(epmdPort))) {
    const out = openSync(paths.epmdLog, "a");
    const epmd = spawn(epmdBinary, ["-address", host, "-port", String(epmdPort)], {
      env,
      cwd: base,
      detached: true,
      stdio: ["ignore", out, out],
      ...identity,
    });
    closeSync(out);
    epmd.unref();
    epmdPid = epmd.pid;
    if (!(await waitFor(() => portOpen(epmdPort), 10_000, 100))) {
      complain(`epmd did not start listening on ${host}:${epmdPort}:\n${tail(paths.epmdLog)}`);
      await terminate(epmdPid, "epmd");
      return 1;
    }
  } else {
    say(`an epmd not started by this script answers on ${host}:${epmdPort}; using it (stop leaves it alone)`);
  }

  const out = openSync(paths.startupLog, "a");
  const server = spawn(serverScript, [], {
    env,
    cwd: base,
    detached: true,
    stdio: ["ignore", out, out],
    ...identity,
  });
  closeSync(out);
  server.unref();
  const serverPid = server.pid;
  const record = {
    url,
    nodename,
    base,
    started: new Date().toISOString(),
    pids: { rabbitmqServer: serverPid, beam: null, epmd: epmdPid },
  };
  mkdirSync(tmp, { recursive: true });
  writeFileSync(stateFile, `${JSON.stringify(record, null, 2)}\n`);

  const ready = await waitFor(
    async () => !alive(serverPid) || (await amqpReady(url, 2000)),
    startTimeoutMs,
    500,
  );
  if (!ready || !alive(serverPid)) {
    complain(
      alive(serverPid)
        ? `RabbitMQ did not accept AMQP connections within ${startTimeoutMs / 1000} s.`
        : "RabbitMQ exited during start-up.",
    );
    complain(`last lines of ${paths.startupLog}:\n${tail(paths.startupLog)}`);
    await stopRecorded({ pids: { rabbitmqServer: serverPid, beam: readPidFile(), epmd: epmdPid } });
    rmSync(stateFile, { force: true });
    return 1;
  }
  record.pids.beam = readPidFile();
  writeFileSync(stateFile, `${JSON.stringify(record, null, 2)}\n`);
  if (!(await amqp1Ready()))
    complain("the node does not answer AMQP 1.0; the AMQP 1.0 tests will fail (see the log)");
  say(
    `RabbitMQ ready at amqp://${host}:${port} in ${((Date.now() - began) / 1000).toFixed(1)} s (pids: ${JSON.stringify(record.pids)})`,
  );
  return 0;
}

function readPidFile() {
  if (!existsSync(paths.pidFile)) return null;
  const pid = Number(readFileSync(paths.pidFile, "utf8").trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
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
    await stopRecorded(state);
    const left = Object.entries(state.pids ?? {}).filter(([, pid]) => alive(pid));
    if (left.length > 0) {
      complain(`still running after stop: ${JSON.stringify(Object.fromEntries(left))}`);
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
    const ready = await amqpReady(external);
    say(`LCKIT_AMQP_URL ${redact(external)}: ${ready ? "answers" : "does not answer"}`);
    return ready ? 0 : 1;
  }
  const state = readState();
  if (!state) {
    say("not started");
    return 1;
  }
  const ready = await amqpReady(state.url);
  const pids = Object.fromEntries(
    Object.entries(state.pids ?? {}).map(([name, pid]) => [name, { pid, alive: alive(pid) }]),
  );
  say(JSON.stringify({ url: `amqp://${host}:${port}`, external: Boolean(state.external), ready, pids }));
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
