// The report of a running proxy: one folder, <root>/<run id>/, replaced whole at each report (every
// --report-every, and at the end). Written beside it first and then renamed into place, so a reader, or
// a proxy killed mid-write, finds the last complete report, never half of one.
import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeManifest } from "../report-folder/manifest.ts";
import { writeReport } from "../report-folder/write.ts";
import type { RunResult } from "../result/model.ts";

/** Writes `result`'s report folder under `root`, replacing the one of the same run id; returns its path. */
export function writeRunningReport(result: RunResult, root: string): string {
  const dir = join(root, result.runId);
  const next = `.${result.runId}.next`;
  const old = join(root, `.${result.runId}.old`);
  rmSync(join(root, next), { recursive: true, force: true });
  const written = writeReport(result, root, next);
  writeManifest(written.dir, result.runId);
  rmSync(old, { recursive: true, force: true });
  if (existsSync(dir)) renameSync(dir, old);
  renameSync(written.dir, dir);
  rmSync(old, { recursive: true, force: true });
  return dir;
}
