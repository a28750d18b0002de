// The run as an in-toto Statement v1 with the test-result predicate (in-toto attestation framework,
// predicate type test-result v0.1): what supply-chain tooling and certifiers read. Its subject is the
// report files by sha256; the predicate says PASSED/WARNED/FAILED, which checks passed, warned and failed
// (by id, the same mapping as ctrf.json and junit.xml), and the configuration the result holds for: the
// kit, the requirement catalogue and the contract by sha256, the target and its /version answer.
// Pure: the signing home (manifest.ts) signs it in a DSSE envelope and writes it.

import type { Certification, RunResult, TargetSummary } from "../result/model.ts";
import { outcomeOf } from "./check-outcome.ts";
import { targetOf } from "./outcome.ts";

export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const TEST_RESULT_PREDICATE = "https://in-toto.io/attestation/test-result/v0.1";
/** DSSE payloadType of an in-toto Statement. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  content?: string;
  mediaType?: string;
  annotations?: Record<string, unknown>;
}

export interface TestResultPredicate {
  result: "PASSED" | "WARNED" | "FAILED";
  configuration: ResourceDescriptor[];
  passedTests: string[];
  warnedTests: string[];
  failedTests: string[];
}

export interface TestResultStatement {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: typeof TEST_RESULT_PREDICATE;
  predicate: TestResultPredicate;
}

/** Verdicts that are a pass; the verdicts that fail (or cut the run short) are FAILED; any other
 *  (INCOMPLETE, or one this version does not know) is WARNED: never PASSED without saying so. */
const PASSING = new Set<string>(["CERTIFIED", "CONFORMANT", "PASSED (subset)"]);
const FAILING = new Set<string>(["NOT CONFORMANT", "BROKEN", "INTERRUPTED"]);

/** The check ids by outcome and the overall result, from report.json alone. */
export function testResultOf(
  result: Pick<RunResult, "checks" | "verdict">,
): Pick<TestResultPredicate, "result" | "passedTests" | "warnedTests" | "failedTests"> {
  const ids = (outcome: string) => result.checks.filter((c) => outcomeOf(c) === outcome).map((c) => c.id);
  const passedTests = ids("passed");
  const warnedTests = ids("warned");
  const failedTests = ids("failed");
  const verdict: string = result.verdict;
  const overall =
    failedTests.length > 0 || FAILING.has(verdict)
      ? "FAILED"
      : PASSING.has(verdict) && warnedTests.length === 0
        ? "PASSED"
        : "WARNED";
  return { result: overall, passedTests, warnedTests, failedTests };
}

/** The descriptor names the configuration uses (report verify finds them by these). */
export const CONFIG = {
  kit: "kit",
  catalogue: "requirements/catalogue.yaml",
  contract: "contract",
  interfaceDocument: "interface document",
  target: "target",
  targetVersion: "target /version",
} as const;

export function testResultStatement(
  result: RunResult,
  subject: { path: string; sha256: string }[],
  /** What GET {rdm_url}/version answered (asked for every attested run). */
  targetVersion: Certification["targetVersion"] | undefined,
): TestResultStatement {
  const { spec } = result;
  const target = targetOf(result);
  const configuration: ResourceDescriptor[] = [
    {
      name: CONFIG.kit,
      uri: `pkg:npm/${result.kit.name}@${result.kit.version}`,
      annotations: {
        name: result.kit.name,
        version: result.kit.version,
        runId: result.runId,
        verdict: result.verdict,
        verdictReason: result.verdictReason,
        seed: result.seed,
        runs: result.runs,
        command: result.command,
        startedAt: result.startedAt,
        finishedAt: result.finishedAt,
        ...(result.certification === undefined ? {} : { certified: result.certification.certified }),
      },
    },
    {
      name: CONFIG.catalogue,
      digest: { sha256: spec.catalogue.sha256 },
      annotations: { version: spec.catalogue.version, requirements: spec.catalogue.requirements },
    },
    {
      name: CONFIG.contract,
      digest: { sha256: spec.contract },
      annotations: { version: spec.contractVersion, covers: "openapi/ and event-schemas/" },
    },
    ...(spec.interfaceDocument === null
      ? []
      : [
          {
            name: CONFIG.interfaceDocument,
            digest: { sha256: spec.interfaceDocument },
            ...(spec.interfaceDocumentFile === undefined
              ? {}
              : { annotations: { file: spec.interfaceDocumentFile } }),
          },
        ]),
    // What was judged: a target (its URL and /version); a stream or a consumer has none.
    ...(target === undefined ? [] : targetMaterials(target, targetVersion)),
  ];
  const tested = testResultOf(result);
  return {
    _type: STATEMENT_TYPE,
    subject: subject.map((s) => ({ name: s.path, digest: { sha256: s.sha256 } })),
    predicateType: TEST_RESULT_PREDICATE,
    // In the order the predicate's definition lists its fields.
    predicate: {
      result: tested.result,
      configuration,
      passedTests: tested.passedTests,
      warnedTests: tested.warnedTests,
      failedTests: tested.failedTests,
    },
  };
}

/** The target a run was pointed at, and what its /version answered. */
function targetMaterials(
  target: TargetSummary,
  targetVersion: Certification["targetVersion"] | undefined,
): ResourceDescriptor[] {
  return [
    {
      name: CONFIG.target,
      uri: target.baseUrl,
      annotations: { name: target.name, rdmUrl: target.rdmUrl, tenant: target.tenant },
    },
    {
      name: CONFIG.targetVersion,
      uri: `${target.rdmUrl.replace(/\/+$/, "")}/version`,
      annotations:
        targetVersion === undefined
          ? { error: "not asked" }
          : {
              ...(targetVersion.status === undefined ? {} : { status: targetVersion.status }),
              ...(targetVersion.body === undefined ? {} : { body: targetVersion.body }),
              ...(targetVersion.error === undefined ? {} : { error: targetVersion.error }),
            },
    },
  ];
}
