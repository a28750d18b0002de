// The view a consumer wrote, judged by the consumer rules: at the end of the run, or early, as soon as the
// view has been written and left alone (taking the judging out of the check's time), standing only when
// the view file is untouched since.
import { existsSync, type FSWatcher, statSync, watch } from "node:fs";
import { basename } from "node:path";
import { judgeView } from "../../events/consumer/consumer-judge.ts";
import type { ConsumerRunMeta } from "../../events/consumer/consumer-result.ts";
import type { ConsumerStream } from "../../events/consumer/consumer-stream.ts";
import { readView, ViewError } from "../../events/consumer/consumer-view.ts";
import type { Delivery } from "./request.ts";

const readsFrom: Record<Delivery, string> = {
  file: "does it read the stream from LCKIT_EVENTS_FILE?",
  stdin: "does it read the stream from stdin?",
  "pubsub-push": "does it listen on LCKIT_PUSH_PORT and answer each push with a 2xx?",
  "sns-push": "does it listen on LCKIT_PUSH_PORT and answer each notification with a 2xx?",
  rabbitmq: "does it consume the queue LCKIT_AMQP_QUEUE at LCKIT_AMQP_URL?",
  amqp1: "does it receive from LCKIT_AMQP1_ADDRESS at LCKIT_AMQP1_URL?",
};

export type View = ConsumerRunMeta["view"];

export interface EarlyJudgement {
  /** The judgement made while the consumer was ending, if its view has not changed since. */
  settled(): Promise<View | undefined>;
}

/**
 * Judges the view as soon as it has been written and left alone for a moment: a process takes
 * milliseconds to end after its last write, and judging meanwhile takes the judging out of the check's
 * time. At the end the early judgement stands only if the view file is the same one, untouched since it
 * was read; otherwise the view is judged again.
 */
export function earlyJudgement(work: string, viewFile: string, judge: () => Promise<View>): EarlyJudgement {
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

/** The view file judged: its judgement, or why it could not be (not written, unreadable, empty). */
export async function judgedView(
  stream: ConsumerStream,
  viewFile: string,
  delivery: Delivery,
): Promise<View> {
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
