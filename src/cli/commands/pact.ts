// `lckit pact verify` (provider verification of pact files) and `lckit pact check` (pact files against the
// OpenAPI documents and event schemas). Exit codes: 0 all good, 1 a failure, 2 usage or configuration error.
import { resolve } from "node:path";
import { type ContractCheckResult, checkPactFiles, formatViolation } from "../../pact/contract-check.ts";
import { findPactFiles, PactFileError } from "../../pact/pact-file.ts";
import { DEFAULT_PACT_DIR } from "../../pact/provider.ts";
import { formatReport } from "../../pact/verification-result.ts";
import { PactConfigError, verifyPacts } from "../../pact/verify.ts";
import { loadTargetFile, type TargetConfig, TargetFileError } from "../../target/target-file.ts";
import type { Command } from "../command.ts";
import { type CliIo, UsageError } from "../io.ts";

const usage = `Usage: lckit pact <subcommand> [options]

Subcommands:
  verify   replay every pact against a provider and report the interactions that fail
  check    check pact files against the OpenAPI documents and the event schemas

lckit pact verify [--target FILE] [--pact-dir DIR] [--help]
  Verifies every pact file in DIR (default ${DEFAULT_PACT_DIR}) against the embedded reference, served on a
  free loopback port, or against the deployment of a runner target file (see docs/target-file.md).
  Provider states are set up on the reference; on a live target they are only checked. Requests carry real
  tokens from the target's credentials; message pacts are answered by the kit's event generator.
  --target FILE    verify a live target instead of the embedded reference
  --pact-dir DIR   directory of pact files (default ${DEFAULT_PACT_DIR})

lckit pact check [PATH...] [--help]
  Checks each interaction of the pact files (PATH: files or directories; default ${DEFAULT_PACT_DIR}) against
  openapi/ (operation, parameters, bodies, status) and each message against event-schemas/.

Exit codes: 0 all verified or consistent, 1 a failure, 2 usage or configuration error, 3 the run broke.
Pact's verifier prints its own report on stdout while it runs; lckit's summary follows on stdout.
`;

interface VerifyArgs {
  help: boolean;
  target?: string;
  pactDir: string;
}

function flagValue(argv: string[], index: number, flag: string, example: string): string {
  const next = argv[index + 1];
  if (next === undefined || next.startsWith("--"))
    throw new UsageError(`${flag} needs a value, e.g. ${flag} ${example}. Run \`lckit pact --help\`.`);
  return next;
}

export function parseVerifyArgs(argv: string[]): VerifyArgs {
  const args: VerifyArgs = { help: false, pactDir: DEFAULT_PACT_DIR };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (example: string) => {
      if (inline !== undefined) return inline;
      const next = flagValue(argv, index, flag ?? arg, example);
      index++;
      return next;
    };
    switch (flag) {
      case "--help":
      case "-h":
        args.help = true;
        break;
      case "--target":
        args.target = value("target.yaml");
        break;
      case "--pact-dir":
        args.pactDir = value(DEFAULT_PACT_DIR);
        break;
      default:
        throw new UsageError(
          `unknown option "${arg}" for pact verify. Expected --target, --pact-dir or --help.`,
        );
    }
  }
  return args;
}

function readTarget(file: string, io: CliIo): TargetConfig {
  try {
    return loadTargetFile(resolve(io.cwd, file), io.env);
  } catch (error) {
    if (error instanceof TargetFileError) throw new UsageError(`target file ${error.message}`);
    throw error;
  }
}

/** Library errors that mean "the input is wrong", shown as usage errors (exit 2). */
function asUsage(error: unknown): never {
  if (error instanceof PactFileError || error instanceof PactConfigError) throw new UsageError(error.message);
  throw error;
}

async function verify(argv: string[], io: CliIo): Promise<number> {
  const args = parseVerifyArgs(argv);
  if (args.help) {
    io.out(usage);
    return 0;
  }
  const target = args.target === undefined ? undefined : readTarget(args.target, io);
  let files: string[];
  try {
    files = findPactFiles([args.pactDir], io.cwd);
  } catch (error) {
    asUsage(error);
  }
  if (files.length === 0)
    throw new UsageError(
      `no pact files (*.json) in ${args.pactDir}; run the consumer tests or pass --pact-dir`,
    );
  io.err(
    `lckit pact: verifying ${files.length} pact file(s) against ${target ? `target ${target.target.name}` : "the embedded reference"}\n`,
  );
  const report = await verifyPacts({ pactFiles: files, cwd: io.cwd, ...(target ? { target } : {}) }).catch(
    asUsage,
  );
  io.out(formatReport(report));
  return report.ok ? 0 : 1;
}

function printCheck(result: ContractCheckResult, io: CliIo): void {
  for (const violation of result.violations) io.out(`${formatViolation(violation)}\n`);
  const interactions = result.files.reduce((sum, file) => sum + file.interactions, 0);
  io.out(
    `${result.ok ? "consistent" : "contradicts the contract"}: ${result.violations.length} violation(s) in ${interactions} interaction(s) of ${result.files.length} pact file(s)\n`,
  );
}

async function check(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out(usage);
    return 0;
  }
  const unknown = argv.find((arg) => arg.startsWith("-"));
  if (unknown)
    throw new UsageError(`unknown option "${unknown}" for pact check. Pass pact files or directories.`);
  const paths = argv.length > 0 ? argv : [DEFAULT_PACT_DIR];
  let result: ContractCheckResult;
  try {
    const files = findPactFiles(paths, io.cwd);
    if (files.length === 0) throw new UsageError(`no pact files (*.json) in ${paths.join(", ")}`);
    result = checkPactFiles(files, io.cwd);
  } catch (error) {
    asUsage(error);
  }
  printCheck(result, io);
  return result.ok ? 0 : 1;
}

export const command: Command = {
  summary: "verify pacts against a target; check pact files against the contract",
  async run(argv, io) {
    const [subcommand, ...rest] = argv;
    switch (subcommand) {
      case "verify":
        return verify(rest, io);
      case "check":
        return check(rest, io);
      case "--help":
      case "-h":
      case "help":
        io.out(usage);
        return 0;
      case undefined:
        io.err(usage);
        return 2;
      default:
        throw new UsageError(
          `unknown subcommand "${subcommand}". Expected verify or check; run \`lckit pact --help\`.`,
        );
    }
  },
};
