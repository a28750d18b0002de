// `lckit events`: check event messages (NDJSON file, stdin, AMQP broker) against the event contract. The
// session (src/session/events-check.ts) reads, checks and writes the report; this file parses the flags
// into its request, prints the problems and the summary, and exits by the one exit policy. `lckit events
// publish` is dispatched to its own module.
import { resolve } from "node:path";
import { CheckInconclusive } from "../../check/index.ts";
import type { EventProblem } from "../../events/check/event-problem.ts";
import { formatGroup, ProblemGroups } from "../../events/check/problem-groups.ts";
import type { EventCheckResult } from "../../events/judge/event-stream.ts";
import { notCheckableLines } from "../../report/not-checkable.ts";
import type { Interruption } from "../../result/model.ts";
import { exitCodeOf, failOnOf } from "../../result/verdict.ts";
import { runEventsCheck } from "../../session/events-check.ts";
import { displayPath } from "../../session/run-session.ts";
import { whileStoppable } from "../../session/signals.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { commandHelp } from "../help.ts";
import { type CliIo, UsageError } from "../io.ts";
import { consumer } from "./events-consumer.ts";
import { checkSpec } from "./events-flags.ts";
import { publish } from "./events-publish.ts";

interface EventsIo extends CliIo {
  /** Read for "-" instead of process.stdin (tests). */
  stdin?: NodeJS.ReadableStream;
}

function formatProblem(problem: EventProblem): string {
  const { position, instancePath, severity } = problem.evidence;
  const level = severity === "warning" ? "warning " : "";
  return `${position}: ${level}${problem.requirement} at ${instancePath || "message"}: ${problem.message}\n`;
}

/** JSON text with the characters JSON.stringify leaves raw but a terminal acts on (C1, separators, bidi) escaped. */
function safeJson(text: string): string {
  return text.replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function summary(
  result: EventCheckResult,
  passInconclusive: boolean,
  notCheckable: string[],
  interruption: Interruption | undefined,
): string {
  const lines = [
    `\n${result.source}: ${result.total} message(s), ${result.valid} valid, ${result.invalid} invalid` +
      `${result.warned > 0 ? ` (${result.warned} valid with warnings)` : ""}` +
      `${result.duplicates > 0 ? `, ${result.duplicates} redelivery(ies) of the same payload` : ""}` +
      `${result.reordered > 0 ? `, ${result.reordered} delivered after a higher objectVersion of their object` : ""}`,
  ];
  const rules = Object.entries(result.byRule).sort(([a], [b]) => a.localeCompare(b));
  for (const [id, count] of rules) lines.push(`  ${id.padEnd(20)} ${count}`);
  const { companions } = result;
  if (companions.paired > 0 || companions.undecided.length > 0)
    lines.push(
      `reference companions: ${companions.paired} relationship event(s) paired with their ENTITY_CHANGED${companions.excused > 0 ? `, ${companions.excused} excused (an entity removed or merged away)` : ""}`,
    );
  for (const open of companions.undecided)
    if (open.reason === "ends-unknown")
      lines.push(`  not possible ${open.rule}: ${open.count} ${open.message} (first: ${open.first})`);
  for (const open of result.inconclusive)
    lines.push(
      `UNDECIDED ${open.rule}: ${new CheckInconclusive(open).message}${passInconclusive ? " (--pass-inconclusive: does not fail the job)" : ""}`,
    );
  if (result.droppedProblems > 0) {
    lines.push(`${result.droppedProblems} more problem(s) counted but not listed (raise --max-problems)`);
  }
  lines.push(...notCheckable);
  lines.push(
    interruption !== undefined
      ? `result: INTERRUPTED: ${interruption.message}${result.invalid > 0 ? `; ${result.invalid} of them invalid` : ""}`
      : result.total === 0
        ? "result: NO MESSAGES: nothing was read, so nothing was checked (an empty input is not a conforming stream)"
        : result.invalid > 0
          ? "result: NOT CONFORMANT"
          : result.inconclusive.length > 0
            ? `result: INCOMPLETE: every message read conforms, but ${result.inconclusive.map((open) => open.rule).join(" and ")} could not decide (UNDECIDED above)`
            : "result: every message conforms",
  );
  return `${lines.join("\n")}\n`;
}

const check = defineCommand(checkSpec, async ({ values, positionals, argv }, io: EventsIo) => {
  if (positionals.length !== 1 || positionals[0] === undefined) {
    throw new UsageError(
      `check expects exactly one source (an NDJSON file, "-" for stdin or an amqp:// URL), got ${positionals.length}\n\n${commandHelp(checkSpec)}`,
    );
  }
  const source = positionals[0];
  refuseOtherProtocolsFlags(source, values);
  const { format } = values;
  const maxProblems = values["max-problems"];
  const window = {
    ...(values["companion-window"] === undefined ? {} : { messages: values["companion-window"] }),
    ...(values["companion-window-time"] === undefined ? {} : { ms: values["companion-window-time"] }),
  };
  let printed = 0;
  // Repeated findings (one rule, the same message) are printed once, then summed up after the run.
  const groups = new ProblemGroups();
  // Ctrl-C or SIGTERM ends the reading; what was read is judged and reported (exit 4), as lckit run does.
  const { result, run, dir } = await whileStoppable((signal) =>
    runEventsCheck(
      {
        signal,
        cwd: io.cwd,
        source,
        read: {
          stdin: io.stdin,
          exchange: values.exchange,
          routingKey: values["routing-key"],
          maxMessages: values["max-messages"],
          idleTimeoutMs: values["idle-timeout"],
          durationMs: values.duration,
          ...(values["max-line-bytes"] === undefined ? {} : { maxLineBytes: values["max-line-bytes"] }),
          envelope: values.envelope,
          ...(values.address === undefined ? {} : { address: values.address }),
          ...(values["amqp1-mode"] === undefined ? {} : { amqp1Mode: values["amqp1-mode"] }),
          ...(values.ca === undefined ? {} : { caFile: resolve(io.cwd, values.ca) }),
        },
        ...(values.config === undefined ? {} : { config: values.config }),
        check: {
          maxProblems,
          ...(values["max-tracked"] === undefined ? {} : { maxTrackedVersions: values["max-tracked"] }),
          ...(values["max-depth"] === undefined ? {} : { maxDepth: values["max-depth"] }),
          ...(Object.keys(window).length === 0 ? {} : { companionWindow: window }),
        },
        ...(values["report-dir"] === undefined ? {} : { reportDir: values["report-dir"] }),
        ...(values["sign-key"] === undefined ? {} : { signKey: values["sign-key"] }),
        allowEmpty: values["allow-empty"],
        command: ["lckit", "events", "check", ...argv].join(" "),
      },
      {
        onProblem: (problem) => {
          if (format !== "text" || !groups.add(problem)) return;
          if (printed < maxProblems) io.out(formatProblem(problem));
          printed += 1;
        },
      },
    ),
  );
  if (format === "text") for (const group of groups.repeated()) io.out(`${formatGroup(group)}\n`);
  for (const notice of result.notices) io.err(`${result.source}: ${notice.kind}: ${notice.message}\n`);
  if (format === "json") io.out(`${safeJson(JSON.stringify(result, null, 2))}\n`);
  else
    io.out(summary(result, values["pass-inconclusive"], notCheckableLines(run.coverage), run.interruption));
  if (dir !== undefined) io.err(`report written to ${displayPath(io.cwd, dir)}\n`);
  if (result.total === 0 && !values["allow-empty"] && run.interruption === undefined)
    io.err(
      `no message was read from ${result.source}: nothing was checked. Check the path, the exchange and routing key, or the producer; pass --allow-empty if an empty stream is expected\n`,
    );
  return exitCodeOf(run, failOnOf(values["fail-on"], values["pass-inconclusive"]));
});

/** A flag of one protocol given with a source of another would be ignored: refused instead, naming the right one. */
function refuseOtherProtocolsFlags(
  source: string,
  values: { exchange?: string; "routing-key"?: string; address?: string; "amqp1-mode"?: string; ca?: string },
): void {
  const amqp1 = /^amqp1s?:\/\//i.test(source);
  const amqp091 = /^amqps?:\/\//i.test(source);
  const given = (names: (keyof typeof values)[]) => names.filter((name) => values[name] !== undefined);
  const of091 = given(["exchange", "routing-key"]);
  const of1 = given(["address", "amqp1-mode", "ca"]);
  if (amqp1 && of091.length > 0)
    throw new UsageError(
      `--${of091.join(", --")} belong to amqp:// (AMQP 0-9-1) sources; an amqp1:// source reads the address in its path or --address`,
    );
  if (!amqp1 && of1.length > 0)
    throw new UsageError(
      `--${of1.join(", --")} belong to amqp1:// and amqp1s:// (AMQP 1.0) sources${amqp091 ? "; an amqp:// source takes --exchange and --routing-key" : `, not to ${source}`}`,
    );
}

export const command = defineGroup(
  {
    name: "events",
    summary: "check event messages (files, stdin, a broker) or publish generated streams",
  },
  [check, publish, consumer],
);
