// lckit client check from request to report folder, below the CLI, in the one session shape of the
// commands that run a team's command (src/commands/session.ts): the check run once
// (src/commands/client/check.ts) or once per provider choice (a sweep); a folder holds the run's report
// with the command's exchanges. `lckit client check` parses flags into a ClientSessionRequest and prints
// what this returns; problems the user can fix are UsageErrors (exit 2).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { FixtureError, type SandboxChoiceName } from "../../reference/index.ts";
import type { FailOn } from "../../result/verdict.ts";
import { UsageError } from "../../usage-error.ts";
import {
  type CommandSession,
  openReportRoot,
  type SweepEvents,
  singleSession,
  sweepSession,
} from "../session.ts";
import { CLIENT_CHECK_DEFAULTS, type ClientCheckRun, clientCheck } from "./check.ts";
import { type ClientSweepRun, clientSweep } from "./sweep.ts";
import { renderSweepMarkdown } from "./sweep-markdown.ts";
import {
  EXCHANGES_FILE,
  renderSweepJunit,
  type SweepDocument,
  sweepDocument,
  writeChoiceFolder,
} from "./sweep-report.ts";

/** What a client check is asked to do: the flags of lckit client check, or a library caller's options.
 *  Paths are relative to `cwd`. */
export interface ClientCheckRequest {
  cwd: string;
  /** The environment the command inherits (the LCKIT_* variables are added). */
  env: NodeJS.ProcessEnv;
  /** The team's command and its arguments. */
  command: string[];
  data?: string;
  clientId?: string;
  timeoutMs: number;
  reportDir: string;
  failOn: readonly FailOn[];
  /** Provider choices the team pins (--require-choice): a command failing under one is a MUST failure. */
  requiredChoices?: readonly string[];
  /** The command's output as it comes (a single check; a sweep keeps each choice's in its command.log). */
  output?: (chunk: string) => void;
  /** Aborting it stops the command (its process group), as a hang does. */
  signal?: AbortSignal;
}

export interface ClientSessionRequest extends ClientCheckRequest {
  /** The provider choices of a sweep (undefined in it: the reference's own, "default"); absent: one run. */
  variants?: readonly (SandboxChoiceName | undefined)[];
  /** Choices run at once in a sweep. */
  parallel?: number;
}

export type ClientSession = CommandSession<ClientCheckRun, ClientSweepRun, SweepDocument>;

/** The client check: the command run once against one sandbox (its report folder written, with the
 *  command's exchanges), or with `variants` once per provider choice, a few at a time (a folder per choice
 *  written as it finishes, the sweep's own files once all have). */
export async function runClientSession(
  request: ClientSessionRequest,
  events: SweepEvents<ClientSweepRun> = {},
): Promise<ClientSession> {
  const root = openReportRoot(resolve(request.cwd, request.reportDir));
  const { variants, parallel, output, ...common } = request;
  if (variants === undefined)
    return singleSession(
      root,
      () =>
        usageErrors(() =>
          clientCheck({ ...checkOptions(common), ...(output === undefined ? {} : { output }) }),
        ),
      // The command's whole traffic, redacted, one exchange per line, beside the report.
      (folder, run) =>
        writeFileSync(
          join(folder, EXCHANGES_FILE),
          run.exchanges.map((x) => `${JSON.stringify(x)}\n`).join(""),
        ),
    );
  const atOnce = parallel ?? CLIENT_CHECK_DEFAULTS.parallel;
  return sweepSession(
    root,
    CLIENT_SWEEP_FILES,
    {
      total: variants.length,
      parallel: atOnce,
      // As the reports show it: redacted.
      command: (sweep) => sweep.runs[0]?.run.result.command ?? request.command.join(" "),
    },
    events,
    (onFinished) =>
      usageErrors(() => clientSweep({ ...checkOptions(common), variants, parallel: atOnce, onFinished })),
  );
}

const CLIENT_SWEEP_FILES = {
  prefix: "sweep",
  writeChoice: writeChoiceFolder,
  document: sweepDocument,
  junit: renderSweepJunit,
  markdown: renderSweepMarkdown,
};

function checkOptions(request: Omit<ClientCheckRequest, "output">) {
  return {
    argv: request.command,
    // --fail-on not-exercised also marks the MUST rules as required in every report.
    ...(request.failOn.includes("not-exercised") ? { requireExercised: true } : {}),
    failOn: request.failOn,
    cwd: request.cwd,
    env: request.env,
    timeoutMs: request.timeoutMs,
    ...(request.data === undefined ? {} : { data: resolve(request.cwd, request.data) }),
    ...(request.clientId === undefined ? {} : { clientId: request.clientId }),
    ...(request.requiredChoices === undefined ? {} : { requiredChoices: request.requiredChoices }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  };
}

/** A bad data file names the flag it came from; a command not given or an unknown client is a
 *  ClientCheckError already: both are the user's input (UserInputError, exit 2). */
async function usageErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FixtureError) throw new UsageError(`--data ${error.message}`);
    throw error;
  }
}
