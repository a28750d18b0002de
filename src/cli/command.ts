// What one command of the command line is: its one-line summary (for `lckit --help`) and how it runs. In its
// own file so that the commands need not import main.ts, which loads them.
import type { CliIo } from "./io.ts";

export interface Command {
  summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}
