#!/usr/bin/env node
// The README's test command: runs every test file with vitest and ends with the plain line
// "N passed, N failed" that CI reads. Services the tests need (RabbitMQ) are started and stopped here.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const startedAt = Date.now();
const out = join(root, ".tmp", "vitest-results.json");
mkdirSync(join(root, ".tmp"), { recursive: true });
// CPU time per test file, for `npm run test:profile` (test/support/profile-setup.ts writes it).
const profileDir = join(root, ".tmp", "test-profile");
rmSync(profileDir, { recursive: true, force: true });
process.env.LCKIT_TEST_PROFILE_DIR = profileDir;
process.env.REDOCLY_TELEMETRY = "off";
process.env.PACT_DO_NOT_TRACK = "true";

const services = join(root, "scripts", "services.mjs");
const hasServices = existsSync(services);
let servicesStarted = false;
if (hasServices) {
  const started = spawnSync(process.execPath, [services, "start"], { stdio: "inherit", cwd: root });
  servicesStarted = started.status === 0;
  if (!servicesStarted)
    console.error("test: could not start the test services (see above); broker tests will fail");
}

// Headless Chromium for the browser test of report.html (installed from Debian's package when absent).
const chromium = spawnSync(process.execPath, [join(root, "scripts", "chromium.mjs"), "ensure"], {
  cwd: root,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
});
const chromiumPath = chromium.status === 0 ? chromium.stdout.trim().split("\n").pop() : "";
if (chromiumPath) process.env.LCKIT_CHROMIUM = chromiumPath;

// Debian's python3-requests for the Python example client of lckit client check (test/workbench).
spawnSync(process.execPath, [join(root, "scripts", "python-requests.mjs"), "ensure"], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
});

let result;
try {
  result = spawnSync(
    join(root, "node_modules", ".bin", "vitest"),
    ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...process.argv.slice(2)],
    { stdio: "inherit", cwd: root, env: { ...process.env, LCKIT_SERVICES: servicesStarted ? "1" : "" } },
  );
} finally {
  if (hasServices) spawnSync(process.execPath, [services, "stop"], { stdio: "inherit", cwd: root });
}

let passed = 0;
let failed = 0;
if (existsSync(out)) {
  const json = JSON.parse(readFileSync(out, "utf8"));
  passed = json.numPassedTests ?? 0;
  failed = (json.numFailedTests ?? 0) + (json.numRuntimeErrorTestSuites ?? 0);
  // A suite that fails to load has no tests but is a failure all the same.
  for (const file of json.testResults ?? []) {
    if (file.status === "failed" && (file.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed = 1;
  console.error("test: vitest wrote no results; treating the run as failed");
}
if (passed + failed === 0) {
  failed = 1;
  console.error("test: no test was executed; that is a defect");
}
console.log(
  `test: ${Math.round((Date.now() - startedAt) / 1000)} s wall; \`npm run test:profile\` shows where it went`,
);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || result.status !== 0 ? 1 : 0);
