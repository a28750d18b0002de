// lckit client check: a consumer's own command run against the sandbox, its traffic judged by the caller
// rules. The orchestration is src/workbench; this file parses, prints and exits.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isVariantName, type VariantName } from "../../reference/index.ts";
import { terminalSafe } from "../../report/escape.ts";
import { notCheckableLines } from "../../report/not-checkable.ts";
import { newRunId } from "../../result/assemble.ts";
import { CHECK_STATUSES } from "../../result/model.ts";
import { failOnOf } from "../../result/verdict.ts";
import { displayPath, proveReportRoot, writeReportFolder } from "../../session/run-session.ts";
import {
  CLIENT_ENV,
  ClientCheckError,
  type ClientCheckRun,
  clientCheck,
  DEFAULT_TIMEOUT_MS,
} from "../../workbench/client-check.ts";
import { clientSweep, legalVariants } from "../../workbench/client-sweep.ts";
import {
  progressLines,
  renderSweepJunit,
  SWEEP_JSON,
  sweepClosing,
  sweepDocument,
  sweepOutput,
  writeChoiceFolder,
} from "../../workbench/sweep-report.ts";
import { renderSweepMarkdown } from "../../workbench/sweep-summary.ts";
import { option, parseArgv, toggle } from "../argv.ts";
import { defineGroup, type LeafCommand } from "../command.ts";
import { duration, integer, oneOf, text } from "../flags.ts";
import { commandHelp } from "../help.ts";
import { type CliIo, UsageError } from "../io.ts";
import { failOnFlag } from "../judging-flags.ts";

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
      "run once per provider choice: all (every legal variant, plus the default) or a comma list of variant names (lckit serve --help-variants)",
      { example: "all" },
    ),
    parallel: option("N", integer({ min: 1, max: 16, example: "2" }), "runs at once with --variants", {
      default: 2,
      example: "2",
    }),
    timeout: option(
      "DURATION",
      duration({ example: "2m", bareSeconds: true }),
      "time limit of each run of the command; its process group is stopped after it",
      {
        default: DEFAULT_TIMEOUT_MS,
        defaultText: "2m",
        example: "2m",
      },
    ),
    "report-dir": option("DIR", text, "where the report (json, junit, markdown, html) goes", {
      default: "reports",
      example: "reports",
    }),
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

Exit codes: 0 the command passed and no MUST caller rule broke (under every variant); 1 a MUST rule
broke or the command failed (or, with --fail-on not-exercised, a MUST rule was not exercised); 2 usage
or configuration error (a command not found, a command that made no request to the sandbox); 3 the
command hung past --timeout or was killed.`,
};

function variantsOf(raw: string | undefined): (VariantName | undefined)[] | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === "all") return [undefined, ...legalVariants()];
  const names = raw
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => name !== "default" && !isVariantName(name));
  if (unknown.length > 0 || names.length === 0)
    throw new UsageError(
      `--variants expects all or a comma list of variant names, got "${unknown[0] ?? raw}"; run lckit serve --help-variants for the names`,
    );
  return names.map((name) => (name === "default" ? undefined : (name as VariantName)));
}

/** The command's whole traffic, redacted, one exchange per line, beside the report. */
function writeExchanges(dir: string, run: ClientCheckRun): void {
  writeFileSync(join(dir, "exchanges.ndjson"), run.exchanges.map((x) => `${JSON.stringify(x)}\n`).join(""));
}

function summary(run: ClientCheckRun): string {
  const { result, outcome } = run;
  const lines = [`${result.verdict}: ${result.verdictReason}`];
  for (const check of result.checks) {
    const mark =
      check.status === "passed"
        ? "ok  "
        : check.status === "failed"
          ? check.level === "MUST"
            ? "FAIL"
            : "WARN"
          : check.status === "not-exercised"
            ? "----"
            : check.status.toUpperCase().slice(0, 4);
    const said =
      check.status === "not-exercised"
        ? `not exercised${check.exerciseRequired ? " (required: --fail-on not-exercised)" : ""}: ${check.reason ?? ""}`
        : (check.message ?? check.reason ?? "");
    const traced = check.requirements.length > 0 ? ` (${check.requirements.join(", ")})` : "";
    // A message of several lines (the command's output tail) is indented under its check, made safe.
    const [head = "", ...rest] = said.split("\n");
    lines.push(`  ${mark} ${check.id}${traced} ${terminalSafe(head)}`.trimEnd());
    for (const line of rest) lines.push(`       ${terminalSafe(line)}`.trimEnd());
  }
  const counts = CHECK_STATUSES.filter((status) => (result.counts.byStatus[status] ?? 0) > 0)
    .map((status) => `${result.counts.byStatus[status]} ${status.replace("-", " ")}`)
    .join(", ");
  lines.push(`  ${counts}; command exit ${outcome.exitCode ?? outcome.signal ?? "none"}`);
  lines.push(...notCheckableLines(result.coverage));
  return `${lines.join("\n")}\n`;
}

const check: LeafCommand = {
  spec: spec as never,
  summary: spec.summary,
  async run(argv, io: CliIo, siblings = []) {
    const split = argv.indexOf("--");
    const own = split < 0 ? argv : argv.slice(0, split);
    const command = split < 0 ? [] : argv.slice(split + 1);
    const parsed = parseArgv(spec, own, { cwd: io.cwd });
    if (parsed.help) {
      io.out(commandHelp(spec as never, siblings));
      return 0;
    }
    if (command.length === 0)
      throw new UsageError("no command to run: give it after --, e.g. lckit client check -- npm test");
    const v = parsed.values;
    const variants = variantsOf(v.variants);
    const output = v.quiet ? undefined : (chunk: string) => io.err(chunk);
    const common = {
      argv: command,
      ...(v["fail-on"].includes("not-exercised") ? { requireExercised: true } : {}),
      failOn: failOnOf(v["fail-on"]),
      cwd: io.cwd,
      env: { ...process.env, ...io.env },
      timeoutMs: v.timeout,
      ...(v.data === undefined ? {} : { data: resolve(io.cwd, v.data) }),
      ...(v.client === undefined ? {} : { clientId: v.client }),
    };
    // A report that cannot be written would lose the command's run: the folder is proven first.
    proveReportRoot(resolve(io.cwd, v["report-dir"]));
    const stopper = new AbortController();
    const stop = () => stopper.abort();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    try {
      if (variants === undefined) {
        const run = await clientCheck({ ...common, ...(output ? { output } : {}), signal: stopper.signal });
        const dir = writeReportFolder(run.result, resolve(io.cwd, v["report-dir"]), {
          alsoWrite: (folder) => writeExchanges(folder, run),
        });
        if (v.format === "json") io.out(`${JSON.stringify(run.result, null, 2)}\n`);
        else io.out(summary(run));
        io.err(`report: ${dir}\n`);
        return run.exitCode;
      }
      // The sweep's folder holds a folder per choice, named by it, written as each choice finishes, and
      // the sweep's own files once all have. Progress goes where the machine output does not.
      const reportDir = resolve(io.cwd, v["report-dir"]);
      const sweepDir = join(reportDir, `sweep-${newRunId()}`);
      mkdirSync(sweepDir, { recursive: true });
      const progress = (text: string) => (v.format === "json" ? io.err(text) : io.out(text));
      progress(
        `client check over ${variants.length} provider choice(s), ${Math.min(v.parallel, variants.length)} at a time; reports in ${displayPath(io.cwd, sweepDir)}\n`,
      );
      const startedAt = new Date();
      const sweep = await clientSweep({
        ...common,
        variants,
        parallel: v.parallel,
        signal: stopper.signal,
        onFinished: (entry, finished, total) => {
          writeChoiceFolder(sweepDir, entry);
          progress(progressLines(entry, finished, total));
        },
      });
      const document = sweepDocument(sweep, {
        // As the reports show it: redacted.
        command: sweep.runs[0]?.run.result.command ?? command.join(" "),
        startedAt,
        finishedAt: new Date(),
      });
      writeFileSync(join(sweepDir, SWEEP_JSON), `${JSON.stringify(document, null, 2)}\n`);
      writeFileSync(join(sweepDir, "junit.xml"), renderSweepJunit(sweep));
      writeFileSync(join(sweepDir, "summary.md"), renderSweepMarkdown(sweep));
      if (v.format === "json") io.out(`${JSON.stringify(sweepOutput(document, sweep, sweepDir), null, 2)}\n`);
      else io.out(sweepClosing(sweep));
      io.err(`report: ${sweepDir}\n`);
      return sweep.exitCode;
    } catch (error) {
      if (error instanceof ClientCheckError) throw new UsageError(error.message);
      if (error instanceof Error && error.name === "FixtureError")
        throw new UsageError(`--data ${error.message}`);
      throw error;
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
  },
};

export const command = defineGroup(
  {
    name: "client",
    summary: "consumer workbench: check your client against the sandbox (lckit client check -- CMD)",
  },
  [check],
);
