// What makes a check of a team's command (lckit client check, lckit events consumer check) fail, in the
// team's words: its own command failing, a MUST rule broken, or both; and how the command ended, as the
// verdict sentence, every renderer's headline and the run's interruption say it.
import type { CheckResult, ClientCommand, CommandRun, Interruption, StopSignal } from "./model.ts";

/** The check that stands for the team's command in a client check's results: failed when the command did. */
export const COMMAND_CHECK_ID = "client/command";
/** The same check of a consumer check: its command, not a consumer rule. */
export const CONSUMER_COMMAND_CHECK_ID = "consumer/command";
const COMMAND_CHECKS: ReadonlySet<string> = new Set([COMMAND_CHECK_ID, CONSUMER_COMMAND_CHECK_ID]);

/** How the command failed ("your command failed (exit 1)"), or undefined when it exited 0. */
export function commandFailure(
  client: Pick<ClientCommand, "exitCode" | "signal" | "timedOut" | "startError">,
): string | undefined {
  if (client.startError !== undefined) return "your command could not start";
  if (client.timedOut) return "your command hung past its time limit";
  if (client.signal !== null) return `your command was killed (${client.signal})`;
  if (client.exitCode !== 0) return `your command failed (exit ${client.exitCode})`;
  return undefined;
}

/** The causes of a failed client check, in the order a headline names them; empty when none. */
export function clientFailureCauses(
  checks: readonly Pick<CheckResult, "id" | "level" | "status">[],
  client: Pick<ClientCommand, "exitCode" | "signal" | "timedOut" | "startError">,
): string[] {
  const causes: string[] = [];
  const command = commandFailure(client);
  if (command !== undefined) causes.push(command);
  const broken = checks.filter(
    // The command's own check is the failure named first, not a rule the command broke.
    (c) => c.level === "MUST" && c.status === "failed" && !COMMAND_CHECKS.has(c.id),
  );
  if (broken.length > 0)
    causes.push(
      `MUST rule broken (${broken
        .map((c) => c.id)
        .slice(0, 5)
        .join(", ")}${broken.length > 5 ? ", ..." : ""})`,
    );
  return causes;
}

/** How a team's command ended, in one sentence (client and consumer checks). */
export function describeCommandOutcome(
  outcome: Pick<ClientCommand, "exitCode" | "signal" | "timedOut" | "startError">,
): string {
  if (outcome.startError !== undefined) return `the command could not start: ${outcome.startError}`;
  if (outcome.timedOut)
    return "the command did not finish within its time limit; its process group was stopped";
  if (outcome.signal !== null) return `the command was killed by ${outcome.signal}`;
  return `the command exited with ${outcome.exitCode}`;
}

/** How the command ended, in the few words of a summary's last line: after a --timeout kill its exit code
 *  is the kit's doing, so the time limit is named first ("command stopped at its time limit, then exit 0"). */
export function commandExitWords(
  outcome: Pick<ClientCommand, "exitCode" | "signal" | "timedOut" | "startError">,
): string {
  if (outcome.startError !== undefined) return "command could not start";
  const ended = `${outcome.exitCode ?? outcome.signal ?? "none"}`;
  if (outcome.timedOut) return `command stopped at its time limit (--timeout), then exit ${ended}`;
  return `command exit ${ended}`;
}

/** The interruption a command that did not finish by itself puts on the run, if any. Stopped by a signal
 *  to the kit (`stoppedBy`: Ctrl-C, SIGTERM), the run is interrupted by that signal: never the command's
 *  fault, and exit 4 like every interrupted run. A command that could not start was never interrupted:
 *  its check fails and the headline names the start error (exit 2, configuration). */
export function commandInterruption(
  outcome: Pick<ClientCommand, "exitCode" | "signal" | "timedOut" | "startError">,
  at: Date,
  stoppedBy?: StopSignal,
): Interruption | undefined {
  if (outcome.startError !== undefined) return undefined;
  if (!outcome.timedOut && outcome.signal === null) return undefined;
  return {
    cause:
      stoppedBy !== undefined && !outcome.timedOut ? stoppedBy : outcome.timedOut ? "deadline" : "aborted",
    message: describeCommandOutcome(outcome),
    at: at.toISOString(),
  };
}

/** The signal an abort of the kit's own stop controller carries (src/session/signals.ts), if any. */
export function stopSignalOf(signal: AbortSignal | undefined): StopSignal | undefined {
  if (!signal?.aborted) return undefined;
  return signal.reason === "SIGINT" ? "SIGINT" : "SIGTERM";
}

/** How the team's command ended, as a report keeps it: redacted, its duration in whole ms. */
export function commandRun(outcome: CommandRun, redact: (text: string) => string = (t) => t): CommandRun {
  const tail = outcome.outputTail === undefined ? undefined : redact(outcome.outputTail);
  return {
    argv: outcome.argv.map(redact),
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    ...(outcome.startError === undefined ? {} : { startError: outcome.startError }),
    durationMs: Math.round(outcome.durationMs),
    ...(tail === undefined || tail === "" ? {} : { outputTail: tail }),
  };
}
