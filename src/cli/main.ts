// The kit's command line: dispatches to one module per command. Only src/cli may touch argv and exit codes.
import { kitInfo } from "../result/kit-info.ts";
import type { Command } from "./command.ts";
import { type CliIo, processIo, UsageError } from "./io.ts";

const commands: Record<string, () => Promise<{ command: Command }>> = {
  run: () => import("./commands/run.ts"),
  serve: () => import("./commands/serve.ts"),
  mock: () => import("./commands/mock.ts"),
  events: () => import("./commands/events.ts"),
  pact: () => import("./commands/pact.ts"),
  restore: () => import("./commands/restore.ts"),
  contract: () => import("./commands/contract.ts"),
  report: () => import("./commands/report.ts"),
};

const summaries: Record<string, string> = {
  run: "certify a target (default: the embedded reference) and write a conformance report",
  serve: "serve the stateful reference implementation on loopback",
  mock: "serve the OpenAPI documents with the Prism mock on loopback",
  events: "check event messages (files, stdin, a broker) or publish generated streams",
  pact: "verify pacts against a target; check pact files against the contract",
  restore: "put back the configuration changes a killed run left (from its journal)",
  report: "compare two reports (diff) or verify a report folder's manifest and signature (verify)",
};

function usage(): string {
  const lines = Object.keys(commands).map((name) => `  ${name.padEnd(8)} ${summaries[name] ?? ""}`);
  return [
    "Usage: lckit <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `lckit <command> --help` for the options of a command; `lckit --version` prints the version.",
    "",
  ].join("\n");
}

/** Commands after which the process ends as soon as they return, whatever a misbehaving target left
 *  pending (a socket it never closes): the report is written by then. The others (serve, mock) return
 *  only when they are done serving. */
const exitWhenDone = new Set(["run", "restore"]);

/** The entry point of bin/lckit.mjs: runs the command, then ends the process where nothing else is due. */
export async function cli(argv: string[]): Promise<void> {
  const code = await main(argv);
  process.exitCode = code;
  if (argv[0] !== undefined && exitWhenDone.has(argv[0])) process.exit(code);
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    const kit = kitInfo();
    io.out(`lckit (${kit.name}) ${kit.version}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    io.err(`lckit: unknown command "${name}". Expected one of: ${Object.keys(commands).join(", ")}.\n`);
    io.err("Run `lckit --help` for a list of commands.\n");
    return 2;
  }
  try {
    const { command } = await load();
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`lckit ${name}: ${error.message}\n`);
      return 2;
    }
    io.err(
      `lckit ${name}: the run broke: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 3;
  }
}
