// `lckit events`: check event messages (NDJSON file, stdin, AMQP broker) against the event contract;
// `lckit events publish` is dispatched to its own module.
import { parseArgs } from "node:util";
import type { EventProblem } from "../../events/check/event-problem.ts";
import { checkStream, type EventCheckResult } from "../../events/check/event-stream.ts";
import { loadStreamingConfig, type StreamingConfig } from "../../events/streaming-config.ts";
import { openSource, SourceError } from "../../events/transport/sources/index.ts";
import type { MessageSource } from "../../events/transport/transport.ts";
import { EventEvidence } from "../../report/event-evidence.ts";
import type { Command } from "../command.ts";
import { type CliIo, UsageError } from "../io.ts";

const usage = `Usage: lckit events <subcommand> [options]

Subcommands:
  check <file.ndjson | - | amqp://...>   check event messages against the event contract (event-schemas/)
  publish [options]                      publish a generated event stream (see \`lckit events publish --help\`)
`;

const checkUsage = `Usage: lckit events check <file.ndjson | - | amqp://...> [options]

Reads event messages and checks each against the event contract, then the stream rules (objectVersion
reuse, GDPR removal). An NDJSON line is either a bare payload ({"type": ...}) or an envelope
{"headers": {...}, "payload": {...}}; "-" reads stdin. Malformed lines are reported and skipped.

Options:
  --config FILE          streaming configuration (JSON or YAML: JMSEventsFilteringFields,
                         RelationEventsFilteringFields, payloadType, analyzeOvChanges, largeObjectsSupport);
                         without it the configuration-dependent rules are not checked
  --format text|json     text: one line per problem and a summary (default); json: the result object
  --max-problems N       problems listed (default 1000); all are counted
  --max-tracked N        (uri, objectVersion) pairs the stream rules remember (default 1000000, about
                         160 MB); past it the objects seen longest ago are forgotten, so memory stays flat
  --max-depth N          nesting of objects and arrays inspected per message (default 512, at most 4096);
                         a deeper message is reported for its line and the run goes on
  --allow-empty          exit 0 when no message was read (default: exit 2, nothing was checked)
  --report-dir DIR       also write the run report (json, junit, markdown, html) under DIR
  --help                 this text

Broker options (amqp:// sources):
  --exchange X           exchange to bind the checker's own private queue to (default lckit.events)
  --routing-key K        binding key (default #)
  --max-messages N       stop after N messages
  --idle-timeout T       stop after T without a message (e.g. 500ms, 30s, 2m; a bare number is seconds)
  --duration T           stop after T in all

Exit codes: 0 every message conforms (warnings allowed), 1 a message does not conform, 2 usage error
or no message read (an empty file or stdin, a broker that delivered nothing: nothing was checked; see
--allow-empty), 3 the run broke. Control characters from the input are printed as escapes (\x1b).
`;

interface EventsIo extends CliIo {
  /** Read for "-" instead of process.stdin (tests). */
  stdin?: NodeJS.ReadableStream;
}

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`${name} expects a positive integer, got "${value}"`);
  }
  return Number(value);
}

/** "500ms", "30s", "2m", or a bare number of seconds, in milliseconds. */
export function durationMs(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${name} expects a duration such as 500ms, 30s or 2m, got "${value}"`);
  const amount = Number(match[1]);
  const unit = match[2] ?? "s";
  return Math.round(amount * (unit === "ms" ? 1 : unit === "s" ? 1000 : 60_000));
}

function formatProblem(problem: EventProblem): string {
  const level = problem.severity === "warning" ? "warning " : "";
  const where = problem.instancePath === "" ? "message" : problem.instancePath;
  return `${problem.position}: ${level}${problem.rule} at ${where}: ${problem.message}\n`;
}

/** Deepest --max-depth: the checker's own recursion (canonical JSON) stays far from the stack's limit. */
const maxDepthCeiling = 4096;

/** JSON text with the characters JSON.stringify leaves raw but a terminal acts on (C1, separators, bidi) escaped. */
function safeJson(text: string): string {
  return text.replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function summary(result: EventCheckResult): string {
  const lines = [
    `\n${result.source}: ${result.total} message(s), ${result.valid} valid, ${result.invalid} invalid` +
      `${result.warned > 0 ? ` (${result.warned} valid with warnings)` : ""}` +
      `${result.duplicates > 0 ? `, ${result.duplicates} redelivery(ies) of the same payload` : ""}`,
  ];
  const rules = Object.entries(result.byRule).sort(([a], [b]) => a.localeCompare(b));
  for (const [id, count] of rules) lines.push(`  ${id.padEnd(20)} ${count}`);
  if (result.droppedProblems > 0) {
    lines.push(`${result.droppedProblems} more problem(s) counted but not listed (raise --max-problems)`);
  }
  lines.push(
    result.total === 0
      ? "result: NO MESSAGES: nothing was read, so nothing was checked (an empty input is not a conforming stream)"
      : result.invalid === 0
        ? "result: every message conforms"
        : "result: NOT CONFORMANT",
  );
  return `${lines.join("\n")}\n`;
}

async function check(argv: string[], io: EventsIo): Promise<number> {
  let parsed: ReturnType<typeof parseCheckArgs>;
  try {
    parsed = parseCheckArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${checkUsage}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(checkUsage);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] === undefined) {
    throw new UsageError(
      `check expects exactly one source (an NDJSON file, "-" for stdin or an amqp:// URL), got ${positionals.length}\n\n${checkUsage}`,
    );
  }
  const spec = positionals[0];
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json") {
    throw new UsageError(`--format expects text or json, got "${format}"`);
  }
  const maxProblems = positiveInteger("--max-problems", values["max-problems"]) ?? 1000;
  const maxTrackedVersions = positiveInteger("--max-tracked", values["max-tracked"]);
  const maxDepth = positiveInteger("--max-depth", values["max-depth"]);
  if (maxDepth !== undefined && maxDepth > maxDepthCeiling) {
    throw new UsageError(`--max-depth expects at most ${maxDepthCeiling}, got ${maxDepth}`);
  }
  let config: StreamingConfig | undefined;
  if (values.config !== undefined) {
    try {
      config = await loadStreamingConfig(values.config);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  let source: MessageSource;
  try {
    source = await openSource(spec, {
      stdin: io.stdin,
      exchange: values.exchange,
      routingKey: values["routing-key"],
      maxMessages: positiveInteger("--max-messages", values["max-messages"]),
      idleTimeoutMs: durationMs("--idle-timeout", values["idle-timeout"]),
      durationMs: durationMs("--duration", values.duration),
    });
  } catch (error) {
    // A missing file or exchange is the caller's input, not a broken run.
    if (
      error instanceof SourceError ||
      (error instanceof Error && error.name === "AmqpExchangeMissingError")
    ) {
      throw new UsageError(error.message);
    }
    throw error;
  }
  // With --report-dir the messages checked go beside the report as evidence (events.ndjson), as they come.
  const evidence = values["report-dir"] === undefined ? undefined : openEvidence(values["report-dir"]);
  if (evidence !== undefined) source = evidence.tap(source);

  let printed = 0;
  const startedAt = new Date();
  const result = await checkStream(source, {
    config,
    maxProblems,
    ...(maxTrackedVersions === undefined ? {} : { maxTrackedVersions }),
    ...(maxDepth === undefined ? {} : { maxDepth }),
    onProblem: (problem) => {
      evidence?.observe(problem);
      if (format !== "text") return;
      if (printed < maxProblems) io.out(formatProblem(problem));
      printed += 1;
    },
  });
  for (const notice of result.notices) io.err(`${result.source}: ${notice.kind}: ${notice.message}\n`);
  if (format === "json") io.out(`${safeJson(JSON.stringify(result, null, 2))}\n`);
  else io.out(summary(result));
  if (values["report-dir"] !== undefined && evidence !== undefined) {
    const { eventRunResult } = await import("../../events/check/run-result.ts");
    const { writeReport } = await import("../../report/write.ts");
    const { writeManifest } = await import("../../report/manifest.ts");
    const run = eventRunResult(result, {
      command: ["lckit", "events", "check", ...argv].join(" "),
      config: config !== undefined,
      startedAt,
      runId: evidence.runId,
    });
    const written = writeReport(evidence.finish(run, result.problems), values["report-dir"]);
    writeManifest(written.dir, evidence.runId);
    io.err(`report written to ${written.dir}\n`);
  }
  if (result.total === 0) {
    if (values["allow-empty"]) return 0;
    io.err(
      `no message was read from ${result.source}: nothing was checked. Check the path, the exchange and routing key, or the producer; pass --allow-empty if an empty stream is expected\n`,
    );
    return 2;
  }
  return result.invalid === 0 ? 0 : 1;
}

/** The report folder and its events.ndjson, made before any message is read: a folder that cannot be
 *  written is a usage error, not a lost check. */
function openEvidence(reportDir: string): EventEvidence {
  try {
    return new EventEvidence(reportDir);
  } catch (error) {
    throw new UsageError(
      `--report-dir ${reportDir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? String(error)}); give a writable directory`,
    );
  }
}

function parseCheckArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: "string" },
      format: { type: "string" },
      "max-problems": { type: "string" },
      "max-tracked": { type: "string" },
      "max-depth": { type: "string" },
      "allow-empty": { type: "boolean" },
      "report-dir": { type: "string" },
      exchange: { type: "string" },
      "routing-key": { type: "string" },
      "max-messages": { type: "string" },
      "idle-timeout": { type: "string" },
      duration: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

export const command: Command = {
  summary: "check event messages (files, stdin, a broker) or publish generated streams",
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub === "--help" || sub === "-h" || sub === "help") {
      io.out(usage);
      return 0;
    }
    if (sub === "check") return check(rest, io);
    if (sub === "publish") {
      const { publishCommand } = await import("./events-publish.ts");
      return publishCommand.run(rest, io);
    }
    if (sub === undefined) throw new UsageError(`a subcommand is required\n\n${usage}`);
    throw new UsageError(`unknown subcommand "${sub}"; expected check or publish\n\n${usage}`);
  },
};
