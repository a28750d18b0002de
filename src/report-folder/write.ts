// The report folder of a run, <dir>/<run id>/: proven writable before the run, then every rendering of the
// run written into it (src/report renders, this writes), what the command adds (evidence, attestation), and
// last the manifest of every file.
import type { KeyObject } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CTRF_FILE, renderCtrf } from "../report/ctrf.ts";
import { renderHtml } from "../report/html.ts";
import { renderJson } from "../report/json.ts";
import { renderJunit } from "../report/junit.ts";
import { renderMarkdown } from "../report/markdown.ts";
import type { RunResult } from "../result/model.ts";
import { UsageError } from "../usage-error.ts";
import { MANIFEST_FILE, writeManifest } from "./manifest.ts";

/** The renderings every report folder holds, by format: what writeReport writes, and what help texts list. */
export const REPORT_FILES = {
  json: "report.json",
  junit: "junit.xml",
  ctrf: CTRF_FILE,
  markdown: "summary.md",
  html: "report.html",
} as const;

/** "report.json, junit.xml, ctrf.json, summary.md, report.html and manifest.json": a report folder's files
 *  in words, for help texts. */
export function reportFilesInWords(): string {
  return `${Object.values(REPORT_FILES).join(", ")} and ${MANIFEST_FILE}`;
}

export interface WrittenReport {
  dir: string;
  files: { [F in keyof typeof REPORT_FILES]: string };
}

/** Writes the report files into `dir`/`name` (default: the run id). */
export function writeReport(result: RunResult, dir: string, name: string = result.runId): WrittenReport {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const files = {
    json: join(folder, REPORT_FILES.json),
    junit: join(folder, REPORT_FILES.junit),
    ctrf: join(folder, REPORT_FILES.ctrf),
    markdown: join(folder, REPORT_FILES.markdown),
    html: join(folder, REPORT_FILES.html),
  };
  writeFileSync(files.json, renderJson(result));
  writeFileSync(files.junit, renderJunit(result));
  writeFileSync(files.ctrf, renderCtrf(result));
  writeFileSync(files.markdown, renderMarkdown(result));
  writeFileSync(files.html, renderHtml(result));
  return { dir: folder, files };
}

/** Kernel pseudo-filesystems: writing a report there hangs or spins instead of failing. */
const pseudoFilesystems = ["/proc", "/sys", "/dev"];

/** Creates <root>/<run id>/ and proves it writable, before the run; a UsageError (exit 2) otherwise. */
export function prepareReportFolder(root: string, runId: string): string {
  return proveWritable(root, join(root, runId));
}

/** Proves that report folders can be made under `root` before a command whose report would otherwise be
 *  lost is run (lckit client check runs the team's command first); a UsageError (exit 2) otherwise. */
export function proveReportRoot(root: string): void {
  proveWritable(root, root);
}

function proveWritable(root: string, folder: string): string {
  const refuse = (why: string): never => {
    throw new UsageError(`--report-dir ${root} ${why}; give a writable directory (default: reports)`);
  };
  // Where the folder would really be: the nearest existing ancestor, symbolic links resolved.
  let existing = root;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  let real = existing;
  try {
    real = realpathSync(existing);
  } catch {
    // unreadable: the write below says why
  }
  const under = pseudoFilesystems.find((p) => real === p || real.startsWith(`${p}/`));
  if (under !== undefined) refuse(`is under ${under}, a kernel pseudo-filesystem where reports cannot live`);
  try {
    if (existsSync(existing)) accessSync(existing, constants.W_OK);
    mkdirSync(folder, { recursive: true });
    const probe = join(folder, `.write-test-${process.pid}`);
    writeFileSync(probe, "");
    rmSync(probe);
  } catch (error) {
    refuse(`is not writable (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return folder;
}

/** Writes a run's report folder: every report format, what `alsoWrite` adds (evidence of the command's
 *  own), and last the manifest of every file's sha256 (signed with `signKey`). */
export function writeReportFolder(
  result: RunResult,
  root: string,
  options: { signKey?: KeyObject; alsoWrite?: (dir: string) => void } = {},
): string {
  const written = writeReport(result, root);
  options.alsoWrite?.(written.dir);
  writeManifest(written.dir, result.runId, options.signKey);
  return written.dir;
}
