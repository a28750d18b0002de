// The run result: its model, its assembly, verdict, coverage, evidence, what it certifies against (kit info),
// the catalogue view and the diff of two runs.
// Shared by HTTP runs (src/runner) and event checks (src/events); src/report only renders it.
export { assembleRunResult, newRunId, type RunRecord } from "./assemble.ts";
export { type CatalogueView, loadCatalogueView } from "./catalogue-view.ts";
export { type CatalogueEntry, type CoveredCheck, computeCoverage } from "./coverage.ts";
export { EVIDENCE_EXCHANGES, pickEvidence } from "./evidence.ts";
export { kitInfo, type SpecInfo, specHashes } from "./kit-info.ts";
export * from "./model.ts";
export { diffReports, hasRegressions, type ReportDiff, type StatusChange } from "./run-diff.ts";
export {
  countResults,
  decideVerdict,
  exitCodeOf,
  FAIL_ON_VALUES,
  type FailOn,
  findingsOf,
} from "./verdict.ts";
