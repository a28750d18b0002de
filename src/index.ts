// The kit's public entry point: what users may import. Everything else is internal and may change.

import type { ClientCheckOptions, ClientCheckRun } from "./commands/client/check.ts";
import type { ClientSweep, ClientSweepOptions } from "./commands/client/sweep.ts";

// The conformance checks.
export { allChecks } from "../suites/index.ts";
// The check model.
export {
  type Check,
  type CheckContext,
  CheckFailure,
  CheckSkipped,
  type CredentialRole,
  type FailureDetail,
  fail,
  type Level,
  type Profile,
  type Safety,
  skip,
  type Target,
} from "./check/index.ts";
// The typed client of the interface.
export { createClient, type InterfaceClient } from "./client/index.ts";
// The consumer workbench: a client's own command judged by the caller rules (lckit client check). Loaded on
// first use: an import of the kit for its checks, reports or sandbox does not load the caller rules.
export type { ClientCheckOptions, ClientCheckRun };

/** Runs a client's command against the sandbox and judges its traffic by the caller rules. */
export async function clientCheck(options: ClientCheckOptions): Promise<ClientCheckRun> {
  return (await import("./commands/client/check.ts")).clientCheck(options);
}

/** Runs a client's command once per provider choice and judges each run beside the default's. */
export async function clientSweep(options: ClientSweepOptions): Promise<ClientSweep> {
  return (await import("./commands/client/sweep.ts")).clientSweep(options);
}
// The contract: OpenAPI documents loaded and compiled once; violations as data.
export { type Contract, loadContract, type Violation } from "./contract/index.ts";
// Event checking.
export { checkMessage, checkStream, type EventCheckResult, openSource } from "./events/index.ts";
// The Prism mock.
export { type MockServer, startMock } from "./mock/index.ts";
export { packagePath, packageRoot } from "./package-root.ts";
// Pact: provider verification and the pact-vs-contract check.
export { checkPactFiles, verifyPacts } from "./pact/index.ts";
// The stateful reference implementation and its seeded faults.
export {
  createReference,
  FAULTS,
  type FaultName,
  manualClock,
  type Reference,
  type ReferenceData,
  type ReferenceOptions,
  type Sandbox,
  type SandboxControl,
  type SandboxOptions,
  type SandboxState,
  shiftableClock,
  startSandbox,
} from "./reference/index.ts";
// Reports: pure renderers of a RunResult (and its in-toto test-result statement).
export {
  renderCtrf,
  renderHtml,
  renderJson,
  renderJunit,
  renderMarkdown,
  type TestResultStatement,
  testResultStatement,
} from "./report/index.ts";
// The report folder: every rendering of a run written to <dir>/<run id>/.
export { type WrittenReport, writeReport } from "./report-folder/write.ts";
// The requirement catalogue.
export { type Catalogue, loadCatalogue, type Requirement } from "./requirements/catalogue.ts";
// The run result and its verdict; what a report certifies against (catalogue and contract by version +
// sha256) and where the kit's own data files are (openapi/, event-schemas/, requirements/: also importable
// as package subpaths).
export {
  decideVerdict,
  exitCodeOf,
  type FailOn,
  findingsOf,
  kitInfo,
  type RunResult,
  type SpecInfo,
  type Subject,
  specHashes,
} from "./result/index.ts";
// The runner and the target file.
export {
  type Plan,
  type PlanOptions,
  planRun,
  type RunDeps,
  runPlan,
} from "./runner/index.ts";
// A whole run below the CLI: target and checks loaded, settings merged, the plan run, the report folder
// written (what lckit run does, without printing).
export {
  type RunOptions,
  type RunRequest,
  RunSession,
  type SessionEvent,
  type SessionOutcome,
} from "./session/run-session.ts";
export { startEmbeddedTarget } from "./target/embedded.ts";
export { loadTargetFile } from "./target/target-file.ts";
// Problems the user can fix (exit 2 in the CLI): the base class of every such error the kit throws.
export { UsageError, UserInputError } from "./usage-error.ts";
