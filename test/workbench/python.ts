// Debian's /usr/bin/python3 with python3-requests for the Python example client: the project's script
// installs the package when it is missing (as root); a test that needs it fails naming the fix otherwise.
import { spawnSync } from "node:child_process";
import { packagePath } from "../../src/package-root.ts";

export function ensurePythonRequests(): string {
  const ensured = spawnSync(process.execPath, [packagePath("scripts", "python-requests.mjs"), "ensure"], {
    encoding: "utf8",
  });
  if (ensured.status !== 0)
    throw new Error(
      `scripts/python-requests.mjs ensure failed (install python3-requests): ${ensured.stderr}`,
    );
  return ensured.stdout.trim();
}
