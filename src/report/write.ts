// Writes the renderings of a run to <dir>/<run id>/ (the only file I/O of the report part).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunResult } from "../result/model.ts";
import { CTRF_FILE, renderCtrf } from "./ctrf.ts";
import { renderHtml } from "./html.ts";
import { renderJson } from "./json.ts";
import { renderJunit } from "./junit.ts";
import { renderMarkdown } from "./markdown.ts";

export interface WrittenReport {
  dir: string;
  files: { json: string; junit: string; ctrf: string; markdown: string; html: string };
}

/** Writes the report files into `dir`/`name` (default: the run id). */
export function writeReport(result: RunResult, dir: string, name: string = result.runId): WrittenReport {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const files = {
    json: join(folder, "report.json"),
    junit: join(folder, "junit.xml"),
    ctrf: join(folder, CTRF_FILE),
    markdown: join(folder, "summary.md"),
    html: join(folder, "report.html"),
  };
  writeFileSync(files.json, renderJson(result));
  writeFileSync(files.junit, renderJunit(result));
  writeFileSync(files.ctrf, renderCtrf(result));
  writeFileSync(files.markdown, renderMarkdown(result));
  writeFileSync(files.html, renderHtml(result));
  return { dir: folder, files };
}
