// The consumer check's request: the options a caller gives (the library, the session, the CLI's flags),
// their defaults in one table, and the request they resolve to (checked first, so nothing starts on a
// request that cannot run), with the environment the consumer's command gets.
import { DEFAULT_CHOICE, type ProducerChoice } from "../../events/consumer/producer-choices.ts";
import { UserInputError } from "../../usage-error.ts";
import type { CommandCheckOptions } from "../command-run.ts";

export const DELIVERIES = ["file", "stdin", "pubsub-push", "sns-push", "rabbitmq", "amqp1"] as const;
export type Delivery = (typeof DELIVERIES)[number];

/** Every option default of the consumer check, in one place: the library, the session and the CLI's flags
 *  (lckit events consumer check) read them here. */
export const CONSUMER_CHECK_DEFAULTS = {
  delivery: "file" as Delivery,
  choice: DEFAULT_CHOICE,
  seed: 1,
  /** Messages the generator makes. */
  messages: 1000,
  timeoutMs: 120_000,
  /** Runs at once with several producer choices. */
  parallel: 2,
  reportDir: "reports",
} as const;

/** The deliveries through a broker: the team's (--broker) or a node the kit starts. */
export const BROKER_DELIVERIES: ReadonlySet<Delivery> = new Set(["rabbitmq", "amqp1"]);

/** The environment the consumer's command gets (documented in docs/consumers.md). */
export const CONSUMER_ENV = [
  "LCKIT_DELIVERY",
  "LCKIT_EVENTS_FILE",
  "LCKIT_PUSH_PORT",
  "LCKIT_PUSH_URL",
  "LCKIT_AMQP_URL",
  "LCKIT_AMQP_QUEUE",
  "LCKIT_AMQP1_URL",
  "LCKIT_AMQP1_ADDRESS",
  "LCKIT_VIEW_FILE",
  "LCKIT_TENANT",
  "LCKIT_VARIANT",
  "LCKIT_SEED",
  "LCKIT_MESSAGES",
] as const;

export interface ConsumerCheckOptions extends CommandCheckOptions {
  delivery?: Delivery;
  /** The broker: of the rabbitmq delivery amqp://user:password@host:port, of the amqp1 delivery
   *  amqp1://user:password@host:port/ADDRESS. Absent: the kit starts a RabbitMQ node of its own. */
  brokerUrl?: string;
  /** A node the kit started (withKitBroker), shared by the runs of a sweep: its AMQP 0-9-1 URL; each run
   *  declares a queue of its own there. */
  kitBroker?: { url: string };
  /** The rabbitmq-server script of the node the kit starts (default Debian's). */
  rabbitmqServer?: string;
  /** Progress of the node the kit starts, a line at a time (stderr in the CLI). */
  progress?: (line: string) => void;
  choice?: ProducerChoice;
  seed?: number;
  /** Messages the generator makes (re-sends added for the choice come on top). */
  count?: number;
  /** A folder of streams kept between runs (file and stdin deliveries): a kept stream lets the consumer
   *  start at once while the kit reads its truth. Undefined: none kept. */
  streamCache?: string;
}

export class ConsumerCheckError extends UserInputError {
  override name = "ConsumerCheckError";
}

/** A request the check can run: every option resolved to its value. */
export interface ConsumerCheckRequest {
  options: ConsumerCheckOptions;
  argv: string[];
  delivery: Delivery;
  choice: ProducerChoice;
  seed: number;
  count: number;
  timeoutMs: number;
}

/** The request of these options, or "kit-broker" when its delivery goes through a broker and none was
 *  named (withKitBroker starts one and asks again); a ConsumerCheckError naming the fix when it cannot run. */
export function consumerCheckRequest(options: ConsumerCheckOptions): ConsumerCheckRequest | "kit-broker" {
  if (options.argv.length === 0)
    throw new ConsumerCheckError(
      "no command to run: give it after --, e.g. lckit events consumer check -- node consumer.mjs",
    );
  const delivery = options.delivery ?? CONSUMER_CHECK_DEFAULTS.delivery;
  if (options.brokerUrl === "")
    throw new ConsumerCheckError(
      `--broker is empty: give the URL of a running broker, or leave --broker out and the kit starts RabbitMQ`,
    );
  if (BROKER_DELIVERIES.has(delivery) && options.brokerUrl === undefined && !options.kitBroker)
    return "kit-broker";
  if (delivery === "amqp1" && !options.kitBroker && !/^amqp1s?:\/\/[^/]+\/./.test(options.brokerUrl ?? ""))
    throw new ConsumerCheckError(
      "the amqp1 delivery needs an AMQP 1.0 address: give --broker amqp1://user:password@host:port/ADDRESS (a queue for this check only)",
    );
  return {
    options,
    argv: options.argv,
    delivery,
    choice: options.choice ?? CONSUMER_CHECK_DEFAULTS.choice,
    seed: options.seed ?? CONSUMER_CHECK_DEFAULTS.seed,
    count: options.count ?? CONSUMER_CHECK_DEFAULTS.messages,
    timeoutMs: options.timeoutMs ?? CONSUMER_CHECK_DEFAULTS.timeoutMs,
  };
}

/** The command's environment: the caller's, with this run's LCKIT_* variables only (none is inherited). */
export function commandEnv(
  request: ConsumerCheckRequest,
  viewFile: string,
  messages: number,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...(request.options.env ?? process.env) };
  for (const name of CONSUMER_ENV) delete env[name];
  Object.assign(env, {
    LCKIT_DELIVERY: request.delivery,
    LCKIT_VIEW_FILE: viewFile,
    LCKIT_TENANT: "acme",
    LCKIT_VARIANT: request.choice.name,
    LCKIT_SEED: String(request.seed),
    LCKIT_MESSAGES: String(messages),
  });
  return env;
}

/** The replay command of a run: the same stream, the same delivery. */
export function replayCommand(options: {
  argv: string[];
  delivery: Delivery;
  choice: ProducerChoice;
  seed: number;
  count: number;
}): string {
  const quoted = options.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  return `lckit events consumer check --seed ${options.seed} --messages ${options.count} --variants ${options.choice.name} --delivery ${options.delivery} -- ${quoted.join(" ")}`;
}
