// The consumer check's result: one run turned into the run result every report reads (the consumer rules'
// checks, the command's own check) and the exit code of the one policy.
import type { ConsumerJudgement } from "../../events/consumer/consumer-judge.ts";
import { type ConsumerRunMeta, consumerRunResult } from "../../events/consumer/consumer-result.ts";
import type { ConsumerStream } from "../../events/consumer/consumer-stream.ts";
import type { PushOutcome } from "../../events/consumer/http-push.ts";
import { stopSignalOf } from "../../result/client-verdict.ts";
import type { RunResult } from "../../result/model.ts";
import { DEFAULT_FAIL_ON, type ExitCode, exitCodeOf } from "../../result/verdict.ts";
import type { CommandOutcome } from "../command-run.ts";
import { type ConsumerCheckRequest, replayCommand } from "./request.ts";
import type { ConsumerRun } from "./run.ts";

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

export function consumerCheckResult(request: ConsumerCheckRequest, run: ConsumerRun): ConsumerCheckRun {
  const { options, argv, delivery, choice, seed, count } = request;
  const judgement = "judgement" in run.view ? run.view.judgement : undefined;
  const meta: ConsumerRunMeta = {
    command: argv.join(" "),
    outcome: run.outcome,
    stream: run.stream,
    delivery,
    replay: replayCommand({ argv, delivery, choice, seed, count }),
    startedAt: run.startedAt,
    finishedAt: new Date(),
    view: run.view,
    delivered: run.delivered,
    ...(options.requireExercised ? { requireExercised: true } : {}),
    ...(run.catalogue ? { catalogue: run.catalogue } : {}),
  };
  const stoppedBy = stopSignalOf(options.signal);
  if (stoppedBy !== undefined) meta.stoppedBy = stoppedBy;
  const result = consumerRunResult(meta);
  return {
    result,
    outcome: run.outcome,
    exitCode: exitCodeOf(result, options.failOn ?? DEFAULT_FAIL_ON),
    ...(judgement ? { judgement } : {}),
    stream: run.stream,
    ...(run.push ? { push: run.push } : {}),
    ...(run.queue ? { queue: run.queue } : {}),
  };
}
