// tsx scripts/compare-reports.ts OUT: runs the judging commands (lckit run against the embedded reference,
// with seeded faults and with variants; lckit events check; lckit client check and lckit events consumer
// check, each once and as a sweep; lckit report verify) on fixed inputs through the kit's own binary, and
// writes what each printed, its exit code and every file of its report folder to OUT/<case>/, with what
// changes from run to run (run ids, times, durations, ports, temporary paths, hashes and signatures)
// replaced by placeholders and JSON keys sorted. Two such folders, made before and after a refactoring, are
// compared with `diff -r BEFORE AFTER`: an empty diff says the refactoring changed no output of those
// commands.

import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const node = process.execPath;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = process.argv[2];
if (out === undefined) {
  console.error("usage: tsx scripts/compare-reports.ts OUT_DIR [CASE...]");
  process.exit(2);
}

function main(): void {
  if (out === "--renormalise") {
    // Applies today's placeholders to a folder written before they were added.
    for (const file of walk(process.argv[3] as string))
      writeFileSync(
        file,
        file.endsWith("stdout")
          ? normaliseOutput(readFileSync(file, "utf8"), "<cwd>")
          : normaliseFile(file, "<cwd>"),
      );
    return;
  }
  rmSync(out as string, { recursive: true, force: true });
  mkdirSync(out as string, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "lckit-compare-"));
  const key = generateKeyPairSync("ed25519");
  writeFileSync(join(work, "sign.pem"), key.privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(join(work, "sign.pub.pem"), key.publicKey.export({ type: "spki", format: "pem" }));
  writeFileSync(join(work, "empty.ndjson"), "");
  const filler = (n: number) =>
    JSON.stringify({
      type: "INTERACTION_CHANGED",
      object: { uri: `interactions/f${n}`, type: "configuration/interactionTypes/Email" },
    });
  writeFileSync(
    join(work, "streaming.json"),
    JSON.stringify({
      JMSEventsFilteringFields: ["uri", "type", "updatedTime", "attributes"],
      RelationEventsFilteringFields: ["uri", "type", "updatedTime", "startObject", "endObject"],
      referenceRelationTypes: ["HasAddress"],
      companionWindow: { messages: 3, seconds: 0 },
    }),
  );
  // A stream cut just after a relationship event: its companion rule cannot decide.
  writeFileSync(
    join(work, "cut.ndjson"),
    `${[
      filler(1),
      filler(2),
      JSON.stringify({
        type: "RELATIONSHIP_CREATED",
        object: {
          uri: "relations/r1",
          type: "configuration/relationTypes/HasAddress",
          updatedTime: Date.parse("2026-01-05T09:00:00Z"),
          startObject: { objectURI: "entities/a" },
          endObject: { objectURI: "entities/b" },
        },
      }),
      filler(3),
    ].join("\n")}\n`,
  );

  const fixture = (...parts: string[]) => join(root, "fixtures", ...parts);
  const client = join(root, "examples", "clients", "lookup-client.mjs");

  interface Case {
    name: string;
    args: string[];
    env?: Record<string, string>;
    /** Runs `lckit report verify` on the report folder this case wrote. */
    verify?: boolean;
  }

  const run = (name: string, ...args: string[]): Case => ({
    name,
    args: ["run", "--seed", "42", "--runs", "5", ...args],
    verify: true,
  });

  const viewConsumer = join(root, "examples", "consumers", "view-consumer.mjs");
  // The consumer check on a short stream, none kept between runs (a kept stream would change what a
  // second run prints).
  const consumer = (
    name: string,
    extra: string[],
    command: string[],
    env?: Record<string, string>,
  ): Case => ({
    name,
    args: [
      "events",
      "consumer",
      "check",
      "--quiet",
      "--stream-cache",
      "off",
      "--messages",
      "200",
      ...extra,
      "--",
      ...command,
    ],
    ...(env ? { env } : {}),
    verify: true,
  });
  // A command that interrupts the kit running it (SIGINT to its parent), as a Ctrl-C would.
  const interrupting = ["sh", "-c", "kill -INT $PPID; sleep 5"];

  const cases: Case[] = [
    run("run-embedded", "--har", "--attest", "--sign-key", "sign.pem"),
    { name: "run-list", args: ["run", "--list", "--format", "json"] },
    run("run-fail-on", "--check", "token-quota/*", "--fail-on", "incomplete,should", "--format", "json"),
    run("fault-scan-repeats", "--fault", "scan-repeats-record-at-page-boundary"),
    run("fault-scan-never-ends", "--fault", "scan-never-ends"),
    run("fault-quota-off-by-one", "--fault", "quota-off-by-one"),
    run("fault-expired-token", "--fault", "expired-token-accepted", "--pass-inconclusive"),
    run("fault-delete-task", "--fault", "delete-task-never-completes"),
    run("variant-delete-task-204", "--variant", "delete-task-204"),
    run("variant-short-pages", "--variant", "short-pages"),
    run("variant-lean-records", "--variant", "lean-records"),
    {
      name: "events-valid",
      args: ["events", "check", fixture("events", "valid", "stream.ndjson"), "--report-dir", "reports"],
      verify: true,
    },
    {
      name: "events-valid-config",
      args: [
        "events",
        "check",
        fixture("events", "valid", "deltas.ndjson"),
        "--config",
        fixture("events", "valid", "deltas.config.json"),
        "--report-dir",
        "reports",
        "--sign-key",
        "sign.pem",
      ],
      verify: true,
    },
    {
      name: "events-invalid",
      args: ["events", "check", fixture("events", "invalid.ndjson"), "--report-dir", "reports"],
      verify: true,
    },
    {
      name: "events-invalid-json",
      args: ["events", "check", fixture("events", "invalid.ndjson"), "--format", "json"],
    },
    {
      name: "events-undecided",
      args: ["events", "check", "cut.ndjson", "--config", "streaming.json", "--report-dir", "reports"],
      verify: true,
    },
    {
      name: "events-undecided-pass",
      args: ["events", "check", "cut.ndjson", "--config", "streaming.json", "--pass-inconclusive"],
    },
    { name: "events-empty", args: ["events", "check", "empty.ndjson"] },
    { name: "events-empty-allowed", args: ["events", "check", "empty.ndjson", "--allow-empty"] },
    { name: "client-pass", args: ["client", "check", "--quiet", "--", node, client], verify: true },
    {
      name: "client-pass-json",
      args: ["client", "check", "--quiet", "--format", "json", "--", node, client],
    },
    {
      name: "client-fault",
      args: ["client", "check", "--quiet", "--", node, client],
      env: { FAULT: "wrong-scroll" },
      verify: true,
    },
    {
      name: "client-not-exercised",
      args: [
        "client",
        "check",
        "--quiet",
        "--fail-on",
        "not-exercised",
        "--",
        node,
        "-e",
        "fetch(process.env.LCKIT_BASE_URL + '/health').catch(() => {})",
      ],
    },
    { name: "client-not-found", args: ["client", "check", "--quiet", "--", "no-such-command-lckit"] },
    {
      name: "client-sweep",
      args: [
        "client",
        "check",
        "--quiet",
        "--variants",
        "default,short-pages,delete-task-204",
        "--",
        node,
        client,
      ],
    },
    {
      name: "client-sweep-json",
      args: [
        "client",
        "check",
        "--quiet",
        "--format",
        "json",
        "--variants",
        "default,short-pages",
        "--",
        node,
        client,
      ],
    },
    {
      name: "client-interrupted",
      args: ["client", "check", "--quiet", "--", ...interrupting],
    },
    consumer("consumer-pass", [], [node, viewConsumer]),
    consumer("consumer-pass-json", ["--format", "json"], [node, viewConsumer]),
    consumer("consumer-stdin", ["--delivery", "stdin"], [node, viewConsumer]),
    consumer("consumer-fault", [], [node, viewConsumer], { FAULT: "last-arrival" }),
    consumer("consumer-fault-should", ["--fail-on", "should"], [node, viewConsumer], {
      FAULT: "rejects-unknown-fields",
    }),
    consumer("consumer-command-fails", [], ["sh", "-c", `"${node}" "${viewConsumer}"; exit 1`]),
    consumer("consumer-no-view", [], [node, "-e", ""]),
    consumer("consumer-not-found", [], ["no-such-command-lckit"]),
    consumer("consumer-interrupted", [], interrupting),
    consumer("consumer-sweep", ["--variants", "snapshot,deltas,deltas-message"], [node, viewConsumer]),
    consumer(
      "consumer-sweep-json",
      ["--format", "json", "--variants", "snapshot,deltas"],
      [node, viewConsumer],
    ),
    consumer("consumer-sweep-fault", ["--variants", "snapshot,deltas"], [node, viewConsumer], {
      FAULT: "last-arrival",
    }),
  ];

  const only = process.argv.slice(3);
  for (const c of only.length > 0 ? cases.filter((c) => only.includes(c.name)) : cases) {
    const started = performance.now();
    const cwd = join(work, c.name);
    mkdirSync(cwd, { recursive: true });
    for (const file of ["sign.pem", "sign.pub.pem", "empty.ndjson", "streaming.json", "cut.ndjson"])
      writeFileSync(join(cwd, file), readFileSync(join(work, file)));
    const result = lckit(c.args, cwd, c.env);
    const dest = join(out as string, c.name);
    mkdirSync(dest, { recursive: true });
    writeFileSync(join(dest, "exit"), `${result.status}\n`);
    writeFileSync(join(dest, "stdout"), normaliseOutput(result.stdout, cwd));
    writeFileSync(join(dest, "stderr"), normalise(result.stderr, cwd));
    const reports = join(cwd, "reports");
    if (existsSync(reports)) {
      for (const file of walk(reports)) {
        const name = normalisePath(relative(reports, file));
        const target = join(dest, "reports", name);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, normaliseFile(file, cwd));
      }
      if (c.verify) {
        for (const folder of reportFolders(reports)) {
          const verified = lckit(["report", "verify", folder, "--public-key", "sign.pub.pem"], cwd);
          writeFileSync(
            join(dest, "verify"),
            `exit ${verified.status}\n${normalise(verified.stdout, cwd)}${normalise(verified.stderr, cwd)}`,
          );
        }
      }
    }
    console.log(`${c.name}: exit ${result.status} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  rmSync(work, { recursive: true, force: true });
}

function lckit(args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(node, [join(root, "bin", "lckit.mjs"), ...args], {
    cwd,
    env: { ...process.env, ...env, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 300_000,
  });
  return { status: result.status ?? result.signal, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
}

/** The run folders under the report root: those holding a manifest.json. */
function reportFolders(reports: string): string[] {
  return walk(reports)
    .filter((file) => file.endsWith("manifest.json"))
    .map((file) => dirname(file));
}

const RUN_ID = /\d{8}T\d{6}Z-[0-9a-f]{6}/g;

function normalisePath(path: string): string {
  return path.replace(RUN_ID, "RUN-ID");
}

/** Machine output (--format json) is normalised as JSON, anything else as text. */
function normaliseOutput(text: string, cwd: string): string {
  try {
    return `${JSON.stringify(normaliseJson(JSON.parse(text), cwd), null, 2)}\n`;
  } catch {
    return normalise(text, cwd);
  }
}

function normaliseFile(file: string, cwd: string): string {
  const text = readFileSync(file, "utf8");
  if (/\.(json|har)$/.test(file)) return `${JSON.stringify(normaliseJson(JSON.parse(text), cwd), null, 2)}\n`;
  if (file.endsWith(".ndjson"))
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        try {
          return JSON.stringify(normaliseJson(JSON.parse(line), cwd));
        } catch {
          // A malformed line of the input is evidence as it came.
          return normalise(line, cwd);
        }
      })
      .join("\n");
  if (file.endsWith(".sig")) return "<signature>\n";
  // The timeline and the table of the slowest checks are timing through and through.
  if (file.endsWith(".html"))
    return normalise(text, cwd)
      .split("\n")
      .map((line) => (/class="(timeline|slowest)"/.test(line) ? "<timing>" : line))
      .join("\n");
  return normalise(text, cwd);
}

/** Fields whose values are timing or identity of one run, not behaviour. */
const TIMING_KEYS = new Set([
  "durationMs",
  "startedAt",
  "finishedAt",
  "startedDateTime",
  "time",
  "timings",
  "start",
  "stop",
  "duration",
  "elapsedMs",
  "waitedMs",
  "sha256",
  "signature",
  "sig",
  "keyid",
  "payload",
  "publicKey",
  // A file's size moves with the digits of its durations.
  "bytes",
  "startedMs",
]);

function normaliseJson(value: unknown, cwd: string): unknown {
  if (typeof value === "string") return normalise(value, cwd);
  if (Array.isArray(value)) return value.map((v) => normaliseJson(v, cwd));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [
          normalise(k, cwd),
          TIMING_KEYS.has(k) && (typeof (value as Record<string, unknown>)[k] !== "object" || k === "timings")
            ? "<varies>"
            : normaliseJson((value as Record<string, unknown>)[k], cwd),
        ]),
    );
  return value;
}

function normalise(text: string, cwd: string): string {
  return inFinishOrder(replaceVarying(text, cwd));
}

/** A sweep's progress lines ("[2/3] ok short-pages ...") come in the order the choices finish: sorted. */
function inFinishOrder(text: string): string {
  const lines = text.split("\n");
  const progress = /^\[(\d+|n)\/\d+\] /;
  const sorted = lines
    .filter((line) => progress.test(line))
    .map((line) => line.replace(/^\[\d+\//, "[n/"))
    .sort();
  return lines.map((line) => (progress.test(line) ? (sorted.shift() as string) : line)).join("\n");
}

function replaceVarying(text: string, cwd: string): string {
  return text
    .split(cwd)
    .join("<cwd>")
    .split(root)
    .join("<kit>")
    .replace(RUN_ID, "RUN-ID")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/(127\.0\.0\.1|localhost|\[::1\]):\d+/g, "$1:<port>")
    .replace(/\b[0-9a-f]{64}\b/g, "<sha256>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>")
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<duration>")
    .replace(/\b(\d+ (h|min) )+<duration>/g, "<duration>")
    .replace(/\b[0-9a-f]{4,}(-[0-9a-f]*)*…/g, "<id>…")
    .replace(/keyid [0-9a-f]+/g, "keyid <key>")
    .replace(/time="[\d.]+"/g, 'time="<n>"')
    .replace(/\/tmp\/[^\s"'<>]+/g, "<tmp>");
}

main();
