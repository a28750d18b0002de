import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const root = import.meta.dirname;
const timingsFile = join(root, "test", "timings.json");

/**
 * Starts the longest files first, from the wall times `npm run test:profile -- --write` recorded in
 * test/timings.json, so that the last minutes of a run are not one long file alone on a worker. A file
 * with no recorded time (a new one) goes first: it may be long, and it is what its author wants to see.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const timings: Record<string, number> = existsSync(timingsFile)
      ? JSON.parse(readFileSync(timingsFile, "utf8"))
      : {};
    const seconds = (file: TestSpecification) =>
      timings[relative(root, file.moduleId).split("\\").join("/")] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => seconds(b) - seconds(a) || a.moduleId.localeCompare(b.moduleId));
  }
}

/** Files the recorded profile shows finishing within this many seconds: the set `npm run test:quick` runs
 *  (scripts/test-quick.mjs reads the same limit). */
const QUICK_FILE_SECONDS = 5;
const include = ["test/**/*.test.ts", "src/**/*.test.ts", "suites/**/*.test.ts"];
const recorded: Record<string, number> = existsSync(timingsFile)
  ? JSON.parse(readFileSync(timingsFile, "utf8"))
  : {};
const quickFiles = Object.entries(recorded)
  .filter(([file, seconds]) => seconds <= QUICK_FILE_SECONDS && existsSync(join(root, file)))
  .map(([file]) => file)
  .sort();

// Most of the suite's time is spent waiting (real clocks, child processes, the broker, installs), which
// overlaps well: two workers per core keep both cores busy. LCKIT_TEST_WORKERS overrides it.
const workers = Number(process.env.LCKIT_TEST_WORKERS) || Math.max(2, availableParallelism() * 2);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: workers,
    setupFiles: ["test/support/profile-setup.ts"],
    sequence: { sequencer: LongestFirst },
    // Each project names its own files (a list set here would be added to each project's).
    // The quick files (test:quick's set, which already runs them with --no-isolate) share one module graph
    // per worker: isolated, each spent longer importing the kit's modules again than running its tests
    // (about half of the whole run's CPU for those 150 files). The long files stay isolated, each in a
    // process of its own: they lower their priority (test/support/background.ts), start servers, and
    // would hand a worker's state on to the next file.
    projects: [
      {
        extends: true,
        test: { name: "isolated", include, exclude: [...configDefaults.exclude, ...quickFiles] },
      },
      { extends: true, test: { name: "shared", include: quickFiles, isolate: false } },
    ],
    // The kit's caches go to the checkout's .tmp, never to the home folder of whoever runs the tests.
    env: {
      REDOCLY_TELEMETRY: "off",
      PACT_DO_NOT_TRACK: "true",
      LCKIT_CACHE_DIR: join(root, ".tmp", "cache"),
    },
  },
});
