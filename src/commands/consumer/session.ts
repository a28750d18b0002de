// The consumer check from request to report folder, below the CLI, in the one session shape of the
// commands that run a team's command (src/commands/session.ts): one producer choice, the run's report
// folder with command.log; several (--variants), a sweep. A broker the kit starts (rabbitmq or amqp1
// without --broker) is one node for the whole session.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProducerChoice } from "../../events/consumer/producer-choices.ts";
import { writeManifest } from "../../report-folder/manifest.ts";
import { writeReport } from "../../report-folder/write.ts";
import {
  type CommandSession,
  openReportRoot,
  type SweepEvents,
  singleSession,
  sweepSession,
} from "../session.ts";
import { COMMAND_LOG, OutputLog } from "../sweep.ts";
import { consumerCheck } from "./check.ts";
import { withKitBroker } from "./kit-broker.ts";
import { CONSUMER_CHECK_DEFAULTS, type ConsumerCheckOptions } from "./request.ts";
import type { ConsumerCheckRun } from "./result.ts";
import {
  type ConsumerSweepRun,
  consumerSweep,
  consumerSweepDocument,
  renderConsumerSweepJunit,
  renderConsumerSweepMarkdown,
} from "./sweep.ts";

export interface ConsumerSessionRequest extends Omit<ConsumerCheckOptions, "choice"> {
  /** One choice: a single run; several: a sweep. */
  choices: readonly ProducerChoice[];
  /** Where the report folder goes. */
  reportRoot: string;
  /** Choices run at once in a sweep. */
  parallel?: number;
}

export type ConsumerSession = CommandSession<
  ConsumerCheckRun,
  ConsumerSweepRun,
  ReturnType<typeof consumerSweepDocument>
>;

function writeChoiceFolder(sweepDir: string, entry: ConsumerSweepRun): string {
  const { dir } = writeReport(entry.run.result, sweepDir, entry.choice.name);
  writeFileSync(join(dir, COMMAND_LOG), entry.output);
  writeManifest(dir, entry.run.result.runId);
  return dir;
}

const CONSUMER_SWEEP_FILES = {
  prefix: "consumer-sweep",
  writeChoice: writeChoiceFolder,
  document: consumerSweepDocument,
  junit: renderConsumerSweepJunit,
  markdown: renderConsumerSweepMarkdown,
};

export async function runConsumerSession(
  request: ConsumerSessionRequest,
  events: SweepEvents<ConsumerSweepRun> = {},
): Promise<ConsumerSession> {
  const { choices, reportRoot, parallel, ...options } = request;
  const root = openReportRoot(reportRoot);
  return withKitBroker(options, async (common): Promise<ConsumerSession> => {
    if (choices.length === 1) {
      const output = new OutputLog();
      return singleSession(
        root,
        () =>
          consumerCheck({
            ...common,
            choice: choices[0] as ProducerChoice,
            output: (chunk, stream) => {
              output.add(chunk);
              common.output?.(chunk, stream);
            },
          }),
        (folder) => writeFileSync(join(folder, COMMAND_LOG), output.text()),
      );
    }
    // A sweep keeps each choice's output in its command.log; none is passed through.
    const { output: _passedThrough, ...quiet } = common;
    const atOnce = parallel ?? CONSUMER_CHECK_DEFAULTS.parallel;
    return sweepSession(
      root,
      CONSUMER_SWEEP_FILES,
      { total: choices.length, parallel: atOnce, command: () => request.argv.join(" ") },
      events,
      (onFinished) => consumerSweep({ ...quiet, choices, parallel: atOnce, onFinished }),
    );
  });
}
