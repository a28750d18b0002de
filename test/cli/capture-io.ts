// A CliIo that keeps what a command writes, for tests of CLI commands.
import type { CliIo } from "../../src/cli/io.ts";

export function captureIo(): CliIo & { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  return {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    isTty: false,
    env: {},
    cwd: process.cwd(),
    stdout: () => out,
    stderr: () => err,
  };
}
