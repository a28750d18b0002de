// lckit run: certify a target (default: the embedded reference) and write a report. This file parses the
// flags (run-flags.ts) into a RunRequest, prints (run-output.ts) what the run session (src/session) reports
// and exits by the one exit policy; the session loads, plans, runs and writes.
import { ATTESTATION_FILE } from "../../report-folder/attestation.ts";
import { exitCodeOf, type FailOn, failOnOf } from "../../result/verdict.ts";
import { checksModuleOf } from "../../session/checks-module.ts";
import { certifyRefusals, displayPath, type RunRequest, RunSession } from "../../session/run-session.ts";
import { type StopSignal, whileStoppable } from "../../session/signals.ts";
import { parseArgv, type Values } from "../argv.ts";
import { defineCommand } from "../command.ts";
import type { CliIo } from "../io.ts";
import { UsageError } from "../io.ts";
import { runSpec } from "./run-flags.ts";
import { planAsText, printStart, progressPrinter, summaryText } from "./run-output.ts";

export { DEFAULT_RUNS } from "./run-flags.ts";
export { summaryText } from "./run-output.ts";

/** The parsed flags: a RunRequest without cwd and environment, plus what only the CLI reads. */
interface RunArgs extends Omit<RunRequest, "cwd" | "env"> {
  list: boolean;
  format: "text" | "json";
  failOn: FailOn[];
}

export const command = defineCommand(runSpec, ({ values }, io) => runCommand(runArgs(values), io));

export function parseRunArgs(argv: string[]): RunArgs | "help" {
  const parsed = parseArgv(runSpec, argv);
  return parsed.help ? "help" : runArgs(parsed.values);
}

/** The rules between flags, on the parsed values. */
function runArgs(v: Values<typeof runSpec.flags>): RunArgs {
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
    ...(v["keep-sandbox"] ? { keepSandbox: true } : {}),
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
    ...(v["order-seed"] === undefined ? {} : { orderSeed: v["order-seed"] }),
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
  const session = await RunSession.open({
    ...args,
    listOnly: args.list,
    cwd: io.cwd,
    env: io.env,
    ...checksModule(io),
  });
  if (args.list) {
    const plan = session.planData();
    io.out(args.format === "json" ? `${JSON.stringify(plan, null, 2)}\n` : planAsText(plan));
    return 0;
  }
  const reset = await session.resetServedSandbox();
  if (reset?.status === "reset")
    io.err(
      `lckit run: the target is a sandbox lckit serve serves: reset first (POST ${reset.control}/reset), so the run starts from its loaded data; --keep-sandbox leaves it as it is\n`,
    );
  else if (reset?.status === "not-reset")
    io.err(
      `lckit run: the target is a sandbox lckit serve serves, and it could not be reset: ${reset.why}; an earlier run may have changed it (a delete task empties the tenant): reset it with\n  ${reset.command}\n`,
    );
  const progress = progressPrinter(io);
  // SIGINT/SIGTERM stop the run gracefully (the report of what finished is written); a second one quits at
  // once with the shell's code for it.
  const onSignal = (signal: StopSignal, again: boolean) => {
    if (again) {
      io.err(`\nlckit run: ${signal} again: quitting without a report\n`);
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    io.err(
      `\nlckit run: ${signal}: stopping; putting back configuration changes and writing the report of ` +
        "what finished (send it again to quit at once)\n",
    );
  };
  let outcome: Awaited<ReturnType<RunSession["run"]>>;
  try {
    outcome = await whileStoppable(
      (signal) =>
        session.run({
          signal,
          onEvent: (event) => (event.type === "starting" ? printStart(io, event) : progress.onEvent(event)),
        }),
      onSignal,
    );
  } finally {
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
  const code = exitCodeOf(result, args.failOn);
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
  const custom = checksModuleOf(io.env);
  return custom === undefined ? {} : { checksModule: custom };
}
