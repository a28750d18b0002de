// The consumer check as a session: a request in (the team's command, the delivery, one producer choice or
// several), a result and a report folder out. One choice: the run's report folder, with command.log. Several
// (--variants): a folder per choice named by it, and sweep.json, junit.xml and summary.md beside them. A
// broker the kit starts (rabbitmq or amqp1 without --broker) is one node for the whole session.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProducerChoice } from "../../events/consumer/producer-choices.ts";
import { writeManifest } from "../../report-folder/manifest.ts";
import { proveReportRoot, writeReport, writeReportFolder } from "../../report-folder/write.ts";
import { newRunId } from "../../result/assemble.ts";
import { COMMAND_LOG, OutputLog, SWEEP_JSON } from "../sweep.ts";
import { consumerCheck } from "./check.ts";
import { withKitBroker } from "./kit-broker.ts";
import { CONSUMER_CHECK_DEFAULTS, type ConsumerCheckOptions } from "./request.ts";
import type { ConsumerCheckRun } from "./result.ts";
import {
  type ConsumerSweep,
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
  parallel?: number;
  /** Called as each choice of a sweep finishes, after its folder is written. */
  onFinished?: (entry: ConsumerSweepRun, finished: number, total: number) => void;
  /** Called with the sweep's folder before the first choice runs. */
  onSweepStart?: (folder: string) => void;
}

export type ConsumerSessionResult =
  | { kind: "single"; run: ConsumerCheckRun; folder: string; exitCode: ConsumerCheckRun["exitCode"] }
  | {
      kind: "sweep";
      sweep: ConsumerSweep;
      document: ReturnType<typeof consumerSweepDocument>;
      folder: string;
      exitCode: ConsumerCheckRun["exitCode"];
    };

function writeChoiceFolder(sweepDir: string, entry: ConsumerSweepRun): string {
  const { dir } = writeReport(entry.run.result, sweepDir, entry.choice.name);
  writeFileSync(join(dir, COMMAND_LOG), entry.output);
  writeManifest(dir, entry.run.result.runId);
  return dir;
}

export async function runConsumerSession(request: ConsumerSessionRequest): Promise<ConsumerSessionResult> {
  const { choices, reportRoot, parallel, onFinished, onSweepStart, ...options } = request;
  // A report that cannot be written would lose the consumer's run: the folder is proven first.
  proveReportRoot(reportRoot);
  return withKitBroker(options, (common) =>
    runOnBroker({ ...common, choices, reportRoot, parallel, onFinished, onSweepStart }),
  );
}

async function runOnBroker(request: ConsumerSessionRequest): Promise<ConsumerSessionResult> {
  const { choices, reportRoot, parallel, onFinished, onSweepStart, ...common } = request;
  if (choices.length === 1) {
    const output = new OutputLog();
    const run = await consumerCheck({
      ...common,
      choice: choices[0] as ProducerChoice,
      output: (chunk, stream) => {
        output.add(chunk);
        common.output?.(chunk, stream);
      },
    });
    const folder = writeReportFolder(run.result, reportRoot, {
      alsoWrite: (dir) => writeFileSync(join(dir, COMMAND_LOG), output.text()),
    });
    return { kind: "single", run, folder, exitCode: run.exitCode };
  }
  const folder = join(reportRoot, `consumer-sweep-${newRunId()}`);
  mkdirSync(folder, { recursive: true });
  onSweepStart?.(folder);
  const startedAt = new Date();
  const { output: _passedThrough, ...quiet } = common;
  const sweep = await consumerSweep({
    ...quiet,
    choices,
    parallel: parallel ?? CONSUMER_CHECK_DEFAULTS.parallel,
    onFinished: (entry, finished, total) => {
      writeChoiceFolder(folder, entry);
      onFinished?.(entry, finished, total);
    },
  });
  const document = consumerSweepDocument(sweep, {
    command: request.argv.join(" "),
    startedAt,
    finishedAt: new Date(),
  });
  writeFileSync(join(folder, SWEEP_JSON), `${JSON.stringify(document, null, 2)}\n`);
  writeFileSync(join(folder, "junit.xml"), renderConsumerSweepJunit(sweep));
  writeFileSync(join(folder, "summary.md"), renderConsumerSweepMarkdown(sweep));
  return { kind: "sweep", sweep, document, folder, exitCode: sweep.exitCode };
}
