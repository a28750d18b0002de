#!/usr/bin/env node
// Debian's python3-requests for the Python example clients of lckit client check (test/workbench): checks
// that /usr/bin/python3 imports requests and, as root, installs the package with apt-get when it does not.
// `node scripts/python-requests.mjs ensure` prints the interpreter's path and exits 0 when it is usable.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const PYTHON = "/usr/bin/python3";
const say = (text) => process.stderr.write(`python-requests: ${text}\n`);

function usable() {
  return existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import requests"], { stdio: "ignore" }).status === 0;
}

function install() {
  if (process.getuid?.() !== 0) {
    say(
      "python3-requests is missing and this is not root; install it once: sudo apt-get install -y python3-requests",
    );
    return false;
  }
  say("python3-requests is not installed; installing it with apt-get");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const args = ["install", "-y", "--no-install-recommends", "python3-requests"];
  let result = spawnSync("apt-get", args, { stdio: ["ignore", "ignore", "inherit"], env });
  if (result.status !== 0) {
    say("apt-get install failed; refreshing the package lists and trying once more");
    spawnSync("apt-get", ["update"], { stdio: ["ignore", "ignore", "inherit"], env });
    result = spawnSync("apt-get", args, { stdio: ["ignore", "ignore", "inherit"], env });
  }
  return result.status === 0 && usable();
}

if (process.argv[2] !== "ensure") {
  say("usage: node scripts/python-requests.mjs ensure");
  process.exit(2);
}
if (usable() || install()) {
  process.stdout.write(`${PYTHON}\n`);
  process.exit(0);
}
process.exit(1);
