// lckit events consumer check: a team's event consumer run on a stream whose final state the kit knows,
// its view judged by the consumer rules. The session is src/commands/consumer/session.ts; this file parses,
// prints and maps the result to an exit code.
import { resolve } from "node:path";
import {
  CONSUMER_CHECK_DEFAULTS,
  CONSUMER_ENV,
  DELIVERIES,
  type Delivery,
} from "../../commands/consumer/request.ts";
import type { ConsumerCheckRun } from "../../commands/consumer/result.ts";
import { runConsumerSession } from "../../commands/consumer/session.ts";
import {
  type ConsumerSweepRun,
  consumerProgressLine,
  consumerSweepClosing,
} from "../../commands/consumer/sweep.ts";
import { CONSUMER_RULES } from "../../events/consumer/consumer-rules.ts";
import { VIEW_FORMAT } from "../../events/consumer/consumer-view.ts";
import {
  PRODUCER_CHOICES,
  type ProducerChoice,
  producerChoice,
} from "../../events/consumer/producer-choices.ts";
import { defaultStreamCacheDir } from "../../events/consumer/stream-cache.ts";
import { failOnOf } from "../../result/verdict.ts";
import { whileStoppable } from "../../session/signals.ts";
import { option, parseArgv, toggle } from "../argv.ts";
import type { LeafCommand } from "../command.ts";
import { commandCheckSummary, sessionPrinter } from "../command-check-summary.ts";
import { integer, oneOf, text } from "../flags.ts";
import { commandHelp } from "../help.ts";
import { UsageError } from "../io.ts";
import { choiceList, commandTimeoutFlag, failOnFlag, parallelFlag } from "../judging-flags.ts";

const spec = {
  name: "events consumer",
  summary: "run your event consumer on a stream whose final state the kit knows, and judge its view",
  synopsis: "check [options] -- COMMAND [ARG...]",
  about: `Generates a seeded event stream (reordering within an object, re-sends, large-object fallbacks, event
types in neither of the document's lists, snapshot or deltas) whose final state per object it knows,
delivers it to COMMAND, and judges the view COMMAND writes by the consumer rules (CONSUMER-*):
${CONSUMER_RULES.map((r) => `  ${r.id} (${r.level})`).join("\n")}
Deliveries (--delivery): file (LCKIT_EVENTS_FILE, one {"headers", "payload"} per line, in delivery order),
stdin (the same lines), pubsub-push and sns-push (the kit POSTs each message to http://127.0.0.1:
$LCKIT_PUSH_PORT/ as a Pub/Sub push request or an SNS notification; a 2xx acknowledges it, anything else
is sent again after a back-off; when every message is acknowledged the kit sends SIGTERM), rabbitmq (a
queue of the kit's own on the broker, LCKIT_AMQP_URL and LCKIT_AMQP_QUEUE; stop after LCKIT_MESSAGES
messages, or on the SIGTERM the kit sends once the queue has stayed empty for a second), amqp1 (the
stream sent to the AMQP 1.0 address before the command starts, LCKIT_AMQP1_URL and LCKIT_AMQP1_ADDRESS;
stop after LCKIT_MESSAGES messages). Their broker is --broker, or without it a RabbitMQ node the kit
starts for the check from Debian's rabbitmq-server (loopback, free ports, a folder under the temp dir;
one node for all --variants) and stops by its PIDs when the check ends, however it ends.
The command gets:
  ${CONSUMER_ENV.slice(0, 6).join(", ")},
  ${CONSUMER_ENV.slice(6).join(", ")}.
The view: write to LCKIT_VIEW_FILE, when your input ends or on SIGTERM,
  ${VIEW_FORMAT.replace(": {", ":\n  {")}.
Attributes are judged only on snapshot streams; objects not in the view are not judged (the verdict counts
them). With --variants, one run per producer choice, a folder per choice, sweep.json, junit.xml and
summary.md (docs/consumers.md).`,
  flags: {
    delivery: option("D", oneOf(DELIVERIES), "how the stream reaches your consumer", {
      default: "file",
      example: "stdin",
    }),
    broker: option(
      "URL",
      text,
      "the broker: of --delivery rabbitmq amqp://user:password@host:port (the kit declares a queue of its own there and deletes it after); of --delivery amqp1 amqp1://user:password@host:port/ADDRESS (a queue for this check only). Default: a RabbitMQ node the kit starts (sudo apt-get install rabbitmq-server; LCKIT_RABBITMQ_SERVER names another server script)",
      { example: "amqp://guest:guest@127.0.0.1:5672" },
    ),
    variants: option(
      "LIST",
      text,
      `producer choices: all, all,-NAME,... (all but those), or a comma list of ${PRODUCER_CHOICES.map((c) => c.name).join(", ")}; default snapshot`,
      { example: "all" },
    ),
    seed: option("N", integer({ min: 0, example: "1" }), "the stream's seed", {
      default: CONSUMER_CHECK_DEFAULTS.seed,
      example: "1",
    }),
    messages: option(
      "N",
      integer({ min: 1, max: 1_000_000, example: "1000" }),
      "messages the generator makes (re-sends of the choice come on top)",
      { default: CONSUMER_CHECK_DEFAULTS.messages, example: "1000" },
    ),
    parallel: parallelFlag(CONSUMER_CHECK_DEFAULTS.parallel),
    timeout: commandTimeoutFlag(CONSUMER_CHECK_DEFAULTS.timeoutMs),
    "report-dir": option("DIR", text, "where the report (json, junit, markdown, html) goes", {
      default: CONSUMER_CHECK_DEFAULTS.reportDir,
      example: "reports",
    }),
    format: option("F", oneOf(["text", "json"]), "text or json (the run result, or the sweep, on stdout)", {
      default: "text",
      example: "json",
    }),
    "stream-cache": option(
      "DIR",
      text,
      "where streams of --delivery file and stdin and their truth are kept between runs (a later run of the same --seed, --messages and producer choice starts the consumer at once on the kept file); off: none kept",
      { defaultText: "$LCKIT_CACHE_DIR, $XDG_CACHE_HOME/lckit or ~/.cache/lckit", example: "off" },
    ),
    quiet: toggle("do not pass the command's output through (it goes to stderr otherwise)"),
    "fail-on": failOnFlag,
  },
  notes: `Exit codes: 0 your consumer passed (under every choice); 1 a MUST consumer rule broke, the view was
malformed or your command failed (or, with --fail-on not-exercised, a MUST rule was not exercised); 2 usage
error, a command not found, no view written or nothing consumed; 3 the command hung past --timeout or was
killed (its process group is stopped); 4 the kit was stopped (Ctrl-C, SIGTERM): the report is partial.`,
};

function choicesOf(raw: string | undefined): ProducerChoice[] {
  if (raw === undefined) return [PRODUCER_CHOICES[0] as ProducerChoice];
  const known = PRODUCER_CHOICES.map((choice) => choice.name);
  const names = choiceList(raw, known, "producer choices", `(known: ${known.join(", ")})`);
  return names.map((name) => producerChoice(name) as ProducerChoice);
}

function streamCacheOf(
  raw: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { streamCache?: string } {
  if (raw === "off") return {};
  return { streamCache: raw === undefined ? defaultStreamCacheDir(env) : resolve(cwd, raw) };
}

export const consumer: LeafCommand<typeof spec.flags> = {
  spec,
  summary: spec.summary,
  async run(argv, io, siblings = []) {
    const split = argv.indexOf("--");
    const own = split < 0 ? argv : argv.slice(0, split);
    const command = split < 0 ? [] : argv.slice(split + 1);
    const [sub, ...flags] = own;
    if (sub === "--help" || sub === "-h" || sub === "help" || (sub === "check" && flags.includes("--help"))) {
      io.out(commandHelp(spec, siblings));
      return 0;
    }
    if (sub !== "check")
      throw new UsageError(
        `lckit events consumer takes the subcommand check: lckit events consumer check -- node consumer.mjs`,
      );
    const parsed = parseArgv(spec, flags, { cwd: io.cwd });
    if (parsed.help) {
      io.out(commandHelp(spec, siblings));
      return 0;
    }
    if (command.length === 0)
      throw new UsageError(
        "no command to run: give it after --, e.g. lckit events consumer check -- node consumer.mjs",
      );
    const v = parsed.values;
    const choices = choicesOf(v.variants);
    const env = { ...process.env, ...io.env };
    const printer = sessionPrinter(io, v.format as "text" | "json", {
      name: "consumer check",
      choiceWord: "producer",
      summary: (run: ConsumerCheckRun) => commandCheckSummary(run.result, run.outcome),
      progress: consumerProgressLine,
      closing: consumerSweepClosing,
      choiceOf: (entry: ConsumerSweepRun) => entry.choice.name,
    });
    const session = await whileStoppable((signal) =>
      runConsumerSession(
        {
          argv: command,
          choices,
          reportRoot: resolve(io.cwd, v["report-dir"]),
          delivery: v.delivery as Delivery,
          ...(v.broker === undefined ? {} : { brokerUrl: v.broker }),
          ...(env.LCKIT_RABBITMQ_SERVER ? { rabbitmqServer: env.LCKIT_RABBITMQ_SERVER } : {}),
          progress: (line: string) => io.err(line),
          seed: v.seed,
          count: v.messages,
          ...streamCacheOf(v["stream-cache"], env, io.cwd),
          timeoutMs: v.timeout,
          parallel: v.parallel,
          cwd: io.cwd,
          env,
          signal,
          failOn: failOnOf(v["fail-on"]),
          ...(v["fail-on"].includes("not-exercised") ? { requireExercised: true } : {}),
          ...(v.quiet ? {} : { output: (chunk: string) => io.err(chunk) }),
        },
        printer.events,
      ),
    );
    return printer.print(session);
  },
};
