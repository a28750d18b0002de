// The report part: pure renderers of a run result (json, junit, ctrf, markdown, html, the in-toto
// statement). The run result itself lives in src/result; the folder they are written to in src/report-folder.
export { buildCtrf, renderCtrf } from "./ctrf.ts";
export { escapeHtml, escapeMarkdown, escapeXml } from "./escape.ts";
export { renderHtml } from "./html.ts";
export { type TestResultStatement, testResultStatement } from "./in-toto.ts";
export { renderJson } from "./json.ts";
export { renderJunit } from "./junit.ts";
export { renderMarkdown } from "./markdown.ts";
