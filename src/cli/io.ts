// The CLI's window on the world: commands write through this so tests can capture output.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a terminal (live progress); false in CI and pipes (plain lines). */
  isTty: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** Set once stdout's reader went away (`lckit ... | head`): further output is dropped, quietly. */
let stdoutClosed = false;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") stdoutClosed = true;
  else throw error;
});

export const processIo: CliIo = {
  out: (text) => {
    if (!stdoutClosed) process.stdout.write(text);
  },
  err: (text) => process.stderr.write(text),
  isTty: Boolean(process.stderr.isTTY) && !process.env.CI,
  env: process.env,
  cwd: process.cwd(),
};

/** A usage or configuration problem: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
