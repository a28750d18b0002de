// lckit judge FILE: recorded traffic (HAR, HAR.gz, NDJSON of exchanges, or - for stdin) judged by the
// service rules and, per client, the caller rules (src/commands/judge/session.ts). This file parses the
// flags into the session's request, prints a line per party (or the run result) and where the report went,
// and exits with the session's code.
import { runJudgeSession } from "../../commands/judge/session.ts";
import { reportFilesInWords } from "../../report-folder/write.ts";
import type { CheckResult, RunResult } from "../../result/model.ts";
import { failOnOf } from "../../result/verdict.ts";
import { RUN_DEFAULTS } from "../../run-defaults.ts";
import { displayPath } from "../../session/run-session.ts";
import { parseRolesFlag } from "../../traffic/roles.ts";
import { option, repeatable } from "../argv.ts";
import { defineCommand } from "../command.ts";
import { oneOf, refuse, text } from "../flags.ts";
import { commandHelp } from "../help.ts";
import { type CliIo, UsageError } from "../io.ts";
import { failOnFlag } from "../judging-flags.ts";

interface JudgeIo extends CliIo {
  /** Read for "-" instead of process.stdin (tests). */
  stdin?: NodeJS.ReadableStream;
}

/** --roles CLIENT=ROLE[,ROLE...][@TENANT[,TENANT...]]: what a client's roles are (the traffic never says). */
export const rolesFlag = repeatable(
  "CLIENT=ROLES@TENANTS",
  (raw: string, flag: string) => {
    const parsed = parseRolesFlag(raw);
    if (typeof parsed === "string") refuse(flag, parsed, raw, "viewer-1=ROLE_RDM@acme");
    return parsed;
  },
  "a client's roles and the tenants on its list, for the roles and foreign-tenant rules (tenants not named are off its list); repeatable",
  { example: "viewer-1=ROLE_RDM@acme" },
);

const spec = {
  name: "judge",
  summary: "judge recorded traffic (a HAR or NDJSON of exchanges) by the service's and each client's rules",
  positionals: "FILE",
  about: `Reads FILE (a HAR 1.2 file from a browser, Playwright, a proxy or lckit's evidence.har; gzip-compressed
or not; NDJSON of exchanges, one JSON object a line, as lckit client check writes exchanges.ndjson; - for
stdin), streamed one entry at a time, and judges what it holds:
  service    every answer against the contract, refusals of requests without a token, with a malformed
             one or one the traffic saw expire, or on a tenant the client holds no role in; roles (a
             delete task of a viewer); the token quota as observed; the scrolls clients walked (no record
             twice, order and filter kept), no page above its limit; scans after a delete task;
  client ID  for each client known from its token requests (Basic credentials or client_id) and the
             tokens it then sent: the caller rules of lckit client check.
Each finding names the party at fault, its rule and requirement, and the exchanges (redacted). A rule the
traffic gave nothing to judge is "not exercised"; one it could not decide (a scroll abandoned midway, a
token whose expiry was never observed) is inconclusive: never a pass.`,
  flags: {
    "exclude-client": repeatable(
      "ID",
      text,
      "a client not to judge (its exchanges are left out); repeatable",
      {
        example: "load-test",
      },
    ),
    "exclude-tenant": repeatable("ID", text, "a tenant whose exchanges are left out; repeatable", {
      example: "acme-test",
    }),
    roles: rolesFlag,
    input: option(
      "F",
      oneOf(["har", "ndjson"]),
      "the file's format; default by its name (.ndjson, .jsonl), else HAR",
      {
        example: "ndjson",
      },
    ),
    "report-dir": option("DIR", text, `where the report goes: DIR/<run id>/ (${reportFilesInWords()})`, {
      default: RUN_DEFAULTS.reportDir,
      example: "reports",
    }),
    format: option("F", oneOf(["text", "json"]), "text or json (the run result on stdout)", {
      default: "text",
      example: "json",
    }),
    "fail-on": failOnFlag,
  },
  notes: `Exit codes: 0 no MUST rule broken; 1 a MUST rule broken (by the service or a client) or undecided
(see --fail-on); 2 usage or input error (a file that is not a HAR, truncated or malformed; traffic with no
exchange of the interface).`,
};

/** One line per party: what it broke, or that it broke nothing it was judged on. */
export function partyLines(result: RunResult): string {
  const byParty = new Map<string, CheckResult[]>();
  for (const c of result.checks) byParty.set(c.suite, [...(byParty.get(c.suite) ?? []), c]);
  const lines = [`${result.verdict}: ${result.verdictReason}`];
  for (const [party, checks] of byParty) {
    const count = (s: CheckResult["status"]) => checks.filter((c) => c.status === s).length;
    lines.push(
      `${party}: ${count("passed")} passed, ${count("failed")} failed, ${count("inconclusive")} undecided, ${count("not-exercised")} not exercised`,
    );
    for (const c of checks.filter((c) => c.status === "failed"))
      lines.push(`  ${c.level} ${c.id}: ${c.message ?? ""}`);
  }
  return `${lines.join("\n")}\n`;
}

export const command = defineCommand(spec, async ({ values, positionals, argv }, io: JudgeIo) => {
  if (positionals.length !== 1)
    throw new UsageError(
      `judge expects exactly one file (a HAR, HAR.gz, NDJSON, or - for stdin), got ${positionals.length}\n\n${commandHelp(spec)}`,
    );
  const session = await runJudgeSession({
    cwd: io.cwd,
    source: positionals[0] as string,
    ...(values.input === undefined ? {} : { format: values.input }),
    ...(io.stdin === undefined ? {} : { stdin: io.stdin }),
    excludeClients: values["exclude-client"],
    excludeTenants: values["exclude-tenant"],
    roles: values.roles,
    reportDir: values["report-dir"],
    failOn: failOnOf(values["fail-on"]),
    command: ["lckit", "judge", ...argv].join(" "),
  });
  if (values.format === "json") io.out(`${JSON.stringify(session.result, null, 2)}\n`);
  else io.out(partyLines(session.result));
  io.err(`report: ${displayPath(io.cwd, session.folder)}\n`);
  return session.exitCode;
});
