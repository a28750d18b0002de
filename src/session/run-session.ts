// A conformance run from start to report, below the CLI: the target and the checks loaded, file and flags
// merged (settings.ts), certification, baseline and signing prepared, every output path proven before a
// request is sent, the plan run, and the report folder written (reports, evidence, attestation, manifest).
// `lckit run` parses flags into a RunRequest and prints what this returns; the library calls it alike.
// Problems the user can fix are UsageErrors (exit 2), raised before anything is sent.
import { type KeyObject, randomInt } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import type { Clock, Depth, Level, Safety } from "../check/index.ts";
import { HAR_FILE, HarWriter, linkEvidence } from "../evidence/har.ts";
import { optional } from "../optional-field.ts";
import { writeAttestation } from "../report-folder/attestation.ts";
import { listFiles, loadSignKey, SignKeyError } from "../report-folder/manifest.ts";
import { prepareReportFolder, writeReportFolder } from "../report-folder/write.ts";
import { newRunId } from "../result/assemble.ts";
import { certify } from "../result/certification.ts";
import { kitInfo, specHashes } from "../result/kit-info.ts";
import type { RunResult } from "../result/model.ts";
import {
  applyBaseline,
  type Baseline,
  BaselineError,
  baselineFromRun,
  parseBaseline,
} from "../result/waivers.ts";
import { RUN_DEFAULTS } from "../run-defaults.ts";
import { JOURNAL_FILE } from "../runner/config-journal.ts";
import { shellQuote } from "../runner/context.ts";
import { type Plan, planRun, schedule } from "../runner/plan.ts";
import { type ProgressEvent, runPlan } from "../runner/run.ts";
import { startEmbeddedTarget } from "../target/embedded.ts";
import { resetServedSandbox, type SandboxReset } from "../target/sandbox-reset.ts";
import { systemClock } from "../target/system-clock.ts";
import {
  loadTargetFile,
  type TargetConfig,
  TargetFileError,
  type TargetFileOptions,
} from "../target/target-file.ts";
import { askVersion } from "../target/version-probe.ts";
import { UsageError } from "../usage-error.ts";
import { loadChecks } from "./checks-module.ts";
import { type EffectiveSettings, mergeSettings } from "./settings.ts";

/** What a run is asked to do: the flags of lckit run, or a library caller's options. Paths are relative
 *  to `cwd`. */
export interface RunRequest {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Only the plan is wanted (lckit run --list): a credential variable that is not set is named in the
   *  plan instead of refused, and run() is refused. */
  listOnly?: boolean;
  /** Target file; absent: the embedded reference. */
  target?: string;
  suites: readonly string[];
  checks: readonly string[];
  level: Level;
  allow: readonly Safety[];
  confirmTenant?: string;
  seed?: number;
  /** Seed of the order the checks run in (--order-seed); absent: the suites' order. */
  orderSeed?: number;
  runs: number;
  /** How far the checks explore; absent: "deep" for a certified run, else "default". */
  depth?: Depth;
  /** fast-check replay path (with one check and a seed). */
  path?: string;
  /** Embedded reference only: seeded faults and variants to switch on. */
  faults: readonly string[];
  variants: readonly string[];
  reportDir: string;
  deadlineMs?: number;
  unresponsiveAfter?: number;
  requestBudget?: number;
  interfaceDocument?: string;
  certify: boolean;
  baseline?: string;
  baselineUpdate?: string;
  signKey?: string;
  attest: boolean;
  har: boolean;
  /** --no-har was given (refused in certified mode). */
  noHar?: boolean;
  /** --keep-sandbox: a sandbox lckit serve serves at the target is not reset before the run. */
  keepSandbox?: boolean;
  /** Module exporting allChecks to run instead of the kit's (LCKIT_CHECKS_MODULE). */
  checksModule?: string;
}

/** What the session tells its caller while it runs, for a person to read; the CLI prints these. */
export type SessionEvent =
  | {
      type: "starting";
      target: { name: string; baseUrl: string };
      running: number;
      skipped: number;
      seed: number;
      seedGiven: boolean;
      runs: number;
      depth: Depth;
      /** The journal of configuration changes (a live target only). */
      journalFile?: string;
      /** Why the token checks of a live run go one after another, once. */
      scheduleNote?: string;
    }
  | ProgressEvent;

export interface RunOptions {
  onEvent?: (event: SessionEvent) => void;
  /** Aborting it stops the run as SIGINT does (abort with the reason "SIGINT" or "SIGTERM" to name it). */
  signal?: AbortSignal;
  /** The name the baseline records as the author of new entries (default: USER of the environment). */
  user?: string;
}

export interface SessionOutcome {
  result: RunResult;
  /** The report folder: <report dir>/<run id>. */
  dir: string;
  /** The attestation was written without a signature (certified mode without --sign-key). */
  attestationUnsigned: boolean;
  /** --baseline-update: where the baseline went and how many known failures it holds. */
  baselineWritten?: { file: string; failures: number };
}

/** Refusals of certified mode, named by where certification was asked for (a flag or the target file). */
export function certifyRefusals(
  request: Pick<RunRequest, "suites" | "checks" | "level" | "path" | "noHar">,
  askedBy: string,
  dropIt: string,
): void {
  const chosen = selectionOf(request);
  if (request.noHar)
    throw new UsageError(
      `${askedBy} keeps every exchange as evidence (evidence.har.gz); it cannot be used with --no-har`,
    );
  if (chosen.length > 0)
    throw new UsageError(
      `${askedBy} runs every check of the kit; it refuses a selection (got ${chosen.join(", ")}). Drop the selection, or ${dropIt} for a subset run`,
    );
}

/** The flags that narrow a run to a subset, as given: what a certified run refuses. */
function selectionOf(request: Pick<RunRequest, "suites" | "checks" | "level" | "path">): string[] {
  return [
    ...request.suites.map((s) => `--suite ${s}`),
    ...request.checks.map((c) => `--check ${c}`),
    ...(request.level === "MAY" ? [] : [`--level ${request.level}`]),
    ...(request.path === undefined ? [] : [`--path ${request.path}`]),
  ];
}

/** A target file read for a command, its errors as usage errors naming the file as the user gave it. */
export function readTargetFile(
  target: string,
  cwd: string,
  env: RunRequest["env"],
  options: TargetFileOptions = {},
): TargetConfig {
  const file = resolve(cwd, target);
  try {
    return loadTargetFile(file, env, options);
  } catch (error) {
    if (error instanceof TargetFileError)
      throw new UsageError(`target file ${error.message.replace(file, displayPath(cwd, file))}`);
    throw error;
  }
}

export class RunSession {
  private constructor(
    readonly request: RunRequest,
    readonly plan: Plan,
    readonly settings: EffectiveSettings,
    /** True for --certify and for a target file saying certify: true. */
    readonly certified: boolean,
    private readonly config: TargetConfig | undefined,
    private readonly fetch: (request: Request) => Promise<Response>,
    private readonly clock: Clock,
    private readonly replayBase: string,
  ) {}

  /** Reads the target file, loads the checks and plans the run; nothing is sent yet (the embedded
   *  reference is started in process). Configuration errors come first: they are the user's to fix. */
  static async open(request: RunRequest): Promise<RunSession> {
    const config =
      request.target === undefined
        ? undefined
        : readTargetFile(request.target, request.cwd, request.env, {
            unsetCredentials: request.listOnly === true ? "list" : "refuse",
          });
    if (config?.certify === true && !request.certify)
      certifyRefusals(
        request,
        `${config.file} says certify: true, which`,
        "drop certify: from the target file",
      );
    const certified = request.certify || config?.certify === true;
    const settings = mergeSettings(
      {
        ...request,
        ...(request.interfaceDocument === undefined
          ? {}
          : { interfaceDocument: resolve(request.cwd, request.interfaceDocument) }),
      },
      config,
    );
    const checks = await loadChecks(request.cwd, request.checksModule);
    const planOptions = {
      suites: [...request.suites],
      ids: [...request.checks],
      level: request.level,
      allow: settings.allow,
      ...(settings.confirmTenant === undefined ? {} : { confirmTenant: settings.confirmTenant }),
      ...(request.orderSeed === undefined ? {} : { orderSeed: request.orderSeed }),
    };
    let session: RunSession;
    if (config !== undefined && request.target !== undefined) {
      const plan = planRun(checks, { ...planOptions, target: config.target, drivableClock: false });
      session = new RunSession(
        request,
        plan,
        settings,
        certified,
        config,
        (r) => fetch(r),
        systemClock(),
        `lckit run --target ${shellQuote(request.target)}`,
      );
    } else {
      const embedded = await startEmbeddedTarget({
        faults: [...request.faults],
        variants: [...request.variants],
      }).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (request.faults.length > 0 && /fault/i.test(message)) throw new UsageError(`--fault: ${message}`);
        if (request.variants.length > 0 && /variant/i.test(message))
          throw new UsageError(`--variant: ${message}`);
        throw error;
      });
      const plan = planRun(checks, { ...planOptions, target: embedded.target, drivableClock: true });
      const replayBase = `lckit run${request.faults.map((f) => ` --fault ${shellQuote(f)}`).join("")}${request.variants
        .map((v) => ` --variant ${shellQuote(v)}`)
        .join("")}`;
      session = new RunSession(
        request,
        plan,
        settings,
        certified,
        undefined,
        embedded.fetch,
        embedded.clock,
        replayBase,
      );
    }
    const { unmatched } = session.plan;
    if (unmatched.suites.length > 0 || unmatched.ids.length > 0) {
      const suites = [...new Set(checks.map((c) => c.suite))].sort();
      const parts = [
        ...unmatched.suites.map((s) => `--suite ${s} matches no suite`),
        ...unmatched.ids.map((id) => `--check ${id} matches no check id`),
      ];
      throw new UsageError(
        `${parts.join("; ")}. Suites: ${suites.join(", ")}. See the ids with lckit run --list`,
      );
    }
    return session;
  }

  /** Before run(): a target that is a sandbox lckit serve serves is reset through its control port (an
   *  earlier run's delete task would leave its tenant empty), unless keepSandbox; undefined for any other
   *  target and for the embedded reference. */
  async resetServedSandbox(): Promise<SandboxReset | undefined> {
    if (this.config === undefined || this.request.keepSandbox === true || this.request.listOnly === true)
      return undefined;
    return resetServedSandbox(this.fetch, this.plan.target);
  }

  /** What would run and what is skipped and why, as data (lckit run --list). */
  planData() {
    const { plan } = this;
    return {
      target: {
        name: plan.target.name,
        baseUrl: plan.target.baseUrl,
        rdmUrl: plan.target.rdmUrl,
        tenant: plan.target.tenant,
      },
      checks: plan.entries
        .filter((e) => e.skipKind !== "selection")
        .map((e) => ({
          id: e.check.id,
          suite: e.check.suite,
          level: e.check.level,
          safety: e.check.safety,
          requirements: e.check.requirements,
          action: e.action,
          ...(e.reason === undefined ? {} : { reason: e.reason }),
        })),
      notSelected: plan.entries.filter((e) => e.skipKind === "selection").length,
      ...(this.config?.unsetVariables === undefined ? {} : { unsetVariables: this.config.unsetVariables }),
    };
  }

  /** Runs the plan and writes the report folder. Every output path and input file is checked before the
   *  first request: a report that cannot be written would lose the run. */
  async run(options: RunOptions = {}): Promise<SessionOutcome> {
    const { request, plan, settings } = this;
    if (request.listOnly === true)
      throw new UsageError("this session was opened to list the plan (listOnly); open another to run it");
    const runId = newRunId();
    const reportRoot = isAbsolute(request.reportDir)
      ? request.reportDir
      : resolve(request.cwd, request.reportDir);
    const reportFolder = prepareReportFolder(reportRoot, runId);
    // Only a live target outlives the process; the embedded reference's changes vanish with it.
    const journalFile = this.config === undefined ? undefined : join(reportFolder, JOURNAL_FILE);
    const { interfaceDocument } = settings;
    if (interfaceDocument !== undefined) {
      // A document that cannot be read is an InterfaceDocumentError: the user's input (exit 2).
      specHashes({ interfaceDocument });
    }
    const extras = prepareCertification(request);
    const attest = this.certified || request.attest;
    const har = this.certified || request.har;
    const targetVersion = attest ? await askVersion(this.fetch, plan.target) : undefined;

    const seed = request.seed ?? randomInt(0, 2 ** 31 - 1);
    const { note } = schedule(
      plan.entries.filter((e) => e.skipKind !== "selection"),
      { concurrent: this.config !== undefined, secondQuotaClient: plan.target.quotaAlt !== undefined },
    );
    options.onEvent?.({
      type: "starting",
      target: { name: plan.target.name, baseUrl: plan.target.baseUrl },
      running: plan.entries.filter((e) => e.action === "run").length,
      skipped: plan.entries.filter((e) => e.action === "skip" && e.skipKind !== "selection").length,
      seed,
      seedGiven: request.seed !== undefined,
      runs: request.runs,
      depth: settings.depth ?? (this.certified ? "deep" : "default"),
      ...(journalFile === undefined ? {} : { journalFile }),
      // Against a live target, once: why the quota checks run one after another (one quota client).
      ...(note === undefined ? {} : { scheduleNote: note }),
    });
    // Every exchange of the run, streamed to the report folder as HAR 1.2 (redacted like the reports).
    const harWriter = har
      ? new HarWriter(
          join(reportFolder, HAR_FILE),
          kitInfo(),
          [
            ...Object.values(plan.target.credentials).map((c) => c?.clientSecret),
            plan.target.quotaAlt?.credential.clientSecret,
          ],
          () => this.clock.now(),
        )
      : undefined;
    let result: RunResult;
    try {
      result = await runPlan(plan, {
        fetch: harWriter === undefined ? this.fetch : harWriter.wrap(this.fetch),
        clock: this.clock,
        seed,
        runs: request.runs,
        depth: settings.depth ?? (this.certified ? "deep" : "default"),
        runId,
        ...(request.path === undefined ? {} : { replayPath: request.path }),
        ...(options.onEvent === undefined ? {} : { onProgress: options.onEvent }),
        command: this.replayBase,
        deadlineMs: settings.deadlineMs ?? RUN_DEFAULTS.deadlineMs,
        ...optional("rateLimit", settings.rateLimit),
        ...optional("timeoutMs", settings.timeoutMs),
        ...optional("maxResponseBytes", settings.maxResponseBytes),
        ...optional("checkTimeoutMs", settings.checkTimeoutMs),
        ...optional("unresponsiveAfter", settings.unresponsiveAfter),
        ...optional("requestBudget", settings.requestBudget),
        ...optional("signal", options.signal),
        ...optional("journalFile", journalFile),
        ...optional("interfaceDocument", interfaceDocument),
      });
    } finally {
      await harWriter?.close();
    }
    if (harWriter !== undefined) result = linkEvidence(result, harWriter.index);
    if (extras.baseline !== undefined && request.baseline !== undefined)
      result = applyBaseline(result, extras.baseline, basename(request.baseline), new Date());
    if (this.certified)
      result = certify(
        result,
        plan.entries.filter((e) => e.check.level === "MUST").map((e) => e.check.id),
        targetVersion ?? {},
        { ...plan.target.profile },
      );
    let attestationUnsigned = false;
    const dir = writeReportFolder(result, reportRoot, {
      ...optional("signKey", extras.signKey),
      // The attestation lists the report files, and the manifest lists the attestation.
      alsoWrite: (folder) => {
        if (attest)
          attestationUnsigned = !writeAttestation(
            folder,
            listFiles(folder),
            result,
            targetVersion,
            extras.signKey,
          ).signed;
      },
    });
    const outcome: SessionOutcome = { result, dir, attestationUnsigned };
    if (request.baselineUpdate !== undefined) {
      const file = resolve(request.cwd, request.baselineUpdate);
      writeFileSync(
        file,
        baselineFromRun(
          result,
          extras.previousBaseline,
          options.user ?? request.env.USER ?? "unknown",
          new Date(),
        ),
      );
      outcome.baselineWritten = { file, failures: result.checks.filter((c) => c.status === "failed").length };
    }
    return outcome;
  }
}

/** Reads --baseline, --baseline-update's earlier file and --sign-key: every problem is a usage error
 *  before the run. */
function prepareCertification(request: RunRequest): {
  baseline?: Baseline;
  previousBaseline?: Baseline;
  signKey?: KeyObject;
} {
  const readBaseline = (given: string) => {
    const file = resolve(request.cwd, given);
    try {
      return parseBaseline(readFileSync(file, "utf8"), basename(file));
    } catch (error) {
      if (error instanceof BaselineError) throw new UsageError(`--baseline ${error.message}`);
      throw new UsageError(
        `--baseline ${given}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)}); write one with --baseline-update ${given}`,
      );
    }
  };
  const baseline = request.baseline === undefined ? undefined : readBaseline(request.baseline);
  const previousBaseline =
    request.baselineUpdate !== undefined && existsSync(resolve(request.cwd, request.baselineUpdate))
      ? readBaseline(request.baselineUpdate)
      : undefined;
  let signKey: KeyObject | undefined;
  if (request.signKey !== undefined) {
    try {
      signKey = loadSignKey(resolve(request.cwd, request.signKey));
    } catch (error) {
      if (error instanceof SignKeyError) throw new UsageError(`--sign-key ${error.message}`);
      throw error;
    }
  }
  return {
    ...optional("baseline", baseline),
    ...optional("previousBaseline", previousBaseline),
    ...optional("signKey", signKey),
  };
}

/** A path as the user would write it: relative to cwd when inside it. */
export function displayPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}
