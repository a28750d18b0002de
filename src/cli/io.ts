// The CLI's window on the world: commands write through this so tests can capture output.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a terminal (live progress); false in CI and pipes (plain lines). */
  isTty: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** A stream whose reader went away (`lckit ... | head`, `2>&1 | head`): further output is dropped,
 *  quietly, and the command still ends with its own exit code. */
function quietOnEpipe(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") closed = true;
    else throw error;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

export const processIo: CliIo = {
  out: quietOnEpipe(process.stdout),
  err: quietOnEpipe(process.stderr),
  isTty: Boolean(process.stderr.isTTY) && !process.env.CI,
  env: process.env,
  cwd: process.cwd(),
};

// The usage error lives below every folder (src/usage-error.ts); the CLI's commands take it from here.
export { UsageError, UserInputError } from "../usage-error.ts";
