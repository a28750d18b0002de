// lckit judge from request to report folder, below the CLI: recorded traffic (a HAR, HAR.gz, NDJSON of
// exchanges, or stdin) judged by the service rules and, per client, the caller rules (src/traffic/judge.ts),
// its report folder written. `lckit judge` parses flags into a JudgeRequest, prints the result and exits
// with the session's code; input the kit cannot read is a UserInputError (exit 2).
import { resolve } from "node:path";
import { writeReportFolder } from "../../report-folder/write.ts";
import type { RunResult } from "../../result/model.ts";
import { type ExitCode, exitCodeOf, type FailOn } from "../../result/verdict.ts";
import { RUN_DEFAULTS } from "../../run-defaults.ts";
import type { TrafficFormat } from "../../traffic/har-stream.ts";
import { judgeTraffic } from "../../traffic/judge.ts";
import { accessOfDeclarations, type parseRolesFlag } from "../../traffic/roles.ts";
import { openReportRoot } from "../session.ts";

/** What lckit judge is asked to do. Paths are relative to `cwd`. */
export interface JudgeRequest {
  cwd: string;
  /** A file, or "-" for `stdin`. */
  source: string;
  format?: TrafficFormat;
  stdin?: NodeJS.ReadableStream;
  excludeClients: readonly string[];
  excludeTenants: readonly string[];
  /** --roles: the clients' roles and tenants (the traffic never says them). */
  roles: readonly Exclude<ReturnType<typeof parseRolesFlag>, string>[];
  /** Default: the kit's report root (RUN_DEFAULTS.reportDir). */
  reportDir?: string;
  failOn: readonly FailOn[];
  /** The command line, as the report shows it. */
  command: string;
}

/** The judgement, its report folder and the exit code it earns. */
export interface JudgeSession {
  result: RunResult;
  folder: string;
  exitCode: ExitCode;
}

export async function runJudgeSession(request: JudgeRequest): Promise<JudgeSession> {
  const root = openReportRoot(resolve(request.cwd, request.reportDir ?? RUN_DEFAULTS.reportDir));
  const { result } = await judgeTraffic({
    source: request.source === "-" ? "-" : resolve(request.cwd, request.source),
    ...(request.format === undefined ? {} : { format: request.format }),
    ...(request.stdin === undefined ? {} : { stdin: request.stdin }),
    excludeClients: request.excludeClients,
    excludeTenants: request.excludeTenants,
    access: accessOfDeclarations(request.roles),
    command: request.command,
  });
  const folder = writeReportFolder(result, root);
  return { result, folder, exitCode: exitCodeOf(result, request.failOn) };
}
