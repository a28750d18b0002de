// A run of every check against the Prism mock: shared by test/suites/prism-run.test.ts, which pins what
// passes, and scripts/refresh.ts, which rewrites that table (and docs/prism-run.md's counts) after a change.
import type { Clock, Target } from "../../src/check/index.ts";
import type { MockServer } from "../../src/mock/index.ts";
import type { RunResult } from "../../src/result/model.ts";
import { lenientProfile, planRun, runPlan } from "../../src/runner/index.ts";
import { allChecks } from "../../suites/index.ts";
import { testSeed } from "./embedded-run.ts";

/** The fixture world's names (docs/assumptions.md), as the documents' examples use them. Prism answers the
 *  token endpoint from its example whatever the credentials. */
export function prismTarget(mock: MockServer): Target {
  const credential = (clientId: string) => ({ clientId, clientSecret: `${clientId}-secret` });
  return {
    name: "Prism mock",
    baseUrl: mock.baseUrl,
    rdmUrl: mock.rdmUrl,
    tenant: "acme",
    otherTenant: "globex",
    otherTenantLackedBy: ["admin", "editor", "viewer"],
    rdbmsTenant: "legacy",
    rdbmsCustomerId: "cust-legacy",
    customerId: "cust-acme",
    quotaCustomerId: "cust-acme",
    credentials: {
      admin: credential("acme-admin"),
      editor: credential("acme-editor"),
      viewer: credential("acme-viewer"),
      quota: credential("acme-quota"),
      otherAdmin: credential("globex-admin"),
      rdbmsAdmin: credential("legacy-admin"),
    },
    profile: { ...lenientProfile },
    loopback: true,
  };
}

/** Not drivable (no advance), as for any live target; but a wait takes no real time: Prism's answers do not
 *  depend on time, so the real-time paths (tokens of 2-3 s validity and the sleeps around them) take their
 *  course in milliseconds. `lckit run --target examples/target.prism.yaml` waits for real and agrees. */
export function hurriedClock(): Clock {
  let skipped = 0;
  return {
    now: () => Date.now() + skipped,
    async sleep(ms) {
      skipped += Math.max(0, ms);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** Every check against the mock, as the test pins it: seed 42, the CLI's 25 runs per property. */
export function runAgainstPrism(mock: MockServer): Promise<RunResult> {
  const target = prismTarget(mock);
  const plan = planRun(allChecks, {
    target,
    allow: ["write", "destructive", "quota"],
    confirmTenant: target.tenant,
    drivableClock: false,
  });
  return runPlan(plan, {
    fetch: (request) => fetch(request),
    clock: hurriedClock(),
    seed: testSeed,
    // The default of `lckit run`: with fewer runs a property may miss what Prism gets wrong (limit=1).
    runs: 25,
    timeoutMs: 5_000,
    checkTimeoutMs: 20_000,
  });
}
