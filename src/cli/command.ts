// What one command of the command line is: its declaration (summary, flags; --help is written from it) and
// how it runs. A command either runs itself (run, serve, ...) or dispatches to subcommands (events check,
// pact verify, ...). In its own file so that the commands need not import main.ts, which loads them.

import { unknownName } from "../did-you-mean.ts";
import { type CommandSpec, type FlagSet, type ParsedArgv, parseArgv } from "./argv.ts";
import { orList } from "./flags.ts";
import { commandHelp, type GroupSpec, groupHelp } from "./help.ts";
import { type CliIo, UsageError } from "./io.ts";

export interface Command {
  spec: CommandSpec | GroupSpec;
  /** Present for a command that dispatches to subcommands. */
  subcommands?: readonly CommandSpec[];
  summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** A command that runs itself: its declared flags parsed, or its help printed. */
export interface LeafCommand<F extends FlagSet = FlagSet> extends Command {
  spec: CommandSpec<F>;
  /** `siblings`: the other subcommands of its group, which its --help lists at the end. */
  run(argv: string[], io: CliIo, siblings?: readonly CommandSpec[]): Promise<number>;
}

/** What a command's handler gets: its flags' values, its other arguments, and argv as given (for the
 *  command line a report records). */
export type Args<F extends FlagSet> = Extract<ParsedArgv<F>, { help: false }> & { argv: readonly string[] };

export function defineCommand<F extends FlagSet>(
  spec: CommandSpec<F>,
  handler: (args: Args<F>, io: CliIo) => Promise<number> | number,
): LeafCommand<F> {
  return {
    spec,
    summary: spec.summary,
    async run(argv, io, siblings = []) {
      const parsed = parseArgv(spec, argv, { cwd: io.cwd });
      if (parsed.help) {
        io.out(commandHelp(spec as CommandSpec, siblings));
        return 0;
      }
      return handler({ ...parsed, argv }, io);
    },
  };
}

/** A command made of subcommands: `lckit events check ...`. Its --help lists them; a missing or unknown
 *  subcommand is a usage error that names the ones there are. */
export function defineGroup(spec: GroupSpec, leaves: readonly LeafCommand[]): Command {
  const specs = leaves.map((l) => l.spec as CommandSpec);
  const names = specs.map((s) => s.name.slice(spec.name.length + 1));
  const help = () => groupHelp(spec, specs);
  return {
    spec,
    subcommands: specs,
    summary: spec.summary,
    async run(argv, io) {
      const [sub, ...rest] = argv;
      if (sub === "--help" || sub === "-h" || sub === "help") {
        io.out(help());
        return 0;
      }
      if (sub === undefined) throw new UsageError(`a subcommand is required: ${orList(names)}\n\n${help()}`);
      const index = names.indexOf(sub);
      const leaf = leaves[index];
      if (leaf === undefined)
        throw new UsageError(
          `${unknownName("subcommand", sub, names)} Expected ${orList(names)}; run \`lckit ${spec.name} --help\`.` +
            `\nUsage: lckit ${spec.name} <subcommand> [options]`,
        );
      return leaf.run(
        rest,
        io,
        specs.filter((_, i) => i !== index),
      );
    },
  };
}
