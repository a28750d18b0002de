// npm run score:independent: judges the independent implementations in test/independent/ (written from
// the interface document alone by someone who had not read the rules) with the kit, and prints per case the
// MUST rules that failed. A faulty one is caught when a MUST rule fails; a correct one must get none.
// - providers: `lckit run` against each server (FAULT=<name>, CHOICES=<name>, or neither);
// - clients: `lckit client check --variants all` on each client (every legal provider choice);
// - consumers: `lckit events consumer check --variants all` on each consumer (every producer choice).
// Each kind's split.json names the tuning half and the held-out half (never tuned on).
// Usage: npm run score:independent -- --help (USAGE below).
// Batches: 1 (providers/, clients/, consumers/), 2 (providers2/<language>/ each with its own faults, choices,
// target and credentials; clients2/, consumers2/), 3 (providers3/<language>/ as batch 2, clients3/, consumers3/),
// 4 (clients4/, consumers4/), 5 (clients5/, consumers5/), 6 (clients6/, consumers6/).
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const root = new URL("..", import.meta.url).pathname;
const lckit = join(root, "bin", "lckit.mjs");

const USAGE = `Usage: npm run score:independent -- [options]
  --kind providers|clients|consumers   what to score (default providers)
  --batch N                            which batch of test/independent/ (default 1)
  --set tuning|held-out|all            which half of the batch's split.json (default all)
  --case NAME ...                      only these cases (file or fault/choice name)
  --parallel N                         cases at a time (default 2)
  --seed N, --depth default|deep       passed to lckit run (providers)
  --variants LIST, --client ID         passed to the client and consumer checks
  --json FILE                          write every case's outcome as JSON
  --keep DIR                           keep each case's report folder under DIR/<case>`;

/** The options, or exit 2 with the usage: an unknown option is a typo to name, not a stack trace. */
function parse() {
  try {
    return parseArgs({
      options: {
        help: { type: "boolean", short: "h" },
        kind: { type: "string", default: "providers" },
        set: { type: "string", default: "all" },
        case: { type: "string", multiple: true },
        parallel: { type: "string", default: "2" },
        seed: { type: "string", default: "1" },
        depth: { type: "string", default: "default" },
        variants: { type: "string", default: "all" },
        // The sandbox's client with ROLE_RDM_EDIT: clients that delete lookups need it (the default client reads only).
        client: { type: "string", default: "nightly-sync" },
        json: { type: "string" },
        // Keep each case's report folder under DIR/<case> (default: removed once scored).
        keep: { type: "string" },
        // Which batch of independent programs (see the usage above).
        batch: { type: "string", default: "1" },
      },
    });
  } catch (error) {
    console.error(`score:independent: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}
const { values } = parse();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const KINDS = ["providers", "clients", "consumers"] as const;
type Kind = (typeof KINDS)[number];
const kind = values.kind as Kind;
if (!KINDS.includes(kind)) throw new Error(`--kind must be one of ${KINDS.join(", ")}, got ${values.kind}`);
const home = join(root, "test", "independent", values.batch === "1" ? kind : `${kind}${values.batch}`);
if (!/^[1-9]\d*$/.test(String(values.batch)) || !existsSync(home))
  throw new Error(`--batch ${values.batch} has no ${kind}: the batches are folders of test/independent/`);
// Batch 1's providers share one target file; later batches keep one per implementation's folder.
const perLanguage = kind === "providers" && values.batch !== "1";

type Language = "node" | "python";
interface Case {
  name: string;
  language: Language;
  faulty: boolean;
  /** providers: the server's environment; clients and consumers: the program's file. */
  env?: Record<string, string>;
  file?: string;
  /** providers: the folder of its implementation's target.yaml and credentials.env. */
  dir: string;
  what: string;
}
interface Outcome {
  name: string;
  faulty: boolean;
  /** MUST rules that failed, with the choices they failed under (providers: one run, no choice). */
  mustFailed: Record<string, string[]>;
  /** SHOULD and MAY rules that failed, likewise: what a faulty program that escapes at MUST is flagged by
   *  (whether that rule names its bug is the reader's call). */
  shouldFailed: Record<string, string[]>;
  inconclusive: string[];
  wallMs: number;
  error?: string;
}

const readJson = <T>(file: string, dir = home): T => JSON.parse(readFileSync(join(dir, file), "utf8")) as T;
const interpreter = (language: Language) => (language === "node" ? process.execPath : "/usr/bin/python3");

function allCases(): Case[] {
  if (kind === "providers") {
    const dirOf = (language: Language) => (perLanguage ? join(home, language) : home);
    // A later batch may hold only some languages: those with a folder.
    const languages = (["node", "python"] as const).filter((l) => !perLanguage || existsSync(dirOf(l)));
    const listed = <T>(file: string): T[] =>
      perLanguage ? languages.flatMap((l) => readJson<T[]>(file, dirOf(l))) : readJson<T[]>(file);
    const faults = listed<{ name: string; implementation: Language; rule: string }>("faults.json");
    const choices = listed<{ name: string; implementation: Language; description: string }>("choices.json");
    return [
      ...languages.map((language) => ({
        name: `correct-${language}`,
        language,
        faulty: false,
        env: {},
        dir: dirOf(language),
        what: "correct",
      })),
      ...choices.map((c) => ({
        // Two implementations may name the same choice: later batches say whose it is.
        name: perLanguage ? `choice-${c.implementation}-${c.name}` : `choice-${c.name}`,
        language: c.implementation,
        faulty: false,
        env: { CHOICES: c.name },
        dir: dirOf(c.implementation),
        what: c.description,
      })),
      ...faults.map((f) => ({
        name: f.name,
        language: f.implementation,
        faulty: true,
        env: { FAULT: f.name },
        dir: dirOf(f.implementation),
        what: f.rule,
      })),
    ];
  }
  const manifest =
    readJson<{ file: string; language: Language; correct: boolean; bug?: string; choice?: string }[]>(
      "manifest.json",
    );
  return manifest.map((entry) => ({
    name: entry.file,
    language: entry.language,
    faulty: !entry.correct,
    file: join(home, entry.file),
    dir: home,
    what: entry.bug ?? entry.choice ?? "",
  }));
}

function selected(): Case[] {
  const cases = allCases();
  if (values.case !== undefined) {
    const unknown = values.case.filter((name) => !cases.some((c) => c.name === name));
    if (unknown.length > 0) throw new Error(`unknown case ${unknown.join(", ")}`);
    return cases.filter((c) => values.case?.includes(c.name));
  }
  if (values.set === "all") return cases;
  const split = readJson<{ tuning: string[]; heldOut: string[] }>("split.json");
  const names =
    values.set === "tuning" ? split.tuning : values.set === "held-out" ? split.heldOut : undefined;
  if (names === undefined) throw new Error(`--set must be tuning, held-out or all, got ${values.set}`);
  return cases.filter((c) => names.includes(c.name));
}

function credentials(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(dir, "credentials.env"), "utf8").split("\n")) {
    const match = /^\s*(?:export\s+)?([A-Z0-9_]+)=["']?([^"'\n]*)["']?\s*$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) env[match[1]] = match[2];
  }
  return env;
}

function startServer(c: Case): Promise<{ port: number; stop: () => void }> {
  const file = c.language === "node" ? join(home, "node", "server.mjs") : join(home, "python", "server.py");
  const child = spawn(interpreter(c.language), [file, "--port", "0"], {
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

function runLckit(args: string[], env: Record<string, string> = {}): Promise<number | null> {
  return new Promise((resolve) => {
    const run = spawn(process.execPath, [lckit, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "ignore"],
    });
    run.on("exit", (code) => resolve(code));
  });
}

interface ReportJson {
  checks: { id: string; level: string; status: string }[];
}

/** The report folders a command wrote below `reports`: one run, or a sweep's folder per choice. */
function reportsBelow(reports: string): { choice: string; report: ReportJson }[] {
  const [top] = existsSync(reports) ? readdirSync(reports) : [];
  if (top === undefined) throw new Error("no report folder was written");
  const folder = join(reports, top);
  const read = (dir: string) => JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as ReportJson;
  if (existsSync(join(folder, "report.json"))) return [{ choice: "", report: read(folder) }];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(folder, entry.name, "report.json")))
    .map((entry) => ({ choice: entry.name, report: read(join(folder, entry.name)) }));
}

async function judge(c: Case, reports: string): Promise<void> {
  if (kind === "providers") {
    const server = await startServer(c);
    try {
      const targetFile = join(reports, "..", "target.yaml");
      writeFileSync(
        targetFile,
        readFileSync(join(c.dir, "target.yaml"), "utf8").replaceAll("PORT", String(server.port)),
      );
      await runLckit(
        ["run", "--target", targetFile, "--report-dir", reports, "--seed", String(values.seed)].concat([
          "--depth",
          String(values.depth),
        ]),
        credentials(c.dir),
      );
    } finally {
      server.stop();
    }
    return;
  }
  const command = kind === "clients" ? ["client", "check"] : ["events", "consumer", "check"];
  await runLckit([
    ...command,
    ...(kind === "clients" ? ["--client", String(values.client)] : []),
    "--report-dir",
    reports,
    "--variants",
    String(values.variants),
    "--quiet",
    "--",
    interpreter(c.language),
    c.file ?? "",
  ]);
}

async function score(c: Case): Promise<Outcome> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "lckit-independent-"));
  const outcome: Outcome = {
    name: c.name,
    faulty: c.faulty,
    mustFailed: {},
    shouldFailed: {},
    inconclusive: [],
    wallMs: 0,
  };
  try {
    const reports = join(dir, "reports");
    await judge(c, reports);
    for (const { choice, report } of reportsBelow(reports)) {
      for (const check of report.checks) {
        const failed = check.level === "MUST" ? outcome.mustFailed : outcome.shouldFailed;
        if (check.status === "failed") failed[check.id] = [...(failed[check.id] ?? []), choice];
        if (check.status === "inconclusive" && check.level === "MUST")
          outcome.inconclusive.push(`${check.id}${choice ? `@${choice}` : ""}`);
      }
    }
  } catch (error) {
    outcome.error = error instanceof Error ? error.message : String(error);
  } finally {
    if (values.keep !== undefined) {
      mkdirSync(values.keep, { recursive: true });
      cpSync(dir, join(values.keep, c.name), { recursive: true });
    }
    rmSync(dir, { recursive: true, force: true });
  }
  outcome.wallMs = Date.now() - started;
  return outcome;
}

function describeFailures(outcome: Outcome): string {
  const list = (failed: Record<string, string[]>) =>
    Object.entries(failed)
      .map(([rule, choices]) => {
        const named = choices.filter(Boolean);
        return named.length === 0
          ? rule
          : `${rule} [${named.length > 3 ? `${named.length} choices` : named.join(" ")}]`;
      })
      .join(", ");
  const must = list(outcome.mustFailed);
  if (must !== "") return must;
  // A faulty program that escapes at MUST: what flagged it at SHOULD, if anything.
  const should = outcome.faulty ? list(outcome.shouldFailed) : "";
  return should === "" ? "no MUST failure" : `no MUST failure; flagged at SHOULD: ${should}`;
}

const cases = selected();
const outcomes: Outcome[] = [];
const queue = [...cases];
const workers = Array.from({ length: Number(values.parallel) }, async () => {
  for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
    const outcome = await score(c);
    outcomes.push(outcome);
    const failed = Object.keys(outcome.mustFailed).length > 0;
    const mark = outcome.error
      ? "ERROR  "
      : outcome.faulty
        ? failed
          ? "caught "
          : "ESCAPED"
        : failed
          ? "FALSE  "
          : "ok     ";
    console.log(
      `${mark} ${outcome.name.padEnd(36)} ${(outcome.wallMs / 1000).toFixed(0).padStart(4)} s  ${outcome.error ?? describeFailures(outcome)}`,
    );
    if (outcome.faulty || failed) console.log(`        ${c.what.slice(0, 160)}`);
  }
});
await Promise.all(workers);

const faulty = outcomes.filter((o) => o.faulty);
const caught = faulty.filter((o) => Object.keys(o.mustFailed).length > 0);
const correct = outcomes.filter((o) => !o.faulty);
const falseMust = correct.filter((o) => Object.keys(o.mustFailed).length > 0);
const flagged = faulty.filter(
  (o) => Object.keys(o.mustFailed).length === 0 && Object.keys(o.shouldFailed).length > 0,
);
console.log(
  `\n${kind} (${values.set}): ${caught.length} of ${faulty.length} faulty caught at MUST` +
    `${flagged.length > 0 ? ` (${flagged.length} more flagged at SHOULD)` : ""}; ` +
    `${falseMust.length} of ${correct.length} correct with a false MUST failure (seed ${values.seed})`,
);
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(outcomes, null, 2)}\n`);
