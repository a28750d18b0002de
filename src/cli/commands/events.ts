// `lckit events`: check event messages (NDJSON file, stdin, AMQP broker) against the event contract;
// `lckit events publish` is dispatched to its own module.
import type { KeyObject } from "node:crypto";
import { resolve } from "node:path";
import { CheckInconclusive } from "../../check/index.ts";
import type { EventProblem } from "../../events/check/event-problem.ts";
import { checkStream, type EventCheckResult } from "../../events/check/event-stream.ts";
import { formatGroup, ProblemGroups } from "../../events/check/problem-groups.ts";
import { loadStreamingConfig, type StreamingConfig } from "../../events/streaming-config.ts";
import { openSource, SourceError } from "../../events/transport/sources/index.ts";
import type { MessageSource } from "../../events/transport/transport.ts";
import { EventEvidence } from "../../report/event-evidence.ts";
import { loadSignKey, SignKeyError } from "../../report/manifest.ts";
import { notCheckableLines } from "../../report/not-checkable.ts";
import { option, toggle } from "../argv.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { duration, existingPath, integer, oneOf, text } from "../flags.ts";
import { commandHelp } from "../help.ts";
import { type CliIo, UsageError } from "../io.ts";
import { consumer } from "./events-consumer.ts";
import { publish } from "./events-publish.ts";

const broker = "Broker options (amqp:// sources)";
const broker1 = "AMQP 1.0 options (amqp1:// and amqp1s:// sources)";

/** The broker's time limits: a bare number has always meant seconds there. */
const brokerTime = duration({ example: "30s", minMs: 0, bareSeconds: true });

const spec = {
  name: "events check",
  summary: "check event messages (an NDJSON file, stdin, an AMQP broker) against the event contract",
  positionals: "<file.ndjson | - | amqp://... | amqp1s://...>",
  about: `Reads event messages and checks each against the event contract, then the stream rules (objectVersion
reuse, GDPR removal, ENTITY_CHANGED companions of reference relationships with their ovChanged). An
NDJSON line is either a bare payload ({"type": ...}) or an envelope {"headers": {...}, "payload": {...}},
or a message as a messaging service writes it (SNS, SQS, Pub/Sub, kcat; see --envelope); "-" reads stdin.
Malformed lines are reported and skipped.`,
  flags: {
    config: option(
      "FILE",
      existingPath({ example: "streaming.json", what: "a streaming configuration file (JSON or YAML)" }),
      "streaming configuration (JSON or YAML: JMSEventsFilteringFields, RelationEventsFilteringFields, " +
        "payloadType, analyzeOvChanges, largeObjectsSupport, and the kit's referenceRelationTypes and " +
        "companionWindow); without it the configuration-dependent rules are not checked",
      { example: "streaming.json" },
    ),
    format: option(
      "F",
      oneOf(["text", "json"]),
      "text: one line per problem and a summary; json: the result object",
      {
        default: "text",
      },
    ),
    "max-problems": option("N", integer({ min: 1, example: "100" }), "problems listed; all are counted", {
      default: 1000,
    }),
    "max-tracked": option(
      "N",
      integer({ min: 1, example: "50000" }),
      "(uri, objectVersion) pairs the stream rules remember (about 90 bytes each), and entities the " +
        "companion and reference rules hold at most; past it the objects seen longest ago are forgotten, " +
        "so memory stays flat, and a notice says what was no longer compared",
      { defaultText: "200000, about 18 MB" },
    ),
    "companion-window": option(
      "N",
      integer({ min: 1, example: "1000" }),
      "messages before or after a relationship event of a reference relation type its ENTITY_CHANGED " +
        "companion may be (overrides companionWindow.messages of --config)",
      { defaultText: "1000" },
    ),
    "companion-window-time": option(
      "T",
      duration({ example: "60s", minMs: 0 }),
      "event time (updatedTime, delta timestamp) before or after within which the companion also counts; " +
        "0s: messages only (overrides companionWindow.seconds)",
      { defaultText: "60s" },
    ),
    "max-depth": option(
      "N",
      // The checker's own recursion (canonical JSON) stays far from the stack's limit below this ceiling.
      integer({ min: 1, max: 4096, example: "512" }),
      "nesting of objects and arrays inspected per message; a deeper message is reported for its line and " +
        "the run goes on",
      { defaultText: "512" },
    ),
    "max-line-bytes": option(
      "N",
      // A string of more than about 512 M characters cannot be made at all; half of that is the ceiling.
      integer({ min: 1, max: 256 * 1024 * 1024, example: "134217728" }),
      "file and stdin: longest line read, in bytes; a longer one is measured, not held, and reported for " +
        "its line, and the run goes on",
      { defaultText: "67108864 (64 MiB)" },
    ),
    envelope: option(
      "auto|none|sns|sqs|pubsub|kafka",
      oneOf(["auto", "none", "sns", "sqs", "pubsub", "kafka"]),
      "file and stdin: the service envelope of each line. sns: an SNS notification (payload in Message, " +
        "headers from MessageAttributes); sqs: ReceiveMessage output or one SQS message (raw or SNS-wrapped " +
        "Body); pubsub: a Pub/Sub message, push or pull form (base64 data, attributes); kafka: a record as " +
        "kcat -J prints it. auto detects each line's form; none reads every line as the kit's NDJSON. " +
        "Pretty-printed documents (a line that is only { or [ starts one) are joined. A " +
        "broken envelope is reported for its line (field, what was expected) and the run goes on",
      { default: "auto" as const },
    ),
    "pass-inconclusive": toggle(
      "a rule that could not decide (a relationship event whose ENTITY_CHANGED companion may come after the " +
        "last message) does not fail the job; it is still reported as undecided, and the report's verdict " +
        "is still INCOMPLETE",
    ),
    "allow-empty": toggle("exit 0 when no message was read (default: exit 2, nothing was checked)"),
    "report-dir": option("DIR", text, "also write the run report (json, junit, markdown, html) under DIR", {
      example: "reports",
    }),
    "sign-key": option(
      "FILE",
      text,
      "with --report-dir: sign the report folder's manifest.json with this Ed25519 private key (PEM), as " +
        "lckit run --sign-key does; check with: lckit report verify <report folder> --public-key PUB.pem",
      { example: "lckit-sign.pem" },
    ),
    exchange: option("X", text, "exchange to bind the checker's own private queue to", {
      defaultText: "lckit.events",
      example: "lckit.events",
      section: broker,
    }),
    "routing-key": option("K", text, "binding key", {
      defaultText: "#",
      example: "events.acme",
      section: broker,
    }),
    "max-messages": option("N", integer({ min: 1, example: "1000" }), "stop after N messages", {
      section: broker,
    }),
    "idle-timeout": option("T", brokerTime, "stop after T without a message (e.g. 500ms, 30s, 2m)", {
      example: "30s",
      section: broker,
    }),
    duration: option("T", brokerTime, "stop after T in all", { example: "2m", section: broker }),
    address: option(
      "ADDRESS",
      text,
      "queue, TOPIC/Subscriptions/SUB or address to read (Service Bus, Artemis, Qpid: the queue's name; " +
        "RabbitMQ 3: /exchange/EXCHANGE/KEY or /amq/queue/NAME)",
      { defaultText: "the URL's path", example: "orders/Subscriptions/lckit", section: broker1 },
    ),
    "amqp1-mode": option(
      "browse|own",
      oneOf(["browse", "own"]),
      "browse: ask the broker for copies (distribution-mode copy), so the queue keeps its messages; refused, " +
        "and nothing read, when the broker cannot browse. own: the address is the kit's own (a subscription made " +
        "for the checker, a RabbitMQ /exchange/X/# private queue) and its messages are consumed",
      { defaultText: "browse", example: "own", section: broker1 },
    ),
    ca: option(
      "FILE",
      existingPath({ example: "broker-ca.pem", what: "a PEM file of the broker's CA" }),
      "amqp1s://: the CA that signed the broker's certificate (PEM), trusted beside the system's",
      { example: "broker-ca.pem", section: broker1 },
    ),
  },
  notes: `Exit codes: 0 every message conforms (warnings allowed), 1 a message does not conform or a rule
could not decide (see --pass-inconclusive), 2 usage error
or no message read (an empty file or stdin, a broker that delivered nothing: nothing was checked; see
--allow-empty), 3 the run broke. Control characters from the input are printed as escapes (\\x1b).`,
};

interface EventsIo extends CliIo {
  /** Read for "-" instead of process.stdin (tests). */
  stdin?: NodeJS.ReadableStream;
}

function formatProblem(problem: EventProblem): string {
  const level = problem.severity === "warning" ? "warning " : "";
  const where = problem.instancePath === "" ? "message" : problem.instancePath;
  return `${problem.position}: ${level}${problem.rule} at ${where}: ${problem.message}\n`;
}

/** JSON text with the characters JSON.stringify leaves raw but a terminal acts on (C1, separators, bidi) escaped. */
function safeJson(text: string): string {
  return text.replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function summary(result: EventCheckResult, passInconclusive: boolean, notCheckable: string[]): string {
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
    result.total === 0
      ? "result: NO MESSAGES: nothing was read, so nothing was checked (an empty input is not a conforming stream)"
      : result.invalid > 0
        ? "result: NOT CONFORMANT"
        : result.inconclusive.length > 0
          ? `result: INCOMPLETE: every message read conforms, but ${result.inconclusive.map((open) => open.rule).join(" and ")} could not decide (UNDECIDED above)`
          : "result: every message conforms",
  );
  return `${lines.join("\n")}\n`;
}

const check = defineCommand(spec, async ({ values, positionals, argv }, io: EventsIo) => {
  if (positionals.length !== 1 || positionals[0] === undefined) {
    throw new UsageError(
      `check expects exactly one source (an NDJSON file, "-" for stdin or an amqp:// URL), got ${positionals.length}\n\n${commandHelp(spec)}`,
    );
  }
  const spec0 = positionals[0];
  refuseOtherProtocolsFlags(spec0, values);
  const format = values.format;
  const maxProblems = values["max-problems"];
  const maxTrackedVersions = values["max-tracked"];
  const maxDepth = values["max-depth"];
  let config: StreamingConfig | undefined;
  if (values.config !== undefined) {
    try {
      config = await loadStreamingConfig(resolve(io.cwd, values.config));
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  // The key is read before any message: a bad key is a usage error, not a checked stream without a signature.
  const signKey = readSignKey(values["sign-key"], values["report-dir"], io.cwd);
  let source: MessageSource;
  try {
    source = await openSource(spec0, {
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
  // Repeated findings (one rule, the same message) are printed once, then summed up after the run.
  const groups = new ProblemGroups();
  const startedAt = new Date();
  const result = await checkStream(source, {
    config,
    maxProblems,
    ...(maxTrackedVersions === undefined ? {} : { maxTrackedVersions }),
    ...(maxDepth === undefined ? {} : { maxDepth }),
    ...(values["companion-window"] === undefined && values["companion-window-time"] === undefined
      ? {}
      : {
          companionWindow: {
            ...(values["companion-window"] === undefined ? {} : { messages: values["companion-window"] }),
            ...(values["companion-window-time"] === undefined ? {} : { ms: values["companion-window-time"] }),
          },
        }),
    onProblem: (problem) => {
      evidence?.observe(problem);
      if (format !== "text" || !groups.add(problem)) return;
      if (printed < maxProblems) io.out(formatProblem(problem));
      printed += 1;
    },
  });
  if (format === "text") for (const group of groups.repeated()) io.out(`${formatGroup(group)}\n`);
  for (const notice of result.notices) io.err(`${result.source}: ${notice.kind}: ${notice.message}\n`);
  // The run result (checks, verdict, coverage) for the report and for the text's not-checkable lines.
  const run =
    format === "text" || evidence !== undefined
      ? (await import("../../events/check/run-result.ts")).eventRunResult(result, {
          command: ["lckit", "events", "check", ...argv].join(" "),
          config: config !== undefined,
          startedAt,
          ...(evidence === undefined ? {} : { runId: evidence.runId }),
        })
      : undefined;
  if (format === "json") io.out(`${safeJson(JSON.stringify(result, null, 2))}\n`);
  else io.out(summary(result, values["pass-inconclusive"], run ? notCheckableLines(run.coverage) : []));
  const reportDir = values["report-dir"];
  if (run !== undefined && evidence !== undefined && reportDir !== undefined) {
    const { writeReportFolder } = await import("../../session/run-session.ts");
    const dir = writeReportFolder(evidence.finish(run, result.problems), reportDir, {
      ...(signKey === undefined ? {} : { signKey }),
    });
    io.err(`report written to ${dir}\n`);
  }
  if (result.total === 0) {
    if (values["allow-empty"]) return 0;
    io.err(
      `no message was read from ${result.source}: nothing was checked. Check the path, the exchange and routing key, or the producer; pass --allow-empty if an empty stream is expected\n`,
    );
    return 2;
  }
  if (result.invalid > 0) return 1;
  // The companion rules are MUST: one that could not decide fails the job, as lckit run's checks do.
  return result.inconclusive.length > 0 && !values["pass-inconclusive"] ? 1 : 0;
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

/** --sign-key's Ed25519 key, read with lckit run's own code; a key without a folder to sign is refused. */
function readSignKey(
  file: string | undefined,
  reportDir: string | undefined,
  cwd: string,
): KeyObject | undefined {
  if (file === undefined) return undefined;
  if (reportDir === undefined)
    throw new UsageError(
      "--sign-key signs the report folder's manifest, but no --report-dir was given; add --report-dir DIR",
    );
  try {
    return loadSignKey(resolve(cwd, file));
  } catch (error) {
    if (error instanceof SignKeyError) throw new UsageError(`--sign-key ${error.message}`);
    throw error;
  }
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

export const command = defineGroup(
  {
    name: "events",
    summary: "check event messages (files, stdin, a broker) or publish generated streams",
  },
  [check, publish, consumer],
);
