// `lckit pact verify` (provider verification of pact files) and `lckit pact check` (pact files against the
// OpenAPI documents and event schemas). Exit codes: 0 all good, 1 a failure, 2 usage or configuration error.

import { type ContractCheckResult, checkPactFiles, formatViolation } from "../../pact/contract-check.ts";
import { findPactFiles } from "../../pact/pact-file.ts";
import { DEFAULT_PACT_DIR } from "../../pact/provider.ts";
import { formatReport } from "../../pact/verification-result.ts";
import { verifyPacts } from "../../pact/verify.ts";
import { readTargetFile } from "../../session/run-session.ts";
import { option, parseArgv } from "../argv.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { text } from "../flags.ts";
import { type CliIo, UsageError } from "../io.ts";

const verifyFlags = {
  target: option(
    "FILE",
    text,
    "verify a live target (a runner target file) instead of the embedded reference",
    {
      example: "target.yaml",
    },
  ),
  "pact-dir": option("DIR", text, "directory of pact files", {
    default: DEFAULT_PACT_DIR,
    example: DEFAULT_PACT_DIR,
  }),
};

const exitCodes = `Exit codes: 0 all verified or consistent, 1 a failure, 2 usage or configuration error, 3 the run broke.
Pact's verifier prints its own report on stdout while it runs; lckit's summary follows on stdout.`;

const verifySpec = {
  name: "pact verify",
  summary: "replay every pact against a provider and report the interactions that fail",
  about: `Verifies every pact file in DIR (default ${DEFAULT_PACT_DIR}) against the embedded reference, served on a
free loopback port, or against the deployment of a runner target file (see docs/target-file.md).
Provider states are set up on the reference; on a live target they are only checked. Requests carry real
tokens from the target's credentials; message pacts are answered by the kit's event generator.`,
  flags: verifyFlags,
  notes: exitCodes,
};

export interface VerifyArgs {
  help: boolean;
  target?: string;
  pactDir: string;
}

/** The flags of \`lckit pact verify\`; throws UsageError naming the offending flag. */
export function parseVerifyArgs(argv: string[]): VerifyArgs {
  const parsed = parseArgv(verifySpec, argv);
  if (parsed.help) return { help: true, pactDir: DEFAULT_PACT_DIR };
  const { target, "pact-dir": pactDir } = parsed.values;
  return { help: false, pactDir, ...(target === undefined ? {} : { target }) };
}

const verify = defineCommand(verifySpec, async ({ values }, io) => {
  const args = { pactDir: values["pact-dir"], target: values.target };
  const target = args.target === undefined ? undefined : readTargetFile(args.target, io.cwd, io.env);
  // Pact files or a configuration that are wrong throw PactFileError or PactConfigError: the user's input.
  const files = findPactFiles([args.pactDir], io.cwd);
  if (files.length === 0)
    throw new UsageError(
      `no pact files (*.json) in ${args.pactDir}; run the consumer tests or pass --pact-dir`,
    );
  io.err(
    `lckit pact: verifying ${files.length} pact file(s) against ${target ? `target ${target.target.name}` : "the embedded reference"}\n`,
  );
  const report = await verifyPacts({ pactFiles: files, cwd: io.cwd, ...(target ? { target } : {}) });
  io.out(formatReport(report));
  return report.ok ? 0 : 1;
});

function printCheck(result: ContractCheckResult, io: CliIo): void {
  for (const violation of result.violations) io.out(`${formatViolation(violation)}\n`);
  const interactions = result.files.reduce((sum, file) => sum + file.interactions, 0);
  io.out(
    `${result.ok ? "consistent" : "contradicts the contract"}: ${result.violations.length} violation(s) in ${interactions} interaction(s) of ${result.files.length} pact file(s)\n`,
  );
}

const check = defineCommand(
  {
    name: "pact check",
    summary: "check pact files against the OpenAPI documents and the event schemas",
    positionals: "[PATH...]",
    about: `Checks each interaction of the pact files (PATH: files or directories; default ${DEFAULT_PACT_DIR}) against
openapi/ (operation, parameters, bodies, status) and each message against event-schemas/.`,
    flags: {},
    notes: exitCodes,
  },
  ({ positionals }, io) => {
    const paths = positionals.length > 0 ? positionals : [DEFAULT_PACT_DIR];
    const files = findPactFiles(paths, io.cwd);
    if (files.length === 0) throw new UsageError(`no pact files (*.json) in ${paths.join(", ")}`);
    const result = checkPactFiles(files, io.cwd);
    printCheck(result, io);
    return result.ok ? 0 : 1;
  },
);

export const command = defineGroup(
  {
    name: "pact",
    summary: "verify pacts against a target; check pact files against the contract",
    notes: exitCodes,
  },
  [verify, check],
);
