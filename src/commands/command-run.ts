// Runs a team's command for a workbench check (lckit client check, lckit events consumer check): its own
// process group, its output passed on and its tail kept, a time limit after which the whole group is
// stopped (SIGTERM, then SIGKILL), and an optional input written to its stdin.
import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import type { CommandRun } from "../result/model.ts";
import type { FailOn } from "../result/verdict.ts";

/** After SIGTERM, the process group gets this long before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** The tail of the command's output a report keeps: its last lines, capped in characters. */
const TAIL_LINES = 40;
const TAIL_CHARS = 4_000;

/** The command a check ran, and how it ended: beside the verdict, never folded into it (its output tail not
 *  yet redacted). */
export type CommandOutcome = CommandRun;

/** What every check that runs the team's command takes besides its own options (client and consumer). */
export interface CommandCheckOptions {
  /** The command and its arguments (no shell: give `sh -c "..."` for one). */
  argv: string[];
  timeoutMs?: number;
  cwd?: string;
  /** The environment the command inherits (the LCKIT_* variables are added). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The command's output as it comes (default: dropped). */
  output?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Stops the command early (its process group is stopped as on a hang). */
  signal?: AbortSignal;
  /** A MUST rule with no opportunity is marked required in the reports, and fails the run (exit 1)
   *  unless `failOn` says otherwise: what --fail-on not-exercised asks. */
  requireExercised?: boolean;
  /** What exits 1 (the one exit policy of src/result/verdict.ts); default: DEFAULT_FAIL_ON, with
   *  not-exercised when `requireExercised`. */
  failOn?: readonly FailOn[];
}

export interface CommandRunOptions {
  timeoutMs: number;
  cwd?: string;
  /** The command's output as it comes (default: dropped). */
  output?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Stops the command early (its process group is stopped as on a hang). */
  signal?: AbortSignal;
  /** Writes the command's input; without it stdin is closed. */
  stdin?: (input: Writable) => void;
  /** The kit's command, for the start errors' advice ("lckit client check"). */
  name: string;
}

export function runCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  options: CommandRunOptions,
): Promise<CommandOutcome> {
  const started = performance.now();
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const child = spawn(file as string, args, {
      cwd: options.cwd,
      env,
      // Its own process group, so a hang stops the command and everything it started.
      detached: true,
      stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
    if (options.stdin && child.stdin) {
      // A command that stops reading closes the pipe: what is left of the input is not its to take.
      child.stdin.on("error", () => {});
      options.stdin(child.stdin);
    }
    const group = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const stopGroup = () => {
      group("SIGTERM");
      killTimer = setTimeout(() => group("SIGKILL"), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, options.timeoutMs);
    const onAbort = () => stopGroup();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // The output's tail, for the report: bounded whatever the command prints.
    let tail = "";
    const keep = (chunk: string) => {
      tail += chunk;
      if (tail.length > TAIL_CHARS * 4) tail = tail.slice(-TAIL_CHARS * 2);
    };
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      keep(chunk);
      options.output?.(chunk, "stdout");
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      keep(chunk);
      options.output?.(chunk, "stderr");
    });
    const finish = (outcome: Omit<CommandOutcome, "argv" | "durationMs" | "timedOut">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      const outputTail = tailOf(tail);
      resolve({
        argv,
        ...outcome,
        timedOut,
        durationMs: performance.now() - started,
        ...(outputTail === "" ? {} : { outputTail }),
      });
    };
    child.once("error", (error: NodeJS.ErrnoException) => {
      finish({
        exitCode: null,
        signal: null,
        startError: startErrorOf(file as string, error, options.name),
      });
    });
    child.once("exit", (code, signal) => {
      // Whatever the command left running in its group goes with it.
      if (!timedOut) group("SIGTERM");
      if (killTimer && !timedOut) clearTimeout(killTimer);
      finish({ exitCode: code, signal });
    });
  });
}

/** The last lines of an output, capped in characters (a cut line is marked). */
function tailOf(text: string): string {
  const lines = text.replace(/\r\n/g, "\n").trimEnd().split("\n").slice(-TAIL_LINES);
  const joined = lines.join("\n");
  return joined.length > TAIL_CHARS ? `...${joined.slice(-TAIL_CHARS)}` : joined;
}

/** Why the command could not be started, and the fix. One word with a space in it ("npm test" quoted as one
 *  argument) is a whole command line given as a program name: the kit runs no shell. */
function startErrorOf(file: string, error: NodeJS.ErrnoException, name: string): string {
  if (error.code === "ENOENT" && /\s/.test(file.trim()))
    return `${error.message}: "${file}": no program has that name: the command was given as one quoted word, and the kit runs no shell; give its words apart (${name} -- ${file.trim()}) or through a shell (${name} -- sh -c "${file.trim().replace(/"/g, '\\"')}")`;
  if (error.code === "ENOENT")
    return `${error.message}: ${file}: command not found (not on PATH, not a file); check its spelling, and give the command after --, e.g. ${name} -- npm test`;
  return `${file}: ${error.message}`;
}
