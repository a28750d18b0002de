// Debian's headless Chromium for the browser tests and the report bench: LCKIT_CHROMIUM when set (npm test
// sets it), else what scripts/chromium.mjs finds or installs; undefined when there is none.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const repo = join(import.meta.dirname, "..", "..");

export function findChromium(): string | undefined {
  const named = process.env.LCKIT_CHROMIUM;
  if (named) return existsSync(named) ? named : undefined;
  const got = spawnSync(process.execPath, [join(repo, "scripts", "chromium.mjs"), "ensure"], {
    encoding: "utf8",
    timeout: 300_000,
  });
  const path = got.status === 0 ? got.stdout.trim().split("\n").pop() : undefined;
  return path && existsSync(path) ? path : undefined;
}

/** What to do when there is none, for a message. */
export const NO_CHROMIUM_FIX =
  "install it (as root: apt-get install -y chromium; node scripts/chromium.mjs ensure does it) or set LCKIT_CHROMIUM to a Chromium binary";
