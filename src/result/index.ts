// The run result: its model, verdict, coverage, what it certifies against (kit info) and the catalogue view.
// Shared by HTTP runs (src/runner) and event checks (src/events); src/report only renders it.
export { type CatalogueView, loadCatalogueView } from "./catalogue-view.ts";
export { type CatalogueEntry, type CoveredCheck, computeCoverage } from "./coverage.ts";
export { kitInfo, type SpecInfo, specHashes } from "./kit-info.ts";
export * from "./model.ts";
export { countResults, decideVerdict, exitCodeOf, FAIL_ON_VALUES, type FailOn } from "./verdict.ts";
