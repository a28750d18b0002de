// lckit events consumer check without --broker: the kit starts a RabbitMQ node of its own from Debian's
// rabbitmq-server (src/events/broker/rabbitmq-node.ts), runs the check on it and stops it by its PIDs, its
// folder removed, however the check ends. Two node starts in all: a sweep over the rabbitmq delivery that
// the kit's own stop (Ctrl-C) ends while a consumer hangs, and the command line over the amqp1 delivery;
// the other tests start none (a server that exits at once, stand-ins for a killed kit's node, no server).
// The node takes free ports and a name of its own: the tests' shared broker (scripts/services.mjs) runs
// beside it undisturbed.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { consumerCheck } from "../../src/commands/consumer/check.ts";
import { runConsumerSession } from "../../src/commands/consumer/session.ts";
import { pidAlive, portOpen, stopOrphanedRabbitNodes } from "../../src/events/broker/rabbitmq-node.ts";
import { PRODUCER_CHOICES } from "../../src/events/consumer/producer-choices.ts";
import { packagePath } from "../../src/package-root.ts";
import { captureIo } from "../cli/capture-io.ts";

const NODE_CONSUMER = packagePath("examples", "consumers", "view-consumer.mjs");
const PYTHON_CONSUMER = packagePath("examples", "consumers", "view_consumer.py");

/** The node the kit announced on its progress lines: its port, PIDs and folder. */
function announcedNode(progress: string) {
  const ready =
    /RabbitMQ ready at amqp:\/\/127\.0\.0\.1:(\d+) in [\d.]+ s \(node (\S+), pids ([\d ]+), folder (.+)\)\n/.exec(
      progress,
    );
  if (!ready) throw new Error(`no "RabbitMQ ready" line in:\n${progress}`);
  return {
    port: Number(ready[1]),
    nodename: ready[2] as string,
    pids: (ready[3] as string).split(" ").map(Number),
    folder: ready[4] as string,
  };
}

function expectStopped(node: ReturnType<typeof announcedNode>) {
  expect(node.pids.length).toBe(3); // rabbitmq-server, the VM, epmd
  expect(node.pids.filter(pidAlive)).toEqual([]);
  expect(existsSync(node.folder)).toBe(false);
  // Not the shared broker's port nor its name.
  expect(node.port).not.toBe(5672);
  expect(node.nodename).toMatch(/^lckit-\d+-[0-9a-f]+@localhost$/);
}

describe("the consumer check starts a RabbitMQ node when no broker is named", () => {
  it("one node for a sweep (rabbitmq): the correct consumer passes, then the kit is stopped while a consumer hangs, and the node is stopped by PID", async () => {
    let progress = "";
    const stopper = new AbortController();
    const choices = ["snapshot", "deltas"].map((name) => PRODUCER_CHOICES.find((c) => c.name === name));
    // The second choice's consumer hangs; the kit is stopped (as by Ctrl-C) a second after it starts.
    const hangsOnDeltas = `if [ "$LCKIT_VARIANT" = deltas ]; then exec sleep 120; fi; exec "${process.execPath}" "${NODE_CONSUMER}"`;
    const session = await runConsumerSession(
      {
        argv: ["sh", "-c", hangsOnDeltas],
        choices: choices as NonNullable<(typeof choices)[number]>[],
        reportRoot: mkdtempSync(join(tmpdir(), "lckit-kit-broker-")),
        parallel: 1,
        delivery: "rabbitmq",
        count: 300, // seed 1 at 300 gives every MUST rule an opportunity (at 200 no object ends on a fallback)
        timeoutMs: 60_000,
        signal: stopper.signal,
        progress: (line) => {
          progress += line;
        },
      },
      {
        onFinished: (entry) => {
          if (entry.choice.name === "snapshot") setTimeout(() => stopper.abort(), 1000);
        },
      },
    );
    expect(session.kind).toBe("sweep");
    if (session.kind !== "sweep") return;
    const byChoice = Object.fromEntries(session.sweep.runs.map((r) => [r.choice.name, r.run]));
    expect(byChoice.snapshot?.exitCode, byChoice.snapshot?.result.verdictReason).toBe(0);
    expect(byChoice.snapshot?.result.verdict).toBe("CONFORMANT");
    expect(byChoice.snapshot?.queue).toMatch(/^lckit-consumer-check-/);
    // The kit stopped while the consumer hung: its process group stopped, and the run is interrupted (4),
    // never the consumer's fault.
    expect(byChoice.deltas?.exitCode).toBe(4);
    expect(byChoice.deltas?.outcome.signal).toBe("SIGTERM");
    expect(progress.match(/starting a RabbitMQ node/g)).toHaveLength(1);
    expectStopped(announcedNode(progress));
    expect(progress).toMatch(/RabbitMQ node stopped \(pids [\d ]+\), its folder removed\n$/);
  }, 180_000);

  it("the command line (amqp1, the Python consumer): a progress line on stderr, the verdict, the node gone after", async () => {
    const io = captureIo();
    const code = await main(
      [
        "events",
        "consumer",
        "check",
        "--delivery",
        "amqp1",
        "--messages",
        "300",
        "--report-dir",
        mkdtempSync(join(tmpdir(), "lckit-kit-broker-")),
        "--quiet",
        "--",
        "/usr/bin/python3",
        PYTHON_CONSUMER,
      ],
      io,
    );
    expect(code, `${io.stdout()}\n${io.stderr()}`).toBe(0);
    expect(io.stdout()).toMatch(/^CONFORMANT: .*delivered \(amqp1, /);
    expect(io.stderr()).toMatch(/^starting a RabbitMQ node of the kit's own for the amqp1 delivery/);
    expectStopped(announcedNode(io.stderr()));
  }, 180_000);

  it("a server that exits during start-up: a clear error, its epmd stopped and its folder removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lckit-fake-rabbitmq-"));
    const script = join(dir, "rabbitmq-server");
    // It says which epmd port the node was given, to see afterwards that its epmd is gone.
    writeFileSync(script, '#!/bin/sh\necho "a broken broker, epmd port $ERL_EPMD_PORT" >&2\nexit 3\n', {
      mode: 0o755,
    });
    chmodSync(dir, 0o755); // as root the node runs as the rabbitmq user
    const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("lckit-rabbitmq-")));
    let progress = "";
    const failure = await consumerCheck({
      argv: ["true"],
      delivery: "rabbitmq",
      rabbitmqServer: script,
      progress: (line) => {
        progress += line;
      },
    }).catch((error: Error) => error);
    expect(String(failure)).toMatch(
      /could not start RabbitMQ: RabbitMQ exited during start-up; .*a broken broker.*or give --broker URL/s,
    );
    const epmdPort = Number(/epmd port (\d+)/.exec(String(failure))?.[1]);
    expect(epmdPort).toBeGreaterThan(0);
    expect(await portOpen(epmdPort)).toBe(false);
    expect(progress).toMatch(/^starting a RabbitMQ node/);
    expect(
      readdirSync(tmpdir()).filter((name) => name.startsWith("lckit-rabbitmq-") && !before.has(name)),
    ).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("a node left by a kit killed with SIGKILL is stopped by the next start: only the PIDs that run in its folder", async () => {
    // Stand-ins for the processes of nodes (no RabbitMQ start): what matters is their folder and owner.
    const dir = mkdtempSync(join(tmpdir(), "lckit-orphans-"));
    const orphan = mkdtempSync(join(dir, "lckit-rabbitmq-"));
    const kept = mkdtempSync(join(dir, "lckit-rabbitmq-"));
    const inFolder = spawn("sleep", ["60"], { cwd: orphan, stdio: "ignore" });
    const elsewhere = spawn("sleep", ["60"], { cwd: dir, stdio: "ignore" });
    const gone = spawn("true", { stdio: "ignore" });
    await once(gone, "exit");
    const owner = (pid: number | undefined, pids: object) => JSON.stringify({ owner: pid, pids });
    // The dead kit's record names a process of its node and one that is not (a PID taken since).
    writeFileSync(
      join(orphan, "owner.json"),
      owner(gone.pid, { rabbitmqServer: inFolder.pid, beam: null, epmd: elsewhere.pid }),
    );
    writeFileSync(join(kept, "owner.json"), owner(process.pid, { rabbitmqServer: elsewhere.pid }));
    try {
      expect(await stopOrphanedRabbitNodes(dir)).toEqual([orphan]);
      expect(pidAlive(inFolder.pid)).toBe(false);
      expect(existsSync(orphan)).toBe(false);
      // Not a process of the node, and a node whose kit is alive: left alone.
      expect(pidAlive(elsewhere.pid)).toBe(true);
      expect(existsSync(kept)).toBe(true);
    } finally {
      inFolder.kill();
      elsewhere.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("without rabbitmq-server installed: exit 2, naming the package and --broker; nothing started", async () => {
    const missing = "/nonexistent/rabbitmq-server";
    await expect(
      consumerCheck({ argv: ["true"], delivery: "rabbitmq", rabbitmqServer: missing }),
    ).rejects.toThrow(/sudo apt-get install rabbitmq-server\), or give --broker URL of a running broker/);
    const io = captureIo();
    io.env = { LCKIT_RABBITMQ_SERVER: missing };
    const code = await main(
      ["events", "consumer", "check", "--delivery", "amqp1", "--", "/usr/bin/python3", PYTHON_CONSUMER],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(
      /the amqp1 delivery without --broker runs on a RabbitMQ node the kit starts, and Debian's rabbitmq-server is not installed \(no \/nonexistent\/rabbitmq-server\): install it/,
    );
    expect(io.stderr()).not.toMatch(/starting a RabbitMQ node/);
  });
});
