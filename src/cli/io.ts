// The CLI's window on the world: commands write through this so tests can capture output.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a terminal (live progress); false in CI and pipes (plain lines). */
  isTty: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isTty: Boolean(process.stderr.isTTY) && !process.env.CI,
  env: process.env,
  cwd: process.cwd(),
};

/** A usage or configuration problem: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
