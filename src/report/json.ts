// report.json: the run result itself, the one format other tools should read (see report.schema.json).
import type { RunResult } from "../result/model.ts";

export function renderJson(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
