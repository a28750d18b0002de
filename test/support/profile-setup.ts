// Records each test file's CPU time for `npm run test:profile`: the time this worker process and the
// child processes it waited for spent on a core, read from /proc (Linux), from the file's load to its last
// hook. Wall time comes from vitest's own JSON report; the difference is time spent waiting.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect } from "vitest";

const folder = process.env.LCKIT_TEST_PROFILE_DIR;

/** utime + stime + cutime + cstime of this process, in milliseconds; undefined off Linux. */
function cpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The command name (field 2) may hold spaces; the fields after it start past its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return (ticks * 1000) / 100;
  } catch {
    return undefined;
  }
}

if (folder) {
  // Taken when vitest loads this file, before the test file's own imports.
  const started = cpuMs();
  afterAll(() => {
    const ended = cpuMs();
    const file = expect.getState().testPath;
    if (started === undefined || ended === undefined || !file) return;
    mkdirSync(folder, { recursive: true });
    const name = createHash("sha256").update(file).digest("hex").slice(0, 16);
    writeFileSync(join(folder, `${name}.json`), JSON.stringify({ file, cpuMs: ended - started }));
  });
}
