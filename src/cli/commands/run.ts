// lckit run: certify a target (default: the embedded reference) and write a report. The CLI parses the
// flags into a RunRequest and prints what the run session (src/session) reports; the session loads, plans,
// runs and writes.
import { isAbsolute, relative } from "node:path";
import { DEPTHS, LEVELS, SAFETY_CLASSES } from "../../check/index.ts";
import { ATTESTATION_FILE } from "../../report/attestation.ts";
import { curlForCheck } from "../../report/curl.ts";
import { terminalSafe } from "../../report/escape.ts";
import { explorationFigures } from "../../report/exploration.ts";
import { notCheckableLines } from "../../report/not-checkable.ts";
import { RETRIES_MEAN, retrySummary } from "../../report/retries.ts";
import type { CheckStatus, RunResult } from "../../result/model.ts";
import { exitCodeOf, type FailOn, failOnOf, INTERRUPTED_EXIT_CODE } from "../../result/verdict.ts";
import { JOURNAL_FILE } from "../../runner/config-journal.ts";
import { DEFAULT_DEADLINE_MS, DEFAULT_UNRESPONSIVE_AFTER, type ProgressEvent } from "../../runner/run.ts";
import {
  certifyRefusals,
  type RunRequest,
  RunSession,
  type SessionEvent,
} from "../../session/run-session.ts";
import { MAX_TIMER_MS } from "../../timer-limit.ts";
import { option, parseArgv, repeatable, toggle, type Values } from "../argv.ts";
import { defineCommand } from "../command.ts";
import { duration, integer, oneOf, text, wordList } from "../flags.ts";
import { type CliIo, UsageError } from "../io.ts";
import { failOnFlag, passInconclusiveFlag } from "../judging-flags.ts";

export const DEFAULT_RUNS = 25;

const spec = {
  name: "run",
  summary: "certify a target (default: the embedded reference) and write a conformance report",
  about: `Certifies a target against the interface document and writes a report (report.json, junit.xml,
summary.md, report.html) to <report dir>/<run id>/. Without --target it certifies the embedded
reference implementation.`,
  flags: {
    target: option("FILE", text, "target file (YAML or JSON; see docs/target-file.md)", {
      example: "target.yaml",
    }),
    suite: repeatable("S", text, "run only this suite", { example: "lookup-scan" }),
    check: repeatable("ID", text, "run only this check id or glob, e.g. token-quota/*", {
      example: "token-quota/*",
    }),
    level: option("L", oneOf(LEVELS, { ignoreCase: true }), "lowest level to run: MUST, SHOULD or MAY", {
      default: "MAY" as const,
      defaultText: "MAY: all",
    }),
    allow: repeatable(
      "CLASSES",
      wordList(SAFETY_CLASSES),
      'safety classes allowed beyond read, comma-separated: write,destructive,quota (adds to "allow" of the ' +
        'target file). Only the embedded reference and a target file with "disposable: true" need none; ' +
        "loopback is no permission (a port-forward to production is on 127.0.0.1 too)",
      { example: "write,quota" },
    ),
    "confirm-tenant": option(
      "T",
      text,
      "name the target's tenant to let destructive checks delete data in it",
      {
        example: "acme",
      },
    ),
    seed: option(
      "N",
      integer({ min: -(2 ** 31), max: 2 ** 31 - 1, example: "42" }),
      "seed of the property checks",
      {
        defaultText: "random, printed at start",
      },
    ),
    runs: option("N", integer({ min: 1, max: 1_000_000, example: "25" }), "runs per property", {
      default: DEFAULT_RUNS,
    }),
    depth: option(
      "D",
      oneOf(DEPTHS),
      "how far the checks explore each rule: default (polite to a live target) or deep (every sort field read " +
        "whole, more limits and page depths, every endpoint x token state); reports say what was explored",
      { defaultText: "default; deep with --certify" },
    ),
    path: option("P", replayPath, "replay one property counterexample (with --check and --seed)", {
      example: "3:1:0",
    }),
    fault: repeatable("NAME", text, "embedded reference only: switch on a seeded fault", {
      example: "scan-never-ends",
    }),
    variant: repeatable(
      "NAME",
      text,
      "embedded reference only: switch on a variant, a correct choice other than the kit's where the " +
        "document is silent (list: lckit serve --help-variants)",
      { example: "delete-task-204" },
    ),
    list: toggle("print the plan (what would run, what is skipped and why); send nothing"),
    deadline: option(
      "D",
      duration({ example: "30m", maxMs: MAX_TIMER_MS }),
      'time limit of the whole run, e.g. 30m, 90s, 2h ("deadline" in the target file); when it passes the ' +
        "run stops like on Ctrl-C",
      { defaultText: `${DEFAULT_DEADLINE_MS / 60_000}m`, example: "30m" },
    ),
    "unresponsive-after": option(
      "N",
      integer({ min: 0, max: 1000, example: "5" }),
      'stop the run after N requests in a row time out or fail to connect ("target unresponsive"; the rest ' +
        'is reported as not run); 0 never stops ("unresponsiveAfter" in the target file)',
      { defaultText: String(DEFAULT_UNRESPONSIVE_AFTER) },
    ),
    "request-budget": option(
      "N",
      integer({ min: 1, example: "5000" }),
      "requests the whole run may send; when they are spent the run stops like at the deadline, the " +
        'checks not run are named, the verdict is INTERRUPTED ("requestBudget" in the target file)',
      { defaultText: "no limit" },
    ),
    "report-dir": option("DIR", text, "where reports go; checked before the run starts", {
      default: "reports",
    }),
    "fail-on": failOnFlag,
    "pass-inconclusive": passInconclusiveFlag("a MUST check that ran and could not decide"),
    "interface-document": option(
      "FILE",
      text,
      "your copy of the interface document: its sha256 goes into the report beside the requirement " +
        "catalogue's and the contract's (\"interfaceDocument\" in the target file)",
      { example: "interface.md" },
    ),
    format: option("F", oneOf(["text", "json"]), "text or json (the run result on stdout)", {
      default: "text" as const,
    }),
    certify: toggle(
      "certified run: refuses --suite/--check/--level/--path; the verdict is CERTIFIED only when every MUST " +
        "check of the kit ran and passed (none waived); a MUST check that did not run is listed with the key " +
        "or flag that makes it run. Records the target's /version answer, profile, kit, catalogue and " +
        "contract sha256",
    ),
    baseline: option(
      "FILE",
      text,
      "known failures (check, reason, who, expires YYYY-MM-DD): failures it waives are shown as waived and " +
        "do not fail the job; new failures and expired waivers do. A waived MUST failure stays NOT " +
        "CONFORMANT (exit 0) and never certifies",
      { example: "baseline.yaml" },
    ),
    "baseline-update": option(
      "FILE",
      text,
      "write a baseline from this run's failures (keeping reasons of FILE's waivers)",
      { example: "baseline.yaml" },
    ),
    har: toggle(
      "write evidence.har: every exchange of the run, HAR 1.2, redacted (tens of MB for a whole run); " +
        "--certify always writes it",
    ),
    "no-har": toggle("write no evidence.har (refused with --certify)"),
    "sign-key": option(
      "FILE",
      text,
      "sign the report folder's manifest.json (and the attestation) with this Ed25519 private key (PEM); " +
        "check with: lckit report verify <report folder> --public-key PUB.pem",
      { example: "lckit-sign.pem" },
    ),
    attest: toggle(
      `write ${ATTESTATION_FILE}: an in-toto test-result attestation of the report files in a DSSE envelope ` +
        "signed with --sign-key (needed), and the same in a Sigstore bundle (attestation.sigstore.json); " +
        "asks the target's /version. --certify always writes it (unsigned without --sign-key)",
    ),
  },
  notes: `Every report folder gets a manifest.json with the sha256 of each file, and ctrf.json beside
junit.xml (see docs/certification.md).

Ctrl-C or SIGTERM (or the deadline) stops the run: the running check ends, every configuration change
the checks made is put back, and the report of what finished is written with the verdict INTERRUPTED.
A second Ctrl-C quits at once. With --target, configuration changes (customers, clients) are journalled
before they are made, in <report dir>/<run id>/${JOURNAL_FILE}; after a kill -9, "lckit restore" puts
them back.

A selection (--suite, --check, --level) is never a conformance claim: when every selected check passes
the verdict is PASSED (subset), "N of M selected checks passed".

Exit codes: 0 conformant (also PASSED (subset), and INCOMPLETE: nothing failed, but some MUST checks did
not run, unless --fail-on incomplete), 1 a MUST check failed (or an outcome named by --fail-on),
2 usage or configuration error, 3 the run broke (a fault of the kit),
${INTERRUPTED_EXIT_CODE} interrupted (SIGINT, SIGTERM or the deadline; the report holds what finished).`,
};

/** A fast-check path: the numbers of the shrink steps, colon-separated. */
function replayPath(raw: string, flag: string): string {
  if (!/^\d+(:\d+)*$/.test(raw))
    throw new UsageError(
      `${flag} expects a fast-check path like 3:1:0, got "${raw}"; copy it from the replay command`,
    );
  return raw;
}

/** The parsed flags: a RunRequest without cwd and environment, plus what only the CLI reads. */
interface RunArgs extends Omit<RunRequest, "cwd" | "env"> {
  list: boolean;
  format: "text" | "json";
  failOn: FailOn[];
}

export const command = defineCommand(spec, ({ values }, io) => runCommand(runArgs(values), io));

export function parseRunArgs(argv: string[]): RunArgs | "help" {
  const parsed = parseArgv(spec, argv);
  return parsed.help ? "help" : runArgs(parsed.values);
}

/** The rules between flags, on the parsed values. */
function runArgs(v: Values<typeof spec.flags>): RunArgs {
  if (v.path !== undefined && v.seed === undefined)
    throw new UsageError(
      "--path replays a counterexample of one seed: give --seed too (copy the replay command)",
    );
  if (v.fault.length > 0 && v.target !== undefined)
    throw new UsageError(
      "--fault switches faults of the embedded reference; it cannot be used with --target",
    );
  if (v.variant.length > 0 && v.target !== undefined)
    throw new UsageError(
      "--variant switches variants of the embedded reference; it cannot be used with --target",
    );
  if (v.attest && v["sign-key"] === undefined)
    throw new UsageError(
      "--attest signs the attestation with --sign-key; add --sign-key FILE (make a key with: openssl genpkey -algorithm ed25519 -out lckit-sign.pem)",
    );
  if (v.certify)
    certifyRefusals(
      { suites: v.suite, checks: v.check, level: v.level, path: v.path, noHar: v["no-har"] },
      "--certify",
      "drop --certify",
    );
  return {
    certify: v.certify,
    attest: v.attest,
    // Opt-in outside certification: a whole run's exchanges are tens of MB, heavy for every CI artefact.
    har: v.certify || v.har,
    ...(v["no-har"] ? { noHar: true } : {}),
    ...(v.baseline === undefined ? {} : { baseline: v.baseline }),
    ...(v["baseline-update"] === undefined ? {} : { baselineUpdate: v["baseline-update"] }),
    ...(v["sign-key"] === undefined ? {} : { signKey: v["sign-key"] }),
    ...(v.target === undefined ? {} : { target: v.target }),
    failOn: failOnOf(v["fail-on"], v["pass-inconclusive"]),
    ...(v["interface-document"] === undefined ? {} : { interfaceDocument: v["interface-document"] }),
    suites: v.suite,
    checks: v.check,
    level: v.level,
    allow: [...v.allow],
    ...(v["confirm-tenant"] === undefined ? {} : { confirmTenant: v["confirm-tenant"] }),
    ...(v.seed === undefined ? {} : { seed: v.seed }),
    runs: v.runs,
    ...(v.depth === undefined ? {} : { depth: v.depth }),
    ...(v.path === undefined ? {} : { path: v.path }),
    faults: v.fault,
    variants: v.variant,
    list: v.list,
    reportDir: v["report-dir"],
    format: v.format,
    ...(v.deadline === undefined ? {} : { deadlineMs: v.deadline }),
    ...(v["unresponsive-after"] === undefined ? {} : { unresponsiveAfter: v["unresponsive-after"] }),
    ...(v["request-budget"] === undefined ? {} : { requestBudget: v["request-budget"] }),
  };
}

async function runCommand(args: RunArgs, io: CliIo): Promise<number> {
  const session = await RunSession.open({ ...args, cwd: io.cwd, env: io.env, ...checksModule(io) });
  if (args.list) {
    const plan = session.planData();
    io.out(args.format === "json" ? `${JSON.stringify(plan, null, 2)}\n` : planAsText(plan));
    return 0;
  }
  const progress = progressPrinter(io);
  const interrupt = new AbortController();
  const stopSignals = onSignals(io, interrupt);
  let outcome: Awaited<ReturnType<RunSession["run"]>>;
  try {
    outcome = await session.run({
      signal: interrupt.signal,
      onEvent: (event) => (event.type === "starting" ? printStart(io, event) : progress.onEvent(event)),
    });
  } finally {
    stopSignals();
    progress.done();
  }
  const { result } = outcome;
  if (outcome.attestationUnsigned)
    io.err(
      `lckit run: ${ATTESTATION_FILE} is not signed; add --sign-key FILE to sign it (and the manifest)\n`,
    );
  if (outcome.baselineWritten !== undefined)
    io.err(
      `baseline: ${outcome.baselineWritten.failures} known failures written to ${displayPath(io.cwd, outcome.baselineWritten.file)}\n`,
    );
  if (result.certification !== undefined && !result.certification.certified)
    io.err(
      `lckit run: no certificate: ${result.certification.reason}\n${result.certification.missing
        .slice(0, 20)
        .map((m) => `  ${m.id}: ${m.fix}\n`)
        .join("")}`,
    );
  if (args.format === "json") io.out(`${JSON.stringify(result, null, 2)}\n`);
  else io.out(summaryText(result, displayPath(io.cwd, outcome.dir)));
  if (args.format === "json") io.err(`report: ${displayPath(io.cwd, outcome.dir)}\n`);
  const code = exitCodeOf(result.verdict, args.failOn, result.checks);
  const undecided = result.checks.filter((c) => c.level === "MUST" && c.status === "inconclusive");
  if (code === 1 && undecided.length > 0 && args.failOn.includes("inconclusive"))
    io.err(
      `lckit run: exit 1: ${undecided.length} MUST check${undecided.length === 1 ? "" : "s"} could not decide ` +
        `(${undecided.map((c) => c.id).join(", ")}); each says what it saw and what lets it decide next ` +
        "time. --pass-inconclusive lets such a run pass the job\n",
    );
  else if (code === 1 && result.verdict !== "NOT CONFORMANT")
    io.err(`lckit run: exit 1 because of --fail-on ${args.failOn.join(",")} (verdict ${result.verdict})\n`);
  return code;
}

/** LCKIT_CHECKS_MODULE names a module exporting allChecks to run instead of the kit's. */
function checksModule(io: CliIo): { checksModule?: string } {
  const custom = io.env.LCKIT_CHECKS_MODULE;
  return custom ? { checksModule: custom } : {};
}

function printStart(io: CliIo, event: Extract<SessionEvent, { type: "starting" }>): void {
  io.err(
    `lckit run: ${event.target.name} (${event.target.baseUrl}), ${event.running} checks to run, ${event.skipped} skipped; ` +
      `seed ${event.seed}${event.seedGiven ? "" : ` (random; replay with --seed ${event.seed})`}, ${event.runs} runs per property\n`,
  );
  if (event.journalFile !== undefined)
    io.err(`configuration changes are journalled in ${displayPath(io.cwd, event.journalFile)}\n`);
  if (event.scheduleNote !== undefined) io.err(`lckit run: ${event.scheduleNote}\n`);
}

/** SIGINT/SIGTERM stop the run gracefully (the report of what finished is written); a second one quits at
 *  once with the shell's code for it. Returns the function that removes the handlers. */
function onSignals(io: CliIo, interrupt: AbortController): () => void {
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = () => {
      if (interrupt.signal.aborted) {
        io.err(`\nlckit run: ${signal} again: quitting without a report\n`);
        process.exit(signal === "SIGINT" ? 130 : 143);
      }
      io.err(
        `\nlckit run: ${signal}: stopping; putting back configuration changes and writing the report of ` +
          "what finished (send it again to quit at once)\n",
      );
      interrupt.abort(signal);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => {
    for (const off of handlers) off();
  };
}

function planAsText(plan: ReturnType<RunSession["planData"]>): string {
  const width = Math.max(10, ...plan.checks.map((c) => c.id.length));
  const lines = plan.checks.map((c) =>
    c.action === "run"
      ? `run   ${c.id.padEnd(width)}  ${c.level.padEnd(6)} ${c.safety}`
      : `skip  ${c.id.padEnd(width)}  ${c.level.padEnd(6)} ${c.reason ?? ""}`,
  );
  const runs = plan.checks.filter((c) => c.action === "run").length;
  return `${lines.join("\n")}\n\n${runs} to run, ${plan.checks.length - runs} skipped${plan.notSelected > 0 ? `, ${plan.notSelected} not selected` : ""} (target ${plan.target.name}; nothing was sent)\n`;
}

const mark: Record<CheckStatus, string> = {
  passed: "passed ",
  failed: "FAILED ",
  inconclusive: "UNDECIDED",
  "not-exercised": "not exercised",
  skipped: "skipped",
  broken: "BROKEN ",
};

/** Live progress on a terminal (one rewritten line, findings kept), plain lines otherwise (CI logs). */
function progressPrinter(io: CliIo) {
  let live = false;
  const tally: Record<CheckStatus, number> = {
    passed: 0,
    failed: 0,
    inconclusive: 0,
    "not-exercised": 0,
    skipped: 0,
    broken: 0,
  };
  const clear = () => {
    if (live) io.err("\r\x1b[2K");
    live = false;
  };
  return {
    onEvent(event: ProgressEvent) {
      if (event.type === "run-stopping") {
        clear();
        io.err(
          `lckit run: stopping: ${oneLine(event.interruption.message)}; ${event.notRun} checks not run\n`,
        );
        return;
      }
      if (event.type === "restore") {
        clear();
        io.err(`${event.ok ? "restored" : "NOT RESTORED"}: ${oneLine(event.message)}\n`);
        return;
      }
      const counter = `[${event.index + 1}/${event.total}]`;
      if (event.type === "check-started") {
        if (io.isTty) {
          clear();
          const counts = `${tally.passed} passed, ${tally.failed} failed, ${tally.broken} broken`;
          io.err(`${counter} ${counts} · ${event.id} ...`.slice(0, 110));
          live = true;
        }
        return;
      }
      const r = event.result;
      tally[r.status] += 1;
      // A SHOULD/MAY failure is a finding, never shown as FAILED.
      const shown = r.status === "failed" && r.level !== "MUST" ? "finding" : mark[r.status];
      const line = `${shown} ${r.id} ${r.durationMs} ms${r.status === "passed" ? "" : `: ${oneLine(r.message ?? r.reason ?? "")}`}\n`;
      if (io.isTty) {
        clear();
        // On a terminal only findings stay on screen; passes scroll by in the live line.
        if (r.status !== "passed" && r.status !== "skipped") io.err(`${counter} ${line}`);
      } else io.err(`${counter} ${line}`);
    },
    done: clear,
  };
}

/** A target-derived message on one terminal line: whitespace flattened, control characters escaped. */
function oneLine(text: string): string {
  const flat = terminalSafe(text.replace(/\s+/g, " "));
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}

export function summaryText(result: RunResult, dir: string): string {
  const s = result.counts.byStatus;
  const mustFailed = result.counts.byLevel.MUST.failed;
  const lines = [
    "",
    `${result.checks.length} checks: ${s.passed} passed, ${mustFailed} failed, ` +
      `${s.failed - mustFailed > 0 ? `${s.failed - mustFailed} SHOULD/MAY findings (warnings, not failures), ` : ""}` +
      `${s.inconclusive > 0 ? `${s.inconclusive} could not decide, ` : ""}${s.skipped} skipped, ${s.broken} broken; ` +
      `${result.requestsSent} requests in ${(result.durationMs / 1000).toFixed(1)} s; seed ${result.seed}`,
  ];
  // A flaky target is said at once, and that it is no failure; the report lists each retry.
  const retries = retrySummary(result);
  if (retries !== undefined) lines.push(`retries: ${terminalSafe(retries)}; ${RETRIES_MEAN}`);
  const failed = result.checks.filter((c) => c.status === "failed");
  for (const c of failed.slice(0, 20)) {
    lines.push(
      `  ${c.level === "MUST" ? "MUST" : `${c.level} finding`} ${c.id}: ${oneLine(c.message ?? "")}`,
    );
    lines.push(
      `    replay: ${c.counterexample?.replay ?? `${result.command} --check ${c.id} --seed ${result.seed}`}`,
    );
    const curl = curlForCheck(c);
    if (curl !== undefined) lines.push(`    curl:   ${terminalSafe(curl)}`);
  }
  if (failed.length > 20) lines.push(`  ... and ${failed.length - 20} more (see the report)`);
  const undecided = result.checks.filter((c) => c.status === "inconclusive");
  for (const c of undecided.slice(0, 20))
    lines.push(`  ${c.level} ${c.id} UNDECIDED: ${oneLine(c.reason ?? "")}`);
  if (undecided.length > 20) lines.push(`  ... and ${undecided.length - 20} more undecided (see the report)`);
  const left = result.configuration?.leftChanged ?? [];
  if (left.length > 0)
    lines.push(
      `configuration left changed: ${left.join("; ")}`,
      `  put it back with: lckit restore ${result.configuration?.journal ?? "<journal>"} --target <target file>`,
    );
  lines.push(...notCheckableLines(result.coverage));
  const explored = explorationFigures(result);
  if (explored !== undefined)
    lines.push(`${explored} See the report's coverage for the values and the gaps.`);
  lines.push(`report: ${dir}`, `verdict: ${result.verdict} (${result.verdictReason})`, "");
  return lines.join("\n");
}

function displayPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}
