// What makes a client check (lckit client check) fail, in the team's words: its own command failing, a MUST
// caller rule broken, or both. The verdict sentence, every renderer's headline and the findings the exit
// policy reads (clientFindings) say it from here.
import type { CheckResult, ClientCommand, RunResult } from "./model.ts";
import { type Findings, findingsOf } from "./verdict.ts";

/** The check that stands for the team's command in a client check's results: failed when the command did. */
export const COMMAND_CHECK_ID = "client/command";

/** How the command failed ("your command failed (exit 1)"), or undefined when it exited 0. */
export function commandFailure(
  client: Pick<ClientCommand, "exitCode" | "signal" | "timedOut" | "startError">,
): string | undefined {
  if (client.startError !== undefined) return "your command could not be started";
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
    (c) => c.level === "MUST" && c.status === "failed" && c.id !== COMMAND_CHECK_ID,
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

/** A client check's findings for the exit policy (verdict.ts). Nothing was judged when the command could not
 *  be started or sent no request (2: setup) or hung or was killed (3); otherwise its run result says it, the
 *  command failing being the failed MUST check client/command. */
export function clientFindings(result: RunResult): Findings {
  const findings = findingsOf(result.verdict, result.checks);
  const client = result.client;
  if (client?.startError !== undefined) return { ...findings, nothingJudged: 2 };
  if (client !== undefined && (client.timedOut || client.signal !== null))
    return { ...findings, nothingJudged: 3 };
  if (result.requestsSent === 0) return { ...findings, nothingJudged: 2 };
  return findings;
}
