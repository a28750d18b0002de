// lckit proxy --target FILE: a reverse proxy in front of the target file's two base URLs for real clients
// to call instead, judging each exchange as it completes (src/commands/proxy/session.ts). This file parses
// the flags into the session's request, prints the URLs clients use, a line per party and where the report
// went, and exits with the session's code.
import { PROXY_DEFAULTS, runProxySession } from "../../commands/proxy/session.ts";
import { failOnOf } from "../../result/verdict.ts";
import { displayPath } from "../../session/run-session.ts";
import { untilStopSignal } from "../../session/signals.ts";
import { option, repeatable } from "../argv.ts";
import { defineCommand } from "../command.ts";
import { duration, existingPath, refuse, text } from "../flags.ts";
import { type CliIo, UsageError } from "../io.ts";
import { failOnFlag } from "../judging-flags.ts";
import { partyLines, rolesFlag } from "./judge.ts";

interface ProxyIo extends CliIo {
  /** Resolves when the proxy is to stop (tests); default: the first SIGINT or SIGTERM. */
  stopped?: Promise<string>;
  /** Hears the URLs clients use once the proxy listens (tests). */
  onListening?: (urls: { baseUrl: string; rdmUrl: string }) => void;
}

/** HOST:PORT, [v6]:PORT, or a bare PORT (on 127.0.0.1). */
function listenAddress(raw: string, flag: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(raw) ?? /^()()(\d{1,5})$/.exec(raw);
  const port = Number(match?.[3]);
  if (!match || port > 65534)
    refuse(flag, "HOST:PORT (PORT 0 picks free ports; the rdm_url gets PORT+1)", raw, "127.0.0.1:8280");
  return { host: match[1] || match[2] || "127.0.0.1", port };
}

/** Minutes (a bare number) or a duration with its unit (30s, 15m, 1h). */
const everyDuration = duration({ example: "15m", minMs: 100 });
function reportEvery(raw: string, flag: string, ctx: { cwd: string }): number {
  return everyDuration(/^\d+(\.\d+)?$/.test(raw.trim()) ? `${raw.trim()}m` : raw, flag, ctx);
}

const spec = {
  name: "proxy",
  summary:
    "a reverse proxy in front of a deployment, judging its live traffic by the service's and each client's rules",
  about: `Listens for the clients of a deployment (the target file's baseUrl and rdmUrl) and forwards every
exchange unchanged: the path as sent, bodies streamed both ways, keep-alive, TLS to an https upstream.
Each completed exchange is judged as lckit judge judges a HAR (service rules; caller rules per client,
known from its token requests), in bounded memory however long it runs. One port per upstream origin:
{base_url} on PORT, {rdm_url} on PORT+1 (one port when both share an origin); the URLs clients should use
are printed at start. The report is written on SIGINT or SIGTERM, and every --report-every, to one folder
the next report replaces: what was judged is never lost.
An upstream that sends no answer within --upstream-timeout gets the client a 504, one that is unreachable
or resets a 502: counted as "upstream failed", blamed on no party. A request that is not HTTP gets a 400
from node's parser. The other clients are served meanwhile.`,
  flags: {
    target: option(
      "FILE",
      existingPath({ example: "target.yaml", what: "a target file" }),
      "the deployment: its baseUrl and rdmUrl are the upstreams (docs/target-file.md); credential variables need not be set",
      { example: "staging.yaml" },
    ),
    listen: option(
      "HOST:PORT",
      listenAddress,
      "where clients connect; {rdm_url} on PORT+1; PORT 0 picks free ports",
      {
        default: PROXY_DEFAULTS.listen,
        defaultText: `${PROXY_DEFAULTS.listen.host}:${PROXY_DEFAULTS.listen.port}`,
        example: "0.0.0.0:8280",
      },
    ),
    "report-dir": option("DIR", text, "where the report goes: DIR/<run id>/, replaced at each report", {
      default: PROXY_DEFAULTS.reportDir,
      example: "reports",
    }),
    "report-every": option("MIN", reportEvery, "also write the report every MIN minutes (or 30s, 2h)", {
      example: "15",
    }),
    ca: option(
      "FILE",
      existingPath({ example: "corp-ca.pem", what: "a PEM file of CA certificates" }),
      "trust these CA certificates for an https upstream, besides the default roots",
      { example: "corp-ca.pem" },
    ),
    "upstream-timeout": option(
      "DURATION",
      duration({ example: "30s", bareSeconds: true }),
      "an upstream silent this long (before or inside its answer) has failed: 504",
      {
        default: PROXY_DEFAULTS.upstreamTimeoutMs,
        defaultText: `${PROXY_DEFAULTS.upstreamTimeoutMs / 1000}s`,
        example: "10s",
      },
    ),
    "exclude-client": repeatable("ID", text, "a client not to judge (still forwarded); repeatable", {
      example: "load-test",
    }),
    "exclude-tenant": repeatable("ID", text, "a tenant whose exchanges are not judged; repeatable", {
      example: "acme-test",
    }),
    record: option(
      "FILE",
      text,
      "also write every exchange to FILE as NDJSON, as it completes (replaced if it exists), redacted with a label per token and client secret: `lckit judge FILE` judges it again later",
      { example: "staging-traffic.ndjson" },
    ),
    roles: rolesFlag,
    "fail-on": failOnFlag,
  },
  notes: `Exit codes (once stopped by SIGINT or SIGTERM): 0 no MUST rule broken; 1 a MUST rule broken (by the
service or a client) or undecided (see --fail-on); 2 usage error (a target file or CA file it cannot use, a
port in use), or nothing judged (no exchange of the interface came through).`,
};

export const command = defineCommand(spec, async ({ values, argv }, io: ProxyIo) => {
  if (values.target === undefined)
    throw new UsageError(
      "--target FILE is required: the target file whose baseUrl and rdmUrl to stand in front of",
    );
  const every = values["report-every"];
  const session = await runProxySession(
    {
      cwd: io.cwd,
      env: io.env,
      target: values.target,
      listen: values.listen,
      reportDir: values["report-dir"],
      ...(every === undefined ? {} : { reportEveryMs: every }),
      ...(values.ca === undefined ? {} : { ca: values.ca }),
      ...(values.record === undefined ? {} : { record: values.record }),
      upstreamTimeoutMs: values["upstream-timeout"],
      excludeClients: values["exclude-client"],
      excludeTenants: values["exclude-tenant"],
      roles: values.roles,
      failOn: failOnOf(values["fail-on"]),
      command: ["lckit", "proxy", ...argv].join(" "),
      stopped: io.stopped ?? untilStopSignal(),
    },
    {
      onListening: ({ baseUrl, rdmUrl, upstream, root, runId }) => {
        io.err(
          `lckit proxy: listening; clients use\n  base_url ${baseUrl}   (for ${upstream.baseUrl})\n  rdm_url  ${rdmUrl}   (for ${upstream.rdmUrl})\n` +
            `report: ${displayPath(io.cwd, root)}/${runId}/ on SIGINT or SIGTERM${every === undefined ? "" : ` and every ${every / 60_000} min`}\n`,
        );
        io.onListening?.({ baseUrl, rdmUrl });
      },
      onRecordingStopped: (file, error) =>
        io.err(
          `lckit proxy: --record ${file} stopped: ${error instanceof Error ? error.message : String(error)}; the proxy forwards and judges on\n`,
        ),
      onReportNotWritten: (error) =>
        io.err(
          `lckit proxy: report not written: ${error instanceof Error ? error.message : String(error)}\n`,
        ),
      onStopping: (signal, inFlight) =>
        io.err(`lckit proxy: ${signal}: finishing ${inFlight} exchanges in flight, then the report\n`),
    },
  );
  io.out(partyLines(session.result));
  io.err(`report: ${displayPath(io.cwd, session.folder)}\n`);
  return session.exitCode;
});
