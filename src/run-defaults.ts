// The defaults of `lckit run`, in one place: what a run goes with when neither a flag nor the target file
// gives a value. The flag table (--help), the target-file reader, the run session and the runner all read
// them here; docs/target-file.md states the same values (test/project/run-defaults.test.ts holds it to them).
// Below everything (rank 0 of the import graph), since the transport, the target file and the runner each
// apply one of them.
export const RUN_DEFAULTS = {
  /** Runs per property check (--runs). */
  runs: 25,
  /** The whole run's time limit (--deadline, "deadline"): a CI job gets a report of what finished rather
   *  than being killed. */
  deadlineMs: 30 * 60_000,
  /** Requests in a row that time out or fail to connect before the target counts as unresponsive
   *  (--unresponsive-after, "unresponsiveAfter"). */
  unresponsiveAfter: 2,
  /** Per-request time limit ("timeoutMs"). */
  timeoutMs: 15_000,
  /** Per-check time limit ("checkTimeoutMs"). */
  checkTimeoutMs: 120_000,
  /** Requests per second against a target that is not loopback ("rateLimit"); a loopback one is unlimited. */
  rateLimit: 10,
  /** Largest answer the kit reads ("maxResponseBytes"). */
  maxResponseBytes: 8 * 1024 * 1024,
  /** Where report folders go (--report-dir). */
  reportDir: "reports",
} as const;
