// npm run score:independent: runs `lckit run` against the independent provider implementations in
// test/independent/providers/ (written from the interface document alone by someone who had not read the
// checks) and prints, per implementation, the MUST checks that failed. A faulty implementation is caught
// when at least one MUST check fails; a correct one (no FAULT, or a legal CHOICES value) must get none.
// Usage: tsx scripts/score-independent.ts [--set tuning|held-out|all] [--case NAME ...] [--parallel N]
//        [--seed N] [--depth default|deep] [--json FILE]
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const root = new URL("..", import.meta.url).pathname;
const home = join(root, "test", "independent", "providers");

interface FaultEntry {
  name: string;
  implementation: "node" | "python";
  rule: string;
  sequence?: boolean;
}
interface ChoiceEntry {
  name: string;
  implementation: "node" | "python";
}
interface Case {
  name: string;
  implementation: "node" | "python";
  env: Record<string, string>;
  faulty: boolean;
  rule?: string;
}
interface Outcome {
  name: string;
  faulty: boolean;
  verdict: string;
  exitCode: number | null;
  mustFailed: string[];
  inconclusive: string[];
  wallMs: number;
  requests: number;
  error?: string;
}

const { values } = parseArgs({
  options: {
    set: { type: "string", default: "all" },
    case: { type: "string", multiple: true },
    parallel: { type: "string", default: "2" },
    seed: { type: "string", default: "1" },
    depth: { type: "string", default: "default" },
    json: { type: "string" },
  },
});

const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(home, file), "utf8")) as T;
const faults = readJson<FaultEntry[]>("faults.json");
const choices = readJson<ChoiceEntry[]>("choices.json");
const split = readJson<{ tuning: string[]; heldOut: string[] }>("split.json");

function allCases(): Case[] {
  const correct: Case[] = (["node", "python"] as const).map((implementation) => ({
    name: `correct-${implementation}`,
    implementation,
    env: {},
    faulty: false,
  }));
  const chosen: Case[] = choices.map((choice) => ({
    name: `choice-${choice.name}`,
    implementation: choice.implementation,
    env: { CHOICES: choice.name },
    faulty: false,
  }));
  const faulty: Case[] = faults.map((fault) => ({
    name: fault.name,
    implementation: fault.implementation,
    env: { FAULT: fault.name },
    faulty: true,
    rule: fault.rule,
  }));
  return [...correct, ...chosen, ...faulty];
}

function selected(): Case[] {
  const cases = allCases();
  if (values.case !== undefined) {
    const unknown = values.case.filter((name) => !cases.some((c) => c.name === name));
    if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(", ")}`);
    return cases.filter((c) => values.case?.includes(c.name));
  }
  const set = values.set;
  if (set === "all") return cases;
  const names = set === "tuning" ? split.tuning : set === "held-out" ? split.heldOut : undefined;
  if (names === undefined) throw new Error(`--set must be tuning, held-out or all, got ${set}`);
  // The correct implementations are judged in every set: a false MUST failure counts wherever it shows.
  return cases.filter((c) => !c.faulty || names.includes(c.name));
}

function credentials(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(home, "credentials.env"), "utf8").split("\n")) {
    const match = /^\s*(?:export\s+)?([A-Z0-9_]+)=["']?([^"'\n]*)["']?\s*$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) env[match[1]] = match[2];
  }
  return env;
}

function startServer(c: Case): Promise<{ port: number; stop: () => void }> {
  const argv =
    c.implementation === "node"
      ? [process.execPath, join(home, "node", "server.mjs"), "--port", "0"]
      : ["/usr/bin/python3", join(home, "python", "server.py"), "--port", "0"];
  const [command = "", ...args] = argv;
  const child = spawn(command, args, {
    env: { ...process.env, ...c.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${c.name}: no "listening <port>" line within 20 s; stderr: ${err.slice(-400)}`));
    }, 20_000);
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\d+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({ port: Number(match[1]), stop: () => child.kill("SIGTERM") });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${c.name}: server exited with ${code}; stderr: ${err.slice(-400)}`));
    });
  });
}

async function score(c: Case): Promise<Outcome> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "lckit-independent-"));
  let server: { port: number; stop: () => void } | undefined;
  try {
    server = await startServer(c);
    const targetFile = join(dir, "target.yaml");
    const target = readFileSync(join(home, "target.yaml"), "utf8").replaceAll("PORT", String(server.port));
    writeFileSync(targetFile, target);
    const reports = join(dir, "reports");
    const exitCode = await new Promise<number | null>((resolve) => {
      const run = spawn(
        process.execPath,
        [
          join(root, "bin", "lckit.mjs"),
          "run",
          "--target",
          targetFile,
          "--report-dir",
          reports,
          "--seed",
          String(values.seed),
          "--depth",
          String(values.depth),
        ],
        { env: { ...process.env, ...credentials() }, stdio: ["ignore", "ignore", "pipe"] },
      );
      run.on("exit", (code) => resolve(code));
    });
    const [runId] = readdirSync(reports);
    if (runId === undefined) throw new Error(`no report (lckit exit ${exitCode})`);
    const report = JSON.parse(readFileSync(join(reports, runId, "report.json"), "utf8")) as {
      verdict: string;
      requestsSent: number;
      checks: { id: string; level: string; status: string }[];
    };
    const must = report.checks.filter((check) => check.level === "MUST");
    return {
      name: c.name,
      faulty: c.faulty,
      verdict: report.verdict,
      exitCode,
      mustFailed: must.filter((check) => check.status === "failed").map((check) => check.id),
      inconclusive: must.filter((check) => check.status === "inconclusive").map((check) => check.id),
      wallMs: Date.now() - started,
      requests: report.requestsSent,
    };
  } catch (error) {
    return {
      name: c.name,
      faulty: c.faulty,
      verdict: "ERROR",
      exitCode: null,
      mustFailed: [],
      inconclusive: [],
      wallMs: Date.now() - started,
      requests: 0,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases = selected();
const outcomes: Outcome[] = [];
const queue = [...cases];
const workers = Array.from({ length: Number(values.parallel) }, async () => {
  for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
    const outcome = await score(c);
    outcomes.push(outcome);
    const mark = outcome.error
      ? "ERROR "
      : outcome.faulty
        ? outcome.mustFailed.length > 0
          ? "caught"
          : "ESCAPED"
        : outcome.mustFailed.length > 0
          ? "FALSE "
          : "ok    ";
    const detail = outcome.error ?? (outcome.mustFailed.join(", ") || "no MUST failure");
    console.log(
      `${mark} ${outcome.name.padEnd(40)} ${outcome.verdict.padEnd(15)} ${(outcome.wallMs / 1000).toFixed(0)} s  ${detail}`,
    );
  }
});
await Promise.all(workers);

const faulty = outcomes.filter((o) => o.faulty);
const caught = faulty.filter((o) => o.mustFailed.length > 0);
const correct = outcomes.filter((o) => !o.faulty);
const falseMust = correct.filter((o) => o.mustFailed.length > 0);
console.log(
  `\n${values.set}: ${caught.length} of ${faulty.length} faulty caught at MUST; ` +
    `${falseMust.length} of ${correct.length} correct with a false MUST failure (seed ${values.seed}, depth ${values.depth})`,
);
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(outcomes, null, 2)}\n`);
