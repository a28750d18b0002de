// `lckit events publish`: sends a seeded, realistic event stream (see src/events/generate/stream.ts) to a broker
// exchange or an NDJSON file, optionally with re-sends, reordering and a known set of invalid messages,
// so that a consumer or the kit's own checker can be tried against a stream whose defects are known.
import type { StreamManifest } from "../../events/generate/index.ts";
import { ndjsonLine } from "../../events/transport/sinks/file.ts";
import type { MessageSink } from "../../events/transport/transport.ts";
import { type PublishRequest, publishEvents } from "../../session/events-publish.ts";
import { option, toggle, type Values } from "../argv.ts";
import { defineCommand } from "../command.ts";
import { integer, oneOf, text } from "../flags.ts";
import { type CliIo, UsageError } from "../io.ts";

const spec = {
  name: "events publish",
  summary: "publish a generated event stream to an AMQP exchange, an AMQP 1.0 address or an NDJSON file",
  about: `Publishes a generated event stream (entity lifecycles, relationships with their ENTITY_CHANGED companions,
interactions, change requests, large-object fallbacks; objectVersion rising per object).`,
  flags: {
    to: option("amqp://...|amqp1://...|FILE.ndjson", destination, 'where to publish; "-" is stdout', {
      defaultText: "$LCKIT_AMQP_URL, else NDJSON on stdout",
      example: "stream.ndjson",
    }),
    exchange: option("X", text, "AMQP exchange (declared as a durable topic exchange when absent)", {
      default: "lckit.events",
    }),
    "routing-key": option("K", text, "AMQP routing key", {
      defaultText: "events.<tenant>",
      example: "events.acme",
    }),
    address: option(
      "ADDRESS",
      text,
      "amqp1:// and amqp1s://: the queue, topic or address to send to (RabbitMQ 3: /exchange/EXCHANGE/KEY " +
        "or /amq/queue/NAME); the headers travel as application properties, the payload as a data section",
      { defaultText: "the URL's path", example: "orders" },
    ),
    ca: option("FILE", text, "amqp1s://: PEM file of the CA that signed the broker's certificate", {
      example: "broker-ca.pem",
    }),
    tenant: option("T", text, "tenantId of the messages", { default: "acme" }),
    payload: option(
      "snapshot|deltas|mixed",
      oneOf(["snapshot", "deltas", "mixed"]),
      "payloadType of the stream (mixed fits no single configuration)",
      { default: "snapshot" as const },
    ),
    count: option(
      "N",
      integer({ min: 0, example: "100" }),
      "messages to send, re-sends and invalid ones included",
      { default: 100 },
    ),
    rate: option("N/s", rate, "at most N messages per second", {
      defaultText: "as fast as the target takes them",
      example: "200/s",
    }),
    seed: option(
      "N",
      integer({ example: "1" }),
      "seed of the stream; the same seed gives the same messages",
      {
        default: 1,
      },
    ),
    duplicates: option("P", probability, "probability of an exact re-send of a message, 0 <= P < 1", {
      default: 0,
      example: "0.1",
    }),
    reorder: option(
      "W",
      integer({ min: 0, example: "5" }),
      "messages arrive up to W places from their order of creation",
      { default: 0 },
    ),
    invalid: option(
      "N",
      integer({ min: 0, example: "4" }),
      "inject N invalid messages, each breaking one named rule",
      { default: 0 },
    ),
    manifest: option(
      "FILE",
      text,
      "write the manifest (invalid positions and their rule ids, and the streaming configuration to check " +
        "the stream with) as JSON",
      { example: "manifest.json" },
    ),
    "preferred-shapes": toggle(
      "only the kit's preferred shapes (default: every legal shape: deltas as a bare {ovChanged, delta} " +
        "collection or another object, fallbacks whose URI is only in the header, types in neither of the " +
        "document's lists, re-sends serialized again, deeply nested attribute values)",
    ),
  },
  notes: "Exit codes: 0 published, 2 bad options, 3 the target failed.",
};

function destination(raw: string, flag: string): string {
  if (!/^amqp1?s?:\/\//.test(raw) && raw !== "-" && !raw.endsWith(".ndjson") && !raw.endsWith(".jsonl"))
    throw new UsageError(
      `${flag} expects amqp://... (AMQP 0-9-1), amqp1://... or amqp1s://... (AMQP 1.0), a FILE.ndjson or "-" (stdout), got "${raw}"`,
    );
  return raw;
}

function rate(raw: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(raw);
  if (!match || Number(match[1]) <= 0)
    throw new UsageError(`${flag} expects messages per second such as 200 or 200/s, got "${raw}"`);
  return Number(match[1]);
}

/** A probability such as 0.1, .5 or 0. The expression /^\d*\.?\d+$/ tried every split of a run of
 *  digits between \d* and \d+, quadratic in the run (160,000 digits took 11 s); this one reads the same
 *  texts with one way to split them. */
export function probability(raw: string, flag: string): number {
  const value = Number(raw);
  if (!/^(?:\d*\.)?\d+$/.test(raw) || !(value >= 0 && value < 1))
    throw new UsageError(`${flag} expects a probability 0 <= P < 1, got "${raw}"; e.g. ${flag} 0.1`);
  return value;
}

function publishOptions(values: Values<typeof spec.flags>, io: CliIo): PublishRequest {
  if (values.invalid > values.count)
    throw new UsageError(`--invalid (${values.invalid}) cannot exceed --count (${values.count})`);
  const to = values.to ?? io.env.LCKIT_AMQP_URL ?? "-";
  // The environment's URL is checked like the flag's: a typo there is as much a usage error.
  if (values.to === undefined) destination(to, "LCKIT_AMQP_URL");
  return {
    cwd: io.cwd,
    to,
    payload: values.payload,
    exchange: values.exchange,
    routingKey: values["routing-key"],
    tenant: values.tenant,
    count: values.count,
    rate: values.rate,
    seed: values.seed,
    duplicates: values.duplicates,
    reorder: values.reorder,
    invalid: values.invalid,
    manifest: values.manifest,
    variety: !values["preferred-shapes"],
    address: values.address,
    ca: values.ca,
  };
}

/** Writes NDJSON lines through the CLI's stdout. */
function stdoutSink(io: CliIo): MessageSink {
  return {
    description: "stdout",
    async publish(message) {
      io.out(`${ndjsonLine(message)}\n`);
    },
    async close() {},
  };
}

function summary(manifest: StreamManifest): string {
  const rules = Object.entries(manifest.byRule)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, n]) => `${id} x${n}`)
    .join(", ");
  return (
    `${manifest.total} message(s): ${manifest.valid} valid, ${manifest.invalid} invalid${rules ? ` (${rules})` : ""}, ` +
    `${manifest.duplicates} re-sent, ${manifest.displaced} out of order; seed ${manifest.seed}`
  );
}

export const publish = defineCommand(spec, async ({ values }, io) => {
  const options = publishOptions(values, io);
  const outcome = await publishEvents({ ...options, stdout: stdoutSink(io) });
  if (outcome.kind === "not-opened") {
    io.err(
      `lckit events publish: cannot open ${options.to.replace(/\/\/[^@/]*@/, "//***@")}: ${outcome.why}\n`,
    );
    return 3;
  }
  if (outcome.kind === "failed") {
    io.err(`lckit events publish: publishing to ${outcome.to} failed: ${outcome.why}\n`);
    return 3;
  }
  const report = `published to ${outcome.to}: ${summary(outcome.manifest)}; ${outcome.seconds.toFixed(2)} s\n`;
  if (options.to === "-") io.err(report);
  else io.out(report);
  return 0;
});
