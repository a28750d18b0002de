// The report part: the run result model and its pure renderers (json, junit, markdown, html).
export { type CatalogueEntry, type CoveredCheck, computeCoverage } from "./coverage.ts";
export { escapeHtml, escapeMarkdown, escapeXml } from "./escape.ts";
export { renderHtml } from "./html.ts";
export { renderJson } from "./json.ts";
export { renderJunit } from "./junit.ts";
export { renderMarkdown } from "./markdown.ts";
export * from "./model.ts";
export { countResults, decideVerdict, exitCodeOf, FAIL_ON_VALUES, type FailOn } from "./verdict.ts";
export { type WrittenReport, writeReport } from "./write.ts";
