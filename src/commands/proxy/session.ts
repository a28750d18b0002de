// lckit proxy from request to report folder, below the CLI: a reverse proxy in front of the target file's two
// base URLs for real clients to call instead (src/traffic/proxy.ts), judging each exchange as it completes
// in a thread of its own (src/traffic/judge-thread.ts), the report written every `reportEveryMs` and once
// stopped. `lckit proxy` parses flags into a ProxyRequest, prints what the events and the session say, and
// exits with the session's code; problems the user can fix are UsageErrors (exit 2).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { newRunId } from "../../result/assemble.ts";
import type { RunResult } from "../../result/model.ts";
import { type ExitCode, exitCodeOf, type FailOn } from "../../result/verdict.ts";
import { RUN_DEFAULTS } from "../../run-defaults.ts";
import { loadTargetFile } from "../../target/target-file.ts";
import { JudgeThread } from "../../traffic/judge-thread.ts";
import { startProxy } from "../../traffic/proxy.ts";
import { ExchangeRecording } from "../../traffic/recording.ts";
import { accessOfDeclarations, accessOfTarget, type parseRolesFlag } from "../../traffic/roles.ts";
import { writeRunningReport } from "../../traffic/running-report.ts";
import { UsageError } from "../../usage-error.ts";
import { openReportRoot } from "../session.ts";

/** Every option default of lckit proxy, in one place: the session and the CLI's flags read them here. */
export const PROXY_DEFAULTS = {
  /** Where clients connect; the rdm_url gets PORT+1. */
  listen: { host: "127.0.0.1", port: 8280 },
  reportDir: RUN_DEFAULTS.reportDir,
  /** An upstream silent this long (before or inside its answer) has failed: 504. */
  upstreamTimeoutMs: 30_000,
} as const;

/** What a proxy is asked to do: the flags of lckit proxy. Paths are relative to `cwd`. */
export interface ProxyRequest {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The target file: its baseUrl and rdmUrl are the upstreams. */
  target: string;
  listen?: { host: string; port: number };
  reportDir?: string;
  /** Also write the report this often (ms); absent: only once stopped. */
  reportEveryMs?: number;
  /** A PEM file of CA certificates trusted for an https upstream, besides the default roots. */
  ca?: string;
  upstreamTimeoutMs?: number;
  /** --record: the NDJSON file every exchange is appended to, redacted pseudonymously. */
  record?: string;
  excludeClients: readonly string[];
  excludeTenants: readonly string[];
  /** --roles: the clients' roles and tenants, over the target file's clients. */
  roles: readonly Exclude<ReturnType<typeof parseRolesFlag>, string>[];
  failOn: readonly FailOn[];
  /** The command line, as the report shows it. */
  command: string;
  /** Resolves with the reason (a signal's name) when the proxy is to stop. */
  stopped: Promise<string>;
}

/** What the caller hears while the proxy runs (the CLI's lines). */
export interface ProxyEvents {
  /** Once it listens: the URLs clients use in place of the upstreams, and the report's folder. */
  onListening?: (at: {
    baseUrl: string;
    rdmUrl: string;
    upstream: { baseUrl: string; rdmUrl: string };
    /** The report goes to <root>/<runId>/. */
    root: string;
    runId: string;
  }) => void;
  /** Told to stop: the exchanges still in flight are finished, then the report written. */
  onStopping?: (reason: string, inFlight: number) => void;
  /** --record could not write (a full disk): the recording stops, the proxy goes on. */
  onRecordingStopped?: (file: string, error: unknown) => void;
  /** A periodic report that could not be written (the next one, or the last, is). */
  onReportNotWritten?: (error: unknown) => void;
}

/** The proxy's last report, its folder and the exit code it earns. */
export interface ProxySession {
  result: RunResult;
  folder: string;
  exitCode: ExitCode;
}

/** Runs the proxy until `request.stopped` resolves; every exchange forwarded, judged, and reported. */
export async function runProxySession(
  request: ProxyRequest,
  events: ProxyEvents = {},
): Promise<ProxySession> {
  const { target } = loadTargetFile(resolve(request.cwd, request.target), request.env, {
    unsetCredentials: "list",
  });
  const root = openReportRoot(resolve(request.cwd, request.reportDir ?? PROXY_DEFAULTS.reportDir));
  const ca = request.ca === undefined ? undefined : pemOf(request.cwd, request.ca);
  const secrets = Object.values(target.credentials).flatMap((c) => (c ? [c.clientSecret] : []));
  // Judged in a thread of its own, so that judging never delays the exchanges being forwarded.
  const judge = new JudgeThread({
    excludeClients: request.excludeClients,
    excludeTenants: request.excludeTenants,
    // The target file's clients whose credentials are set, then --roles over them.
    access: new Map([...accessOfTarget(target), ...accessOfDeclarations(request.roles)]),
    secrets,
  });
  const recording =
    request.record === undefined
      ? undefined
      : new ExchangeRecording(resolve(request.cwd, request.record), secrets);
  let recordingOn = recording !== undefined;
  // Each exchange is recorded, then judged; a recording that fails stops, the judging goes on.
  const sink = {
    add(x: Parameters<JudgeThread["add"]>[0]) {
      if (recordingOn && recording !== undefined)
        try {
          recording.add(x);
        } catch (error) {
          recordingOn = false;
          recording.close();
          events.onRecordingStopped?.(recording.file, error);
        }
      judge.add(x);
    },
  };
  const { host, port } = request.listen ?? PROXY_DEFAULTS.listen;
  const proxy = await startProxy({
    baseUrl: target.baseUrl,
    rdmUrl: target.rdmUrl,
    host,
    port,
    ...(ca === undefined ? {} : { ca }),
    upstreamTimeoutMs: request.upstreamTimeoutMs ?? PROXY_DEFAULTS.upstreamTimeoutMs,
    judge: sink,
  }).catch(async (error: NodeJS.ErrnoException) => {
    recording?.close();
    await judge.close();
    if (error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL")
      throw new UsageError(
        `--listen ${host}:${port}: ${error.message}; choose another address or port (0 picks free ports); nothing was started`,
      );
    throw error;
  });
  const startedAt = new Date();
  const runId = newRunId(startedAt);
  const source = `lckit proxy in front of ${target.baseUrl}${target.rdmUrl === target.baseUrl ? "" : ` and ${target.rdmUrl}`}`;
  // `interim`: a report while the proxy runs; the traffic goes on after it.
  const report = async (interim: boolean) =>
    (
      await judge.judgement({
        source,
        startedAt,
        runId,
        proxy: proxy.counts,
        command: request.command,
        ...(interim ? { interim } : {}),
      })
    ).result;
  events.onListening?.({
    baseUrl: proxy.baseUrl,
    rdmUrl: proxy.rdmUrl,
    upstream: { baseUrl: target.baseUrl, rdmUrl: target.rdmUrl },
    root,
    runId,
  });
  const every = request.reportEveryMs;
  const timer =
    every === undefined
      ? undefined
      : setInterval(async () => {
          try {
            writeRunningReport(await report(true), root);
          } catch (error) {
            // A report that cannot be written now is written at the next tick or at the end.
            events.onReportNotWritten?.(error);
          }
        }, every);
  timer?.unref();
  const reason = await request.stopped;
  if (timer) clearInterval(timer);
  events.onStopping?.(reason, proxy.inFlight);
  await proxy.close();
  recording?.close();
  const result = await report(false);
  await judge.close();
  const folder = writeRunningReport(result, root);
  return { result, folder, exitCode: exitCodeOf(result, request.failOn) };
}

/** The CA certificates of --ca, refused unless they are PEM. */
function pemOf(cwd: string, file: string): string {
  const pem = readFileSync(resolve(cwd, file), "utf8");
  if (!pem.includes("-----BEGIN CERTIFICATE-----"))
    throw new UsageError(
      `--ca ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA's certificate in PEM`,
    );
  return pem;
}
