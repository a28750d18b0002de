// The declaration of `lckit run`: its flags, what it does, what Ctrl-C does and its exit codes (--help is
// written from it). A flag table; the command is run.ts.
import { DEPTHS, LEVELS, SAFETY_CLASSES } from "../../check/index.ts";
import { ATTESTATION_FILE } from "../../report-folder/attestation.ts";
import { reportFilesInWords } from "../../report-folder/write.ts";
import { INTERRUPTED_EXIT_CODE } from "../../result/verdict.ts";
import { RUN_DEFAULTS } from "../../run-defaults.ts";
import { JOURNAL_FILE } from "../../runner/config-journal.ts";
import { MAX_TIMER_MS } from "../../timer-limit.ts";
import { option, repeatable, toggle } from "../argv.ts";
import { duration, integer, oneOf, text, wordList } from "../flags.ts";
import { UsageError } from "../io.ts";
import { failOnFlag, passInconclusiveFlag } from "../judging-flags.ts";

export const DEFAULT_RUNS = RUN_DEFAULTS.runs;

export const runSpec = {
  name: "run",
  summary: "certify a target (default: the embedded reference) and write a conformance report",
  about: `Certifies a target against the interface document and writes a report to <report dir>/<run id>/:
${reportFilesInWords()}.
Without --target it certifies the embedded reference implementation.`,
  flags: {
    target: option("FILE", text, "target file (YAML or JSON; see docs/target-file.md)", {
      example: "target.yaml",
    }),
    suite: repeatable("S", text, "run only this suite", { example: "lookup-scan" }),
    check: repeatable("ID", text, "run only this check id or glob, e.g. token-quota/*", {
      example: "token-quota/*",
    }),
    level: option("L", oneOf(LEVELS, { ignoreCase: true }), "lowest level to run: MUST, SHOULD or MAY", {
      default: "MAY" as const,
      defaultText: "MAY: all",
    }),
    allow: repeatable(
      "CLASSES",
      wordList(SAFETY_CLASSES),
      'safety classes allowed beyond read, comma-separated: write,destructive,quota (adds to "allow" of the ' +
        'target file). Only the embedded reference and a target file with "disposable: true" need none; ' +
        "loopback is no permission (a port-forward to production is on 127.0.0.1 too)",
      { example: "write,quota" },
    ),
    "confirm-tenant": option(
      "T",
      text,
      "name the target's tenant to let destructive checks delete data in it",
      {
        example: "acme",
      },
    ),
    seed: option(
      "N",
      integer({ min: -(2 ** 31), max: 2 ** 31 - 1, example: "42" }),
      "seed of the property checks",
      {
        defaultText: "random, printed at start",
      },
    ),
    "order-seed": option(
      "N",
      integer({ min: 0, max: 2 ** 31 - 1, example: "7" }),
      "run the checks in an order drawn from N (lanes and the checks in them; destructive checks still after " +
        "the others): a verdict must not depend on which check ran first",
      { defaultText: "the suites' order" },
    ),
    runs: option("N", integer({ min: 1, max: 1_000_000, example: "25" }), "runs per property", {
      default: DEFAULT_RUNS,
    }),
    depth: option(
      "D",
      oneOf(DEPTHS),
      "how far the checks explore each rule: default (polite to a live target: a property draws at most 10 " +
        "of --runs) or deep (every run of --runs, every sort field read whole, more limits and page depths, " +
        "every endpoint x token state); reports say what was explored",
      { defaultText: "default; deep with --certify" },
    ),
    path: option("P", replayPath, "replay one property counterexample (with --check and --seed)", {
      example: "3:1:0",
    }),
    fault: repeatable("NAME", text, "embedded reference only: switch on a seeded fault", {
      example: "scan-never-ends",
    }),
    variant: repeatable(
      "NAME",
      text,
      "embedded reference only: switch on a variant, a correct choice other than the kit's where the " +
        "document is silent (list: lckit serve --help-variants)",
      { example: "delete-task-204" },
    ),
    list: toggle("print the plan (what would run, what is skipped and why); send nothing"),
    deadline: option(
      "D",
      duration({ example: "30m", maxMs: MAX_TIMER_MS }),
      'time limit of the whole run, e.g. 30m, 90s, 2h ("deadline" in the target file); when it passes the ' +
        "run stops like on Ctrl-C",
      { defaultText: `${RUN_DEFAULTS.deadlineMs / 60_000}m`, example: "30m" },
    ),
    "unresponsive-after": option(
      "N",
      integer({ min: 0, max: 1000, example: "5" }),
      'stop the run after N requests in a row time out or fail to connect ("target unresponsive"; the rest ' +
        'is reported as not run); 0 never stops ("unresponsiveAfter" in the target file)',
      { defaultText: String(RUN_DEFAULTS.unresponsiveAfter) },
    ),
    "request-budget": option(
      "N",
      integer({ min: 1, example: "5000" }),
      "requests the whole run may send; when they are spent the run stops like at the deadline, the " +
        'checks not run are named, the verdict is INTERRUPTED ("requestBudget" in the target file)',
      { defaultText: "no limit" },
    ),
    "report-dir": option("DIR", text, "where reports go; checked before the run starts", {
      default: RUN_DEFAULTS.reportDir,
    }),
    "fail-on": failOnFlag,
    "pass-inconclusive": passInconclusiveFlag("a MUST check that ran and could not decide"),
    "interface-document": option(
      "FILE",
      text,
      "your copy of the interface document: its sha256 goes into the report beside the requirement " +
        "catalogue's and the contract's (\"interfaceDocument\" in the target file)",
      { example: "interface.md" },
    ),
    format: option("F", oneOf(["text", "json"]), "text or json (the run result on stdout)", {
      default: "text" as const,
    }),
    certify: toggle(
      "certified run: refuses --suite/--check/--level/--path; the verdict is CERTIFIED only when every MUST " +
        "check of the kit ran and passed (none waived); a MUST check that did not run is listed with the key " +
        "or flag that makes it run. Records the target's /version answer, profile, kit, catalogue and " +
        "contract sha256",
    ),
    baseline: option(
      "FILE",
      text,
      "known failures (check, reason, who, expires YYYY-MM-DD): failures it waives are shown as waived and " +
        "do not fail the job; new failures and expired waivers do. A waived MUST failure stays NOT " +
        "CONFORMANT (exit 0) and never certifies",
      { example: "baseline.yaml" },
    ),
    "baseline-update": option(
      "FILE",
      text,
      "write a baseline from this run's failures (keeping reasons of FILE's waivers)",
      { example: "baseline.yaml" },
    ),
    har: toggle(
      "write evidence.har.gz: every exchange of the run, HAR 1.2, redacted, gzip-compressed (a few MB for a whole run); " +
        "--certify always writes it",
    ),
    "no-har": toggle("write no evidence.har.gz (refused with --certify)"),
    "keep-sandbox": toggle(
      "against a sandbox lckit serve serves (its answers name its control port): do not reset it before " +
        "the run (by default it is reset, so an earlier run's delete task does not leave the tenant empty)",
    ),
    "sign-key": option(
      "FILE",
      text,
      "sign the report folder's manifest.json (and the attestation) with this Ed25519 private key (PEM); " +
        "check with: lckit report verify <report folder> --public-key PUB.pem",
      { example: "lckit-sign.pem" },
    ),
    attest: toggle(
      `write ${ATTESTATION_FILE}: an in-toto test-result attestation of the report files in a DSSE envelope ` +
        "signed with --sign-key (needed), and the same in a Sigstore bundle (attestation.sigstore.json); " +
        "asks the target's /version. --certify always writes it (unsigned without --sign-key)",
    ),
  },
  notes: `The manifest.json of every report folder holds the sha256 of each file (see docs/certification.md).

Ctrl-C or SIGTERM (or the deadline) stops the run: the running check ends, every configuration change
the checks made is put back, and the report of what finished is written with the verdict INTERRUPTED.
A second Ctrl-C quits at once. With --target, configuration changes (customers, clients) are journalled
before they are made, in <report dir>/<run id>/${JOURNAL_FILE}; after a kill -9, "lckit restore" puts
them back.

A selection (--suite, --check, --level) is never a conformance claim: when every selected check passes
the verdict is PASSED (subset), "N of M selected checks passed".

Exit codes: 0 conformant (also PASSED (subset), and INCOMPLETE: nothing failed, but some MUST checks did
not run, unless --fail-on incomplete), 1 a MUST check failed (or an outcome named by --fail-on),
2 usage or configuration error, 3 the run broke (a fault of the kit),
${INTERRUPTED_EXIT_CODE} interrupted (SIGINT, SIGTERM or the deadline; the report holds what finished).`,
};

/** A fast-check path: the numbers of the shrink steps, colon-separated. */
function replayPath(raw: string, flag: string): string {
  if (!/^\d+(:\d+)*$/.test(raw))
    throw new UsageError(
      `${flag} expects a fast-check path like 3:1:0, got "${raw}"; copy it from the replay command`,
    );
  return raw;
}
