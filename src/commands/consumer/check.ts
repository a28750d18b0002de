// lckit events consumer check as a library: generates a stream whose final state it knows (one producer
// choice), delivers it to the team's consumer (a file, stdin, HTTP push or a broker), runs the consumer's
// command with the LCKIT_* variables, stops its process group on a hang, reads the view it wrote and judges
// it by the consumer rules. Nothing is left running and its work folder is removed. The rabbitmq and amqp1
// deliveries run on the team's broker, or on a private RabbitMQ node the kit starts and stops around them.
import { once } from "node:events";
import { createReadStream, existsSync, type FSWatcher, mkdtempSync, rmSync, statSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Writable } from "node:stream";
import {
  RabbitNodeError,
  rabbitNodeMissing,
  startPrivateRabbitNode,
} from "../../events/broker/rabbitmq-node.ts";
import { type DeliveryQueue, openDeliveryQueue } from "../../events/consumer/amqp-queue.ts";
import { type ConsumerJudgement, judgeView, prepareJudging } from "../../events/consumer/consumer-judge.ts";
import { type ConsumerRunMeta, consumerRunResult } from "../../events/consumer/consumer-result.ts";
import {
  type ConsumerStream,
  consumerStream,
  type DeliveredMessage,
  messageLine,
  writeStreamFile,
} from "../../events/consumer/consumer-stream.ts";
import { readView, ViewError } from "../../events/consumer/consumer-view.ts";
import { endpointReady, type PushOutcome, pushMessages } from "../../events/consumer/http-push.ts";
import { DEFAULT_CHOICE, type ProducerChoice } from "../../events/consumer/producer-choices.ts";
import {
  keepStream,
  keptStream,
  releaseKeptStream,
  takeKeptStream,
} from "../../events/consumer/stream-cache.ts";
import { parseAmqp1Url } from "../../events/transport/amqp1-connection.ts";
import { openAmqp1Sink } from "../../events/transport/sinks/amqp1.ts";
import { freePort } from "../../http/free-port.ts";
import { type CatalogueView, loadCatalogueView } from "../../result/catalogue-view.ts";
import { stopSignalOf } from "../../result/client-verdict.ts";
import { specHashes } from "../../result/kit-info.ts";
import type { RunResult } from "../../result/model.ts";
import { DEFAULT_FAIL_ON, type ExitCode, exitCodeOf } from "../../result/verdict.ts";
import { UserInputError } from "../../usage-error.ts";
import { type CommandCheckOptions, type CommandOutcome, runCommand } from "../command-run.ts";

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

export interface ConsumerCheckRun {
  result: RunResult;
  outcome: CommandOutcome;
  /** By the one exit policy (src/result/verdict.ts): 0 the consumer passed; 1 a MUST rule broke, the view
   *  was malformed or the command failed (or, when required, a MUST rule was not exercised); 2 the command
   *  could not be started, wrote no view or consumed nothing; 3 it hung past the time limit or was killed;
   *  4 the kit was stopped (Ctrl-C, SIGTERM). */
  exitCode: ExitCode;
  judgement?: ConsumerJudgement;
  stream: ConsumerStream;
  push?: PushOutcome;
  /** The queue the rabbitmq delivery declared (deleted when the run ends). */
  queue?: string;
}

export class ConsumerCheckError extends UserInputError {
  override name = "ConsumerCheckError";
}

/** Writes the stream to a pipe, waiting whenever the pipe is full. */
async function pipeStream(messages: readonly DeliveredMessage[], input: Writable): Promise<number> {
  let written = 0;
  try {
    for (const message of messages) {
      if (input.destroyed) break;
      if (!input.write(messageLine(message))) await once(input, "drain");
      written += 1;
    }
  } catch {
    // The consumer closed its stdin early: what it read is what it got.
  }
  input.end();
  return written;
}

/** Writes a kept stream's file to a pipe; the count is of the lines written whole. */
async function pipeFile(path: string, input: Writable): Promise<number> {
  let lines = 0;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      if (input.destroyed) break;
      if (!input.write(chunk)) await once(input, "drain");
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
    }
  } catch {
    // The consumer closed its stdin early: what it read is what it got.
  }
  input.end();
  return lines;
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

export async function consumerCheck(options: ConsumerCheckOptions): Promise<ConsumerCheckRun> {
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
    return withKitBroker(options, consumerCheck);
  if (delivery === "amqp1" && !options.kitBroker && !/^amqp1s?:\/\/[^/]+\/./.test(options.brokerUrl ?? ""))
    throw new ConsumerCheckError(
      "the amqp1 delivery needs an AMQP 1.0 address: give --broker amqp1://user:password@host:port/ADDRESS (a queue for this check only)",
    );
  const choice = options.choice ?? CONSUMER_CHECK_DEFAULTS.choice;
  const seed = options.seed ?? CONSUMER_CHECK_DEFAULTS.seed;
  const count = options.count ?? CONSUMER_CHECK_DEFAULTS.messages;
  const timeoutMs = options.timeoutMs ?? CONSUMER_CHECK_DEFAULTS.timeoutMs;
  const work = mkdtempSync(join(tmpdir(), "lckit-consumer-"));
  const viewFile = join(work, "view.ndjson");
  const eventsFile = join(work, "events.ndjson");
  const key = { choice: choice.name, seed, count };
  // The file and stdin deliveries send the stream's NDJSON file as it is: those keep it between runs. A
  // kept stream's file: the consumer starts on it, and the stream's truth is read while it runs.
  const cache = delivery === "file" || delivery === "stdin" ? options.streamCache : undefined;
  const kept = cache === undefined ? undefined : takeKeptStream(cache, key, eventsFile);
  let made: ConsumerStream | undefined = kept === undefined ? consumerStream(choice, seed, count) : undefined;
  const streamNow = (): ConsumerStream => {
    made ??= consumerStream(choice, seed, count);
    return made;
  };
  // The command's LCKIT_* variables are this run's only: none is inherited.
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  for (const name of CONSUMER_ENV) delete env[name];
  Object.assign(env, {
    LCKIT_DELIVERY: delivery,
    LCKIT_VIEW_FILE: viewFile,
    LCKIT_TENANT: "acme",
    LCKIT_VARIANT: choice.name,
    LCKIT_SEED: String(seed),
    LCKIT_MESSAGES: String(kept ?? streamNow().messages.length),
  });
  const startedAt = new Date();
  let endedByKit = false;
  let delivered = 0;
  let push: PushOutcome | undefined;
  let outcome: CommandOutcome;
  const finish = new AbortController();
  const stopAll = () => finish.abort();
  options.signal?.addEventListener("abort", stopAll, { once: true });
  let queue: DeliveryQueue | undefined;
  let catalogue: CatalogueView | undefined;
  let early: EarlyJudgement | undefined;
  // The amqp1 delivery on the kit's node: a queue of the run's own, its AMQP 1.0 address /amq/queue/NAME.
  let amqp1Queue: DeliveryQueue | undefined;
  try {
    if (delivery === "rabbitmq") {
      const url = options.brokerUrl ?? (options.kitBroker?.url as string);
      queue = await openDeliveryQueue(url);
      delivered = await queue.publish(streamNow().messages);
      env.LCKIT_AMQP_URL = url;
      env.LCKIT_AMQP_QUEUE = queue.name;
    }
    if (delivery === "amqp1") {
      let url = options.brokerUrl;
      if (url === undefined) {
        const node = options.kitBroker?.url as string;
        amqp1Queue = await openDeliveryQueue(node);
        url = `${node.replace(/^amqp:/, "amqp1:")}/${encodeURIComponent(`/amq/queue/${amqp1Queue.name}`)}`;
      }
      // Published before the command starts: the address holds the stream until the consumer takes it.
      const sink = await openAmqp1Sink(url);
      try {
        for (const message of streamNow().messages)
          await sink.publish({ headers: message.headers, body: JSON.stringify(message.payload) });
      } finally {
        await sink.close();
      }
      delivered = streamNow().messages.length;
      env.LCKIT_AMQP1_URL = url;
      env.LCKIT_AMQP1_ADDRESS = parseAmqp1Url(url).address;
    }
    if (delivery === "file") {
      if (kept === undefined) {
        writeStreamFile(eventsFile, streamNow().messages);
      }
      env.LCKIT_EVENTS_FILE = eventsFile;
      delivered = kept ?? streamNow().messages.length;
    }
    let pushUrl: URL | undefined;
    if (delivery === "pubsub-push" || delivery === "sns-push") {
      const port = await freePort();
      pushUrl = new URL(`http://127.0.0.1:${port}/`);
      env.LCKIT_PUSH_PORT = String(port);
      env.LCKIT_PUSH_URL = pushUrl.href;
    }
    let piping: Promise<number> | undefined;
    const running = runCommand(options.argv, env, {
      timeoutMs,
      name: "lckit events consumer check",
      signal: finish.signal,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.output ? { output: options.output } : {}),
      ...(delivery === "stdin"
        ? {
            stdin: (input: Writable) => {
              piping =
                kept === undefined ? pipeStream(streamNow().messages, input) : pipeFile(eventsFile, input);
            },
          }
        : {}),
    });
    // The consumer runs: the truth, and what judging it needs, are made (or read) meanwhile.
    if (kept !== undefined && cache !== undefined) made ??= keptStream(cache, key, choice, seed);
    prepareJudging(streamNow());
    if (cache !== undefined && kept === undefined) {
      if (delivery === "stdin") writeStreamFile(eventsFile, streamNow().messages);
      keepStream(cache, key, eventsFile, streamNow());
    }
    catalogue = loadCatalogueView();
    specHashes();
    early = earlyJudgement(work, viewFile, () => judged(streamNow(), viewFile, delivery));
    if (kept !== undefined && streamNow().messageCount !== kept) {
      finish.abort();
      await running;
      throw new ConsumerCheckError(
        `the kept stream in ${cache} has ${kept} messages where this kit makes ${streamNow().messageCount}: remove that folder`,
      );
    }
    if (pushUrl) {
      // Deliver while the command runs; its end (or the time limit) ends the delivery. When every
      // message is acknowledged, SIGTERM tells the consumer its input has ended.
      const stopped = new AbortController();
      void running.then(() => stopped.abort());
      finish.signal.addEventListener("abort", () => stopped.abort(), { once: true });
      if (await endpointReady(pushUrl, stopped.signal)) {
        push = await pushMessages(
          streamNow().messages,
          pushUrl,
          delivery === "sns-push" ? "sns" : "pubsub",
          stopped.signal,
        );
        delivered = push.delivered;
        if (!stopped.signal.aborted && push.delivered === streamNow().messages.length) {
          endedByKit = true;
          finish.abort();
        }
      }
    }
    if (queue) {
      // The consumer ends by itself after LCKIT_MESSAGES messages; if it does not, SIGTERM once the queue
      // has stayed empty.
      const stopped = new AbortController();
      void running.then(() => stopped.abort());
      finish.signal.addEventListener("abort", () => stopped.abort(), { once: true });
      if (await queue.drained(stopped.signal)) {
        endedByKit = true;
        finish.abort();
      }
    }
    outcome = await running;
    if (piping) delivered = await piping;
  } catch (error) {
    // A broker that refused the stream: nothing ran, and the work folder goes.
    await early?.settled();
    rmSync(work, { recursive: true, force: true });
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", stopAll);
    if (kept !== undefined && cache !== undefined) releaseKeptStream(cache, key);
    await queue?.close();
    await amqp1Queue?.close();
  }
  // The kit's own SIGTERM at the end of a push delivery is no kill: the consumer was told its input ended.
  let asJudged: CommandOutcome =
    endedByKit && !outcome.timedOut && outcome.signal === "SIGTERM"
      ? { ...outcome, signal: null, exitCode: 0 }
      : outcome;
  // Stopped from outside (the kit's own SIGINT or SIGTERM): killed, whatever it exited with.
  if (options.signal?.aborted && !asJudged.timedOut)
    asJudged = { ...asJudged, signal: asJudged.signal ?? "SIGTERM" };
  const stream = streamNow();
  let view: ConsumerRunMeta["view"];
  let judgement: ConsumerJudgement | undefined;
  try {
    view = (await early?.settled()) ?? (await judged(stream, viewFile, delivery));
    if ("judgement" in view) judgement = view.judgement;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const meta: ConsumerRunMeta = {
    command: options.argv.join(" "),
    outcome: asJudged,
    stream,
    delivery,
    replay: replayCommand({ argv: options.argv, delivery, choice, seed, count }),
    startedAt,
    finishedAt: new Date(),
    view,
    delivered,
    ...(options.requireExercised ? { requireExercised: true } : {}),
    ...(catalogue ? { catalogue } : {}),
  };
  const stoppedBy = stopSignalOf(options.signal);
  if (stoppedBy !== undefined) meta.stoppedBy = stoppedBy;
  const result = consumerRunResult(meta);
  return {
    result,
    outcome: asJudged,
    exitCode: exitCodeOf(result, options.failOn ?? DEFAULT_FAIL_ON),
    ...(judgement ? { judgement } : {}),
    stream,
    ...(push ? { push } : {}),
    ...(queue ? { queue: queue.name } : {}),
  };
}

/** Runs `use` on a private RabbitMQ node when the delivery goes through a broker and none was named (one
 *  node for every run of a sweep); the node is stopped by its PIDs and its folder removed however `use`
 *  ends: a verdict, an error, the kit stopped (options.signal), a command past its time limit. */
export async function withKitBroker<T>(
  options: ConsumerCheckOptions,
  use: (options: ConsumerCheckOptions) => Promise<T>,
): Promise<T> {
  const delivery = options.delivery ?? CONSUMER_CHECK_DEFAULTS.delivery;
  if (!BROKER_DELIVERIES.has(delivery) || options.brokerUrl !== undefined || options.kitBroker)
    return use(options);
  const fix = "or give --broker URL of a running broker";
  const missing = rabbitNodeMissing(options.rabbitmqServer);
  if (missing)
    throw new ConsumerCheckError(
      `the ${delivery} delivery without --broker runs on a RabbitMQ node the kit starts, and ${missing}: install it (sudo apt-get install rabbitmq-server), ${fix}`,
    );
  const progress = options.progress ?? (() => {});
  const began = Date.now();
  progress(
    `starting a RabbitMQ node of the kit's own for the ${delivery} delivery (Debian's rabbitmq-server, loopback only; no --broker given) ...\n`,
  );
  let node: Awaited<ReturnType<typeof startPrivateRabbitNode>>;
  try {
    node = await startPrivateRabbitNode({
      ...(options.rabbitmqServer ? { serverScript: options.rabbitmqServer } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      progress: (line) => progress(`RabbitMQ: ${line}\n`),
    });
  } catch (error) {
    if (error instanceof RabbitNodeError)
      throw new ConsumerCheckError(
        options.signal?.aborted
          ? "stopped while the kit's RabbitMQ node was starting: the node is stopped again and nothing ran"
          : `could not start RabbitMQ: ${error.message}; ${fix}`,
      );
    throw error;
  }
  const pids = Object.values(node.pids).filter((pid) => pid !== null);
  progress(
    `RabbitMQ ready at amqp://127.0.0.1:${node.port} in ${((Date.now() - began) / 1000).toFixed(1)} s (node ${node.nodename}, pids ${pids.join(" ")}, folder ${node.base})\n`,
  );
  try {
    return await use({ ...options, kitBroker: { url: node.url } });
  } finally {
    await node.stop();
    progress(`RabbitMQ node stopped (pids ${pids.join(" ")}), its folder removed\n`);
  }
}

const readsFrom: Record<Delivery, string> = {
  file: "does it read the stream from LCKIT_EVENTS_FILE?",
  stdin: "does it read the stream from stdin?",
  "pubsub-push": "does it listen on LCKIT_PUSH_PORT and answer each push with a 2xx?",
  "sns-push": "does it listen on LCKIT_PUSH_PORT and answer each notification with a 2xx?",
  rabbitmq: "does it consume the queue LCKIT_AMQP_QUEUE at LCKIT_AMQP_URL?",
  amqp1: "does it receive from LCKIT_AMQP1_ADDRESS at LCKIT_AMQP1_URL?",
};

type View = ConsumerRunMeta["view"];

interface EarlyJudgement {
  /** The judgement made while the consumer was ending, if its view has not changed since. */
  settled(): Promise<View | undefined>;
}

/**
 * Judges the view as soon as it has been written and left alone for a moment: a process takes
 * milliseconds to end after its last write, and judging meanwhile takes the judging out of the check's
 * time. At the end the early judgement stands only if the view file is the same one, untouched since it
 * was read; otherwise the view is judged again.
 */
function earlyJudgement(work: string, viewFile: string, judge: () => Promise<View>): EarlyJudgement {
  const stampOf = (): string | undefined => {
    try {
      const stat = statSync(viewFile, { bigint: true });
      return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    } catch {
      return undefined;
    }
  };
  let early: { stamp: string; view: View } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<void> = Promise.resolve();
  const attempt = () => {
    busy = busy.then(async () => {
      const stamp = stampOf();
      if (stamp === undefined || stamp === early?.stamp) return;
      try {
        const view = await judge();
        if (stampOf() === stamp) early = { stamp, view };
      } catch {
        // Only an early try: the view is judged again at the end.
      }
    });
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(work, (_event, name) => {
      if (name !== basename(viewFile)) return;
      clearTimeout(timer);
      timer = setTimeout(attempt, 2);
    });
    watcher.on("error", () => watcher?.close());
  } catch {
    // No watching here: the view is judged at the end.
  }
  return {
    async settled() {
      watcher?.close();
      clearTimeout(timer);
      await busy;
      return early !== undefined && stampOf() === early.stamp ? early.view : undefined;
    },
  };
}

async function judged(
  stream: ConsumerStream,
  viewFile: string,
  delivery: Delivery,
): Promise<ConsumerRunMeta["view"]> {
  if (!existsSync(viewFile))
    return {
      problem: `no view was written: does it write its view to LCKIT_VIEW_FILE when its input ends or on SIGTERM? (${readsFrom[delivery]})`,
      nothingConsumed: true,
    };
  try {
    const view = await readView(viewFile, { maxLines: Math.max(2 * stream.objects.size, 10_000) });
    if (view.records.size === 0 && stream.objects.size > 0)
      return {
        problem: `the view is empty: nothing was consumed (${readsFrom[delivery]})`,
        nothingConsumed: true,
      };
    return { judgement: judgeView(stream, view) };
  } catch (error) {
    if (error instanceof ViewError) return { problem: `the view could not be read: ${error.message}` };
    throw error;
  }
}
