// `lckit events publish`: sends a seeded, realistic event stream (see src/events/generate/stream.ts) to a broker
// exchange or an NDJSON file, optionally with re-sends, reordering and a known set of invalid messages,
// so that a consumer or the kit's own checker can be tried against a stream whose defects are known.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { generateStream, type PayloadType, type StreamManifest } from "../../events/generate/index.ts";
import { openAmqpSink } from "../../events/transport/sinks/amqp.ts";
import { ndjsonLine, openFileSink } from "../../events/transport/sinks/file.ts";
import type { MessageSink } from "../../events/transport/transport.ts";
import type { Command } from "../command.ts";
import type { CliIo } from "../io.ts";
import { UsageError } from "../io.ts";

const help = `Usage: lckit events publish [options]

Publishes a generated event stream (entity lifecycles, relationships with their ENTITY_CHANGED companions,
interactions, change requests, large-object fallbacks; objectVersion rising per object).

Options:
  --to amqp://...|FILE.ndjson  where to publish (default: $LCKIT_AMQP_URL, else NDJSON on stdout; "-" is stdout)
  --exchange X                 AMQP exchange (default lckit.events; declared as a durable topic exchange when absent)
  --routing-key K              AMQP routing key (default events.<tenant>)
  --tenant T                   tenantId of the messages (default acme)
  --payload snapshot|deltas|mixed  payloadType of the stream (default snapshot; mixed fits no single configuration)
  --count N                    messages to send, re-sends and invalid ones included (default 100)
  --rate N/s                   at most N messages per second (default: as fast as the target takes them)
  --seed N                     seed of the stream; the same seed gives the same messages (default 1)
  --duplicates P               probability of an exact re-send of a message, 0 <= P < 1 (default 0)
  --reorder W                  messages arrive up to W places from their order of creation (default 0)
  --invalid N                  inject N invalid messages, each breaking one named rule (default 0)
  --manifest FILE              write the manifest (invalid positions and their rule ids, and the
                               streaming configuration to check the stream with) as JSON
  --preferred-shapes           only the kit's preferred shapes (default: every legal shape: deltas as a
                               bare {ovChanged, delta} collection or another object, fallbacks whose URI
                               is only in the header, types in neither of the document's lists, re-sends
                               serialized again, deeply nested attribute values)
  --help                       this text

Exit codes: 0 published, 2 bad options, 3 the target failed.
`;

interface PublishOptions {
  to: string;
  exchange: string;
  routingKey?: string;
  tenant: string;
  payload: PayloadType;
  count: number;
  rate?: number;
  seed: number;
  duplicates: number;
  reorder: number;
  invalid: number;
  manifest?: string;
  variety: boolean;
}

const valueFlags = new Set([
  "--to",
  "--exchange",
  "--routing-key",
  "--tenant",
  "--payload",
  "--count",
  "--rate",
  "--seed",
  "--duplicates",
  "--reorder",
  "--invalid",
  "--manifest",
]);

function integer(flag: string, text: string, min: number): number {
  if (!/^-?\d+$/.test(text) || Number(text) < min)
    throw new UsageError(`${flag} expects an integer >= ${min}, got "${text}"`);
  return Number(text);
}

function parse(argv: string[], io: CliIo): PublishOptions | "help" {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? "";
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--preferred-shapes") {
      given.set(arg, "true");
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!valueFlags.has(flag))
      throw new UsageError(
        `unknown option "${flag}" for events publish. Run \`lckit events publish --help\` for the options.`,
      );
    let value: string | undefined;
    if (eq > 0 && arg.startsWith("--")) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    if (given.has(flag)) throw new UsageError(`${flag} was given twice`);
    given.set(flag, value);
  }
  const rateText = given.get("--rate");
  let rate: number | undefined;
  if (rateText !== undefined) {
    const match = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(rateText);
    if (!match || Number(match[1]) <= 0)
      throw new UsageError(`--rate expects messages per second such as 200 or 200/s, got "${rateText}"`);
    rate = Number(match[1]);
  }
  const duplicatesText = given.get("--duplicates") ?? "0";
  const duplicates = Number(duplicatesText);
  if (!/^\d*\.?\d+$/.test(duplicatesText) || !(duplicates >= 0 && duplicates < 1))
    throw new UsageError(`--duplicates expects a probability 0 <= P < 1, got "${duplicatesText}"`);
  const count = integer("--count", given.get("--count") ?? "100", 0);
  const invalid = integer("--invalid", given.get("--invalid") ?? "0", 0);
  if (invalid > count) throw new UsageError(`--invalid (${invalid}) cannot exceed --count (${count})`);
  const to = given.get("--to") ?? io.env.LCKIT_AMQP_URL ?? "-";
  if (!/^amqps?:\/\//.test(to) && to !== "-" && !to.endsWith(".ndjson") && !to.endsWith(".jsonl"))
    throw new UsageError(`--to expects amqp://..., a FILE.ndjson or "-" (stdout), got "${to}"`);
  const payload = given.get("--payload") ?? "snapshot";
  if (payload !== "snapshot" && payload !== "deltas" && payload !== "mixed")
    throw new UsageError(`--payload expects snapshot, deltas or mixed, got "${payload}"`);
  return {
    to,
    payload,
    exchange: given.get("--exchange") ?? "lckit.events",
    routingKey: given.get("--routing-key"),
    tenant: given.get("--tenant") ?? "acme",
    count,
    rate,
    seed: integer("--seed", given.get("--seed") ?? "1", Number.MIN_SAFE_INTEGER),
    duplicates,
    reorder: integer("--reorder", given.get("--reorder") ?? "0", 0),
    invalid,
    manifest: given.get("--manifest"),
    variety: !given.has("--preferred-shapes"),
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

export const publishCommand: Command = {
  summary: "publish a generated event stream to an AMQP exchange or an NDJSON file",
  async run(argv, io) {
    const options = parse(argv, io);
    if (options === "help") {
      io.out(help);
      return 0;
    }
    const { messages, manifest } = generateStream({
      seed: options.seed,
      count: options.count,
      tenantId: options.tenant,
      payloadType: options.payload,
      duplicates: options.duplicates,
      reorderWindow: options.reorder,
      invalid: { count: options.invalid },
      variety: options.variety,
    });
    if (options.manifest)
      writeFileSync(resolve(io.cwd, options.manifest), `${JSON.stringify(manifest, null, 2)}\n`);

    let sink: MessageSink;
    try {
      sink = /^amqps?:\/\//.test(options.to)
        ? await openAmqpSink(options.to, {
            exchange: options.exchange,
            routingKey: options.routingKey ?? `events.${options.tenant}`,
            declare: { type: "topic", durable: true },
          })
        : options.to === "-"
          ? stdoutSink(io)
          : await openFileSink(resolve(io.cwd, options.to));
    } catch (error) {
      io.err(
        `lckit events publish: cannot open ${options.to.replace(/\/\/[^@/]*@/, "//***@")}: ${String(error)}\n`,
      );
      return 3;
    }
    const began = Date.now();
    try {
      for (const [index, message] of messages.entries()) {
        if (options.rate !== undefined) {
          // Pace by schedule, not by per-message sleeps, so the average rate holds.
          const due = began + (index / options.rate) * 1000;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        await sink.publish(message);
      }
      await sink.close();
    } catch (error) {
      await sink.close().catch(() => {});
      io.err(`lckit events publish: publishing to ${sink.description} failed: ${String(error)}\n`);
      return 3;
    }
    const seconds = (Date.now() - began) / 1000;
    const report = `published to ${sink.description}: ${summary(manifest)}; ${seconds.toFixed(2)} s\n`;
    if (options.to === "-") io.err(report);
    else io.out(report);
    return 0;
  },
};
