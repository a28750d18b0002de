// One run of the consumer check: the stream made (or taken from the streams kept between runs), delivered
// to the team's consumer while its command runs, and the view it wrote judged, early when it can be.
// Nothing is left running and the run's work folder is removed, however it ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { prepareJudging } from "../../events/consumer/consumer-judge.ts";
import {
  type ConsumerStream,
  consumerStream,
  writeStreamFile,
} from "../../events/consumer/consumer-stream.ts";
import { endpointReady, type PushOutcome, pushMessages } from "../../events/consumer/http-push.ts";
import {
  keepStream,
  keptStream,
  releaseKeptStream,
  takeKeptStream,
} from "../../events/consumer/stream-cache.ts";
import { type CatalogueView, loadCatalogueView } from "../../result/catalogue-view.ts";
import { specHashes } from "../../result/kit-info.ts";
import { type CommandOutcome, runCommand } from "../command-run.ts";
import { type OpenedDelivery, openDelivery, pipeFile, pipeStream } from "./delivery.ts";
import { ConsumerCheckError, type ConsumerCheckRequest, commandEnv } from "./request.ts";
import { type EarlyJudgement, earlyJudgement, judgedView, type View } from "./view-judging.ts";

/** What one run gives the result: how the command ended (as judged), the stream and the judged view. */
export interface ConsumerRun {
  startedAt: Date;
  /** How the command ended, as judged: the kit's own SIGTERM at the end of a delivery is no kill, a stop
   *  from outside is one whatever the command exited with. */
  outcome: CommandOutcome;
  stream: ConsumerStream;
  view: View;
  /** Messages the delivery handed over (acknowledged, written, piped). */
  delivered: number;
  push?: PushOutcome;
  /** The queue the rabbitmq delivery declared (deleted when the run ends). */
  queue?: string;
  catalogue?: CatalogueView;
}

export async function runConsumer(request: ConsumerCheckRequest): Promise<ConsumerRun> {
  const { options, delivery, choice, seed, count } = request;
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
  const env = commandEnv(request, viewFile, kept ?? streamNow().messages.length);
  const startedAt = new Date();
  let endedByKit = false;
  let outcome: CommandOutcome;
  const finish = new AbortController();
  const stopAll = () => finish.abort();
  options.signal?.addEventListener("abort", stopAll, { once: true });
  const opened: OpenedDelivery = { delivered: 0 };
  let push: PushOutcome | undefined;
  let catalogue: CatalogueView | undefined;
  let early: EarlyJudgement | undefined;
  try {
    await openDelivery(request, () => streamNow().messages, { path: eventsFile, kept }, env, opened);
    // As root a consumer can write the kept file whatever its mode: its truth is read before the consumer
    // starts (keptStream then reads the file at once), so a write cannot change what the view is judged by.
    if (kept !== undefined && cache !== undefined && process.getuid?.() === 0)
      made ??= keptStream(cache, key, choice, seed);
    let piping: Promise<number> | undefined;
    const running = runCommand(request.argv, env, {
      timeoutMs: request.timeoutMs,
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
    early = earlyJudgement(work, viewFile, () => judgedView(streamNow(), viewFile, delivery));
    if (kept !== undefined && streamNow().messageCount !== kept) {
      finish.abort();
      await running;
      throw new ConsumerCheckError(
        `the kept stream in ${cache} has ${kept} messages where this kit makes ${streamNow().messageCount}: remove that folder`,
      );
    }
    const { pushUrl, queue } = opened;
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
        opened.delivered = push.delivered;
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
    if (piping) opened.delivered = await piping;
  } catch (error) {
    // A broker that refused the stream: nothing ran, and the work folder goes.
    await early?.settled();
    rmSync(work, { recursive: true, force: true });
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", stopAll);
    if (kept !== undefined && cache !== undefined) releaseKeptStream(cache, key);
    await opened.queue?.close();
    await opened.amqp1Queue?.close();
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
  let view: View;
  try {
    view = (await early?.settled()) ?? (await judgedView(stream, viewFile, delivery));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return {
    startedAt,
    outcome: asJudged,
    stream,
    view,
    delivered: opened.delivered,
    ...(push ? { push } : {}),
    ...(opened.queue ? { queue: opened.queue.name } : {}),
    ...(catalogue ? { catalogue } : {}),
  };
}
