// lckit client check: a consumer's own command run against the sandbox, its traffic judged by the caller
// rules. The session (src/commands/client/session.ts) runs it and writes the reports; this file parses the
// flags into its request, prints what it returns and exits with its code.

import { CLIENT_CHECK_DEFAULTS, CLIENT_ENV, type ClientCheckRun } from "../../commands/client/check.ts";
import { runClientSession } from "../../commands/client/session.ts";
import { type ClientSweepRun, legalVariants } from "../../commands/client/sweep.ts";
import { EXCHANGES_FILE, progressLines, sweepClosing } from "../../commands/client/sweep-report.ts";
import type { SandboxChoiceName } from "../../reference/index.ts";
import { notCheckableLines } from "../../report/not-checkable.ts";
import { reportFilesInWords } from "../../report-folder/write.ts";
import { failOnOf } from "../../result/verdict.ts";
import { whileStoppable } from "../../session/signals.ts";
import { option, parseArgv, toggle } from "../argv.ts";
import { defineGroup, type LeafCommand } from "../command.ts";
import { commandCheckSummary, sessionPrinter } from "../command-check-summary.ts";
import { oneOf, text } from "../flags.ts";
import { commandHelp } from "../help.ts";
import { type CliIo, UsageError } from "../io.ts";
import { choiceList, commandTimeoutFlag, failOnFlag, parallelFlag } from "../judging-flags.ts";

const spec = {
  name: "client check",
  summary: "run your client's own command against the sandbox and judge its traffic by the caller rules",
  synopsis: "[options] -- COMMAND [ARG...]",
  about: `Starts the sandbox (the stateful reference) on loopback, runs COMMAND with the sandbox's addresses and
credentials in environment variables:
  ${CLIENT_ENV.join(", ")}
records every request the command sends, and judges the recording by what the interface document asks of
a caller (requirements CALLER-*).
The command is a check of its own (client/command): a command that does not exit 0 fails the run, in
every report, with its exit code and the last lines of its output. With --variants, the command runs once
per provider choice, each against its own sandbox: a line per choice as it finishes ("[3/44] ok default
..."), a folder per choice named by it (its report, exchanges.ndjson, and the command's output in
command.log), and sweep.json, junit.xml and summary.md for the whole sweep (docs/consumers.md).`,
  flags: {
    data: option(
      "FILE",
      text,
      "the sandbox's world (YAML or JSON data file); default examples/sandbox-data.yaml",
      {
        example: "examples/sandbox-data.yaml",
      },
    ),
    client: option(
      "ID",
      text,
      "the client whose credentials the command gets (LCKIT_CLIENT_ID); default the data's first",
      {
        example: "order-service",
      },
    ),
    variants: option(
      "LIST",
      text,
      "run once per provider choice: all (every legal variant, the worlds quota-held-elsewhere, tokens-expire-in-use, new-id-every-page-large-tenant and addresses-apart, and the default), all,-NAME,... (all but those) or a comma list of their names (lckit serve --help-variants lists the variants)",
      { example: "all" },
    ),
    "require-choice": option(
      "LIST",
      text,
      "provider choices your deployment pins (comma list of variant names): with --variants, a command that fails under one of them while it passes under the default is a MUST failure, not the SHOULD finding of a choice the document leaves open",
      { example: "scroll-id-object-only" },
    ),
    parallel: parallelFlag(CLIENT_CHECK_DEFAULTS.parallel),
    timeout: commandTimeoutFlag(CLIENT_CHECK_DEFAULTS.timeoutMs),
    "report-dir": option(
      "DIR",
      text,
      `where the report goes: DIR/<run id>/ (${reportFilesInWords()}, and the command's exchanges in ${EXCHANGES_FILE})`,
      { default: CLIENT_CHECK_DEFAULTS.reportDir, example: "reports" },
    ),
    format: option(
      "F",
      oneOf(["text", "json"]),
      "text or json (the run result on stdout; with --variants the sweep, its progress lines on stderr)",
      {
        default: "text",
        example: "json",
      },
    ),
    quiet: toggle(
      "do not pass the command's output through (it goes to stderr otherwise; with --variants it goes to each choice's command.log)",
    ),
    "fail-on": failOnFlag,
  },
  notes: `A caller rule passes only on opportunities it judged (a next-page request after an answer that carried
a scrollId, a delete task, ...); a rule with none is "not exercised", with what would exercise it.

Under --variants, each choice pins a point the document does not show: a command that exits 0 under the
default but fails under a choice gets a SHOULD finding naming the choice and that point (client/command),
unless --require-choice names it; a MUST caller rule broken under any choice stays MUST. Beside the
variants, the world quota-held-elsewhere starts your client at its token quota (other sessions hold it
for a few seconds): there client/token-waits-after-quota-refusal judges what it does after a refusal;
the world tokens-expire-in-use gives it tokens of 1 s and answers of 200 ms, so a token expires while it
is used: there client/token-dropped-when-expired judges what it sends after the expired-token answer;
in the world addresses-apart LCKIT_BASE_URL and LCKIT_RDM_URL differ, and each request's address is judged.

Exit codes: 0 the command passed and no MUST caller rule broke (under every variant); 1 a MUST rule
broke or the command failed (or, with --fail-on not-exercised, a MUST rule was not exercised); 2 usage
or configuration error (a command not found, a command that made no request to the sandbox); 3 the
command hung past --timeout or was killed; 4 the kit was stopped (Ctrl-C, SIGTERM): the report is partial.`,
};

/** --require-choice: known variant names, each a choice the document leaves open that the team pins. */
function requiredChoicesOf(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const known = legalVariants() as string[];
  const names = raw
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !known.includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new UsageError(
      `--require-choice expects a comma list of provider choices (variant names), got ${JSON.stringify(unknown[0] ?? raw)}; lckit serve --help-variants lists them (default is always required)`,
    );
  return names;
}

function variantsOf(raw: string | undefined): (SandboxChoiceName | undefined)[] | undefined {
  if (raw === undefined) return undefined;
  const known = ["default", ...legalVariants()];
  return choiceList(raw, known, "variant names", "(lckit serve --help-variants lists them)").map((name) =>
    name === "default" ? undefined : (name as SandboxChoiceName),
  );
}

const check: LeafCommand<typeof spec.flags> = {
  spec,
  summary: spec.summary,
  async run(argv, io: CliIo, siblings = []) {
    const split = argv.indexOf("--");
    const own = split < 0 ? argv : argv.slice(0, split);
    const command = split < 0 ? [] : argv.slice(split + 1);
    const parsed = parseArgv(spec, own, { cwd: io.cwd });
    if (parsed.help) {
      io.out(commandHelp(spec, siblings));
      return 0;
    }
    if (command.length === 0)
      throw new UsageError("no command to run: give it after --, e.g. lckit client check -- npm test");
    const v = parsed.values;
    const variants = variantsOf(v.variants);
    const requiredChoices = requiredChoicesOf(v["require-choice"]);
    const printer = sessionPrinter(io, v.format as "text" | "json", {
      name: "client check",
      choiceWord: "provider",
      summary: (run: ClientCheckRun) =>
        commandCheckSummary(run.result, run.outcome, notCheckableLines(run.result.coverage)),
      progress: progressLines,
      closing: sweepClosing,
      choiceOf: (entry: ClientSweepRun) => entry.variant,
    });
    const session = await whileStoppable((signal) =>
      runClientSession(
        {
          cwd: io.cwd,
          env: { ...process.env, ...io.env },
          command,
          timeoutMs: v.timeout,
          reportDir: v["report-dir"],
          failOn: failOnOf(v["fail-on"]),
          ...(v.data === undefined ? {} : { data: v.data }),
          ...(v.client === undefined ? {} : { clientId: v.client }),
          ...(requiredChoices === undefined ? {} : { requiredChoices }),
          ...(variants === undefined ? {} : { variants, parallel: v.parallel }),
          ...(v.quiet ? {} : { output: (chunk: string) => io.err(chunk) }),
          signal,
        },
        printer.events,
      ),
    );
    return printer.print(session);
  },
};

export const command = defineGroup(
  {
    name: "client",
    summary: "consumer workbench: check your client against the sandbox (lckit client check -- CMD)",
  },
  [check],
);
