// lckit events check from request to report folder, below the CLI: the streaming configuration and the
// signing key read and the source opened before any message (every problem the user can fix is a
// UsageError, exit 2), the messages checked (with a report folder: each written to events.ndjson as it
// comes), the run result assembled, and the report folder written. `lckit events check` parses flags into
// an EventsCheckRequest, prints the problems as they are found and what this returns.
import type { KeyObject } from "node:crypto";
import { resolve } from "node:path";
import type { EventProblem } from "../events/check/event-problem.ts";
import { type CheckStreamOptions, checkStream, type EventCheckResult } from "../events/judge/event-stream.ts";
import { eventRunResult } from "../events/judge/run-result.ts";
import { loadStreamingConfig, type StreamingConfig } from "../events/streaming-config.ts";
import { type OpenSourceOptions, openSource } from "../events/transport/sources/index.ts";
import type { MessageSource } from "../events/transport/transport.ts";
import { EventEvidence } from "../evidence/event-evidence.ts";
import { loadSignKey, SignKeyError } from "../report-folder/manifest.ts";
import { writeReportFolder } from "../report-folder/write.ts";
import { stopSignalOf } from "../result/client-verdict.ts";
import type { Interruption, RunResult } from "../result/model.ts";
import { UsageError } from "../usage-error.ts";

/** What an event check is asked to do: the flags of lckit events check, or a library caller's options.
 *  Paths are relative to `cwd`. */
export interface EventsCheckRequest {
  cwd: string;
  /** An NDJSON file, "-" (stdin), an amqp(s):// or amqp1(s):// URL. */
  source: string;
  /** How the source is read (broker options, envelope, line limit, stdin). */
  read?: OpenSourceOptions;
  /** The streaming configuration file; without it the configuration-dependent rules are not checked. */
  config?: string;
  /** The checker's limits and windows. */
  check?: Omit<CheckStreamOptions, "config" | "onProblem">;
  /** Where the report folder goes (<report dir>/<run id>/, events.ndjson beside the reports); none: no
   *  report is written. */
  reportDir?: string;
  /** An Ed25519 private key (PEM) that signs the report folder's manifest. */
  signKey?: string;
  /** An input without messages is no failure (exit 0 instead of 2). */
  allowEmpty?: boolean;
  /** The command line the report records. */
  command: string;
  /** Aborting it (with the reason "SIGINT" or "SIGTERM", src/session/signals.ts) stops the reading, even
   *  while the source waits for a message; what was read by then is judged, and the run is INTERRUPTED. */
  signal?: AbortSignal;
}

export interface EventsCheckOutcome {
  /** What the checker found (the json of --format json). */
  result: EventCheckResult;
  /** The same as a run result: checks, verdict, coverage (the reports). */
  run: RunResult;
  /** The report folder, with --report-dir. */
  dir?: string;
}

export async function runEventsCheck(
  request: EventsCheckRequest,
  events: { onProblem?: (problem: EventProblem) => void } = {},
): Promise<EventsCheckOutcome> {
  const config =
    request.config === undefined ? undefined : await readConfig(resolve(request.cwd, request.config));
  // The key is read before any message: a bad key is a usage error, not a checked stream without a signature.
  const signKey = readSignKey(request);
  let source = await open(request);
  if (request.signal !== undefined) source = readUntil(source, request.signal);
  // With a report folder the messages checked go beside the report as evidence (events.ndjson), as they come.
  const evidence =
    request.reportDir === undefined
      ? undefined
      : openEvidence(resolve(request.cwd, request.reportDir), request.reportDir);
  if (evidence !== undefined) source = evidence.tap(source);
  const startedAt = new Date();
  const result = await checkStream(source, {
    config,
    ...request.check,
    onProblem: (problem) => {
      evidence?.observe(problem);
      events.onProblem?.(problem);
    },
  });
  const interruption = stoppedBy(request.signal, result.total);
  // The run result (checks, verdict, coverage) for the reports and for the text's not-checkable lines.
  const run = eventRunResult(result, {
    ...(interruption === undefined ? {} : { interruption }),
    command: request.command,
    config: config !== undefined,
    ...(request.allowEmpty ? { allowEmpty: true } : {}),
    startedAt,
    ...(evidence === undefined ? {} : { runId: evidence.runId }),
  });
  if (evidence === undefined || request.reportDir === undefined) return { result, run };
  const dir = writeReportFolder(
    evidence.finish(run, result.problems),
    resolve(request.cwd, request.reportDir),
    {
      ...(signKey === undefined ? {} : { signKey }),
    },
  );
  return { result, run, dir };
}

/** The source read until `signal` aborts. The stop ends a wait for the next message at once (stdin, a quiet
 *  broker): the read still pending is left to the source's close, which the checker calls next. */
function readUntil(source: MessageSource, signal: AbortSignal): MessageSource {
  const stopped = new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  return {
    description: source.description,
    async *messages() {
      const reading = source.messages()[Symbol.asyncIterator]();
      while (!signal.aborted) {
        const next = await Promise.race([reading.next(), stopped]);
        if (next === undefined || next.done) return;
        yield next.value;
      }
    },
    ...(source.recall === undefined ? {} : { recall: (ref: number) => source.recall?.(ref) }),
    notices: () => source.notices(),
    close: () => source.close(),
  };
}

/** The interruption a stop signal to the kit put on the check, if one came. */
function stoppedBy(signal: AbortSignal | undefined, read: number): Interruption | undefined {
  const cause = stopSignalOf(signal);
  if (cause === undefined) return undefined;
  return {
    cause,
    message: `the check received ${cause}: the ${read} message(s) read by then were judged, the rest of the source was not read`,
    at: new Date().toISOString(),
  };
}

async function readConfig(file: string): Promise<StreamingConfig> {
  try {
    return await loadStreamingConfig(file);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** --sign-key's Ed25519 key, read with lckit run's own code; a key without a folder to sign is refused. */
function readSignKey(request: EventsCheckRequest): KeyObject | undefined {
  if (request.signKey === undefined) return undefined;
  if (request.reportDir === undefined)
    throw new UsageError(
      "--sign-key signs the report folder's manifest, but no --report-dir was given; add --report-dir DIR",
    );
  try {
    return loadSignKey(resolve(request.cwd, request.signKey));
  } catch (error) {
    if (error instanceof SignKeyError) throw new UsageError(`--sign-key ${error.message}`);
    throw error;
  }
}

/** A missing file or exchange is the caller's input, not a broken run: a SourceError or an
 *  AmqpExchangeMissingError, both UserInputErrors (exit 2). */
async function open(request: EventsCheckRequest): Promise<MessageSource> {
  // A relative file is the caller's: read from its working directory, as the report folder is.
  return openSource(request.source, { cwd: request.cwd, ...request.read });
}

/** The report folder and its events.ndjson, made before any message is read: a folder that cannot be
 *  written is a usage error, not a lost check. */
function openEvidence(root: string, given: string): EventEvidence {
  try {
    return new EventEvidence(root);
  } catch (error) {
    throw new UsageError(
      `--report-dir ${given}: cannot write there (${(error as NodeJS.ErrnoException).code ?? String(error)}); give a writable directory`,
    );
  }
}
