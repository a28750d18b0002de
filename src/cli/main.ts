// The kit's command line: dispatches to one module per command. Only src/cli may touch argv and exit codes.

import { unknownName } from "../did-you-mean.ts";
import { UserInputError } from "../usage-error.ts";
import type { Command } from "./command.ts";
import { topLevelHelp } from "./help.ts";
import { type CliIo, processIo } from "./io.ts";

const commands: Record<string, () => Promise<{ command: Command }>> = {
  run: () => import("./commands/run.ts"),
  serve: () => import("./commands/serve.ts"),
  mock: () => import("./commands/mock.ts"),
  events: () => import("./commands/events.ts"),
  pact: () => import("./commands/pact.ts"),
  restore: () => import("./commands/restore.ts"),
  contract: () => import("./commands/contract.ts"),
  report: () => import("./commands/report.ts"),
  client: () => import("./commands/client.ts"),
  judge: () => import("./commands/judge.ts"),
  proxy: () => import("./commands/proxy.ts"),
};

/** `lckit --help`, from each command's own declaration (loading every command: help is rare, and the
 *  summaries are then written once, beside the flags they describe). */
async function usage(): Promise<string> {
  return topLevelHelp(await loadCommands());
}

/** Every command of the CLI, loaded, in the order `lckit --help` lists them. */
export async function loadCommands(): Promise<Command[]> {
  return (await Promise.all(Object.values(commands).map((load) => load()))).map(({ command }) => command);
}

/** Commands after which the process ends as soon as they return, whatever a misbehaving target left
 *  pending (a socket it never closes, the read of stdin an interrupted events check left): the report is
 *  written by then. The others (serve, mock) return only when they are done serving. */
const exitWhenDone = new Set(["run", "restore", "client", "judge", "proxy", "events"]);

/** The entry point of bin/lckit.mjs: runs the command, then ends the process where nothing else is due. */
export async function cli(argv: string[]): Promise<void> {
  const code = await main(argv);
  process.exitCode = code;
  if (argv[0] !== undefined && exitWhenDone.has(argv[0])) process.exit(code);
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  // `lckit help events check` is `lckit events check --help`.
  if (argv[0] === "help" && argv.length > 1) return main([...argv.slice(1), "--help"], io);
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(await usage());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    // Loaded here only: kit-info reads the package and its documents, which no other command needs at start.
    const kit = (await import("../result/kit-info.ts")).kitInfo();
    io.out(`lckit (${kit.name}) ${kit.version}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    const known = Object.keys(commands);
    io.err(
      `lckit: ${unknownName("command", name, known)} Expected one of: ${known.join(", ")}.\n` +
        "Usage: lckit <command> [options]\nRun `lckit --help` for a list of commands.\n",
    );
    return 2;
  }
  try {
    const { command } = await load();
    return await command.run(rest, io);
  } catch (error) {
    // Every problem the user can fix, whichever layer found it: exit 2, here only.
    if (error instanceof UserInputError) {
      io.err(`lckit ${name}: ${error.message}\n`);
      return 2;
    }
    io.err(
      `lckit ${name}: the run broke: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 3;
  }
}
