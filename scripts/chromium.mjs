#!/usr/bin/env node
// Headless Chromium for test/report/html-browser.test.ts, from Debian's package (as services.mjs does for
// RabbitMQ): installed with apt-get when absent and this is root; otherwise the test says why it cannot run.
//
//   node scripts/chromium.mjs ensure    install when absent; print the binary's path (exit 0) or why not (exit 1)
//
// With LCKIT_CHROMIUM set to a browser binary, that one is used and nothing is installed.
// Plain Node ESM on purpose: scripts/test.mjs runs it before TypeScript tooling is involved.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

function found() {
  if (process.env.LCKIT_CHROMIUM)
    return existsSync(process.env.LCKIT_CHROMIUM) ? process.env.LCKIT_CHROMIUM : "";
  return candidates.find((path) => existsSync(path)) ?? "";
}

function install() {
  if (!isRoot) {
    process.stderr.write(
      "chromium: not installed and this is not root; install it once: sudo apt-get install -y chromium\n",
    );
    return false;
  }
  process.stdout.write(
    "chromium: not installed; installing Debian's chromium with apt-get (a minute or two)\n",
  );
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const args = ["install", "-y", "-qq", "--no-install-recommends", "chromium"];
  let result = spawnSync("apt-get", args, { stdio: "inherit", env });
  if (result.status !== 0) {
    spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    result = spawnSync("apt-get", args, { stdio: "inherit", env });
  }
  return result.status === 0;
}

if (process.argv[2] !== "ensure") {
  process.stderr.write("usage: node scripts/chromium.mjs ensure\n");
  process.exit(2);
}
let path = found();
if (!path && !process.env.LCKIT_CHROMIUM && install()) path = found();
if (path) {
  process.stdout.write(`${path}\n`);
  process.exit(0);
}
process.stderr.write(
  "chromium: no headless Chromium available; the browser test of report.html says so and checks the HTML only\n",
);
process.exit(1);
